import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseLookupNames, parseRids } from './smb-principals.js';

const FIX = path.resolve(__dirname, '../../../../../test/smb/fixtures');
const lines = (name: string): string[] => fs.readFileSync(path.join(FIX, name), 'utf8').split('\n');

describe('rpcclient output', () => {
  it('reads recorded lookupnames answers and leaves unmapped names out', () => {
    expect(parseLookupNames(lines('rpc-lookupnames.stdout'))).toEqual([
      { name: 'alice', sid: 'S-1-5-21-1938987793-1253678122-523364932-1000', type: 1 },
      { name: 'Unix User\\alice', sid: 'S-1-22-1-1001', type: 1 },
      { name: 'Unix Group\\sales', sid: 'S-1-22-2-1004', type: 2 },
      { name: 'Unix Group\\alice', sid: 'S-1-22-2-1001', type: 2 },
    ]);
    expect(parseLookupNames(['result was NT_STATUS_NONE_MAPPED'])).toEqual([]);
  });
  it('reads group and alias RIDs', () => {
    expect(parseRids(lines('rpc-queryusergroups.stdout'))).toEqual([0x201]);
    expect(parseRids(['\trid:[0x220]', '\tgroup rid:[0x3e9] attr:[0x7]', 'junk rid:[0x1]'])).toEqual([
      0x220, 0x3e9,
    ]);
  });
});
