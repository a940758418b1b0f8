import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { GetfaclReader, parseGetfacl } from '../../src/main/core/security/getfacl.js';

function hasSetfacl(): boolean {
  try {
    execFileSync('setfacl', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
const available = hasSetfacl();
if (!available && process.env.CI === 'true') throw new Error('CI: setfacl/getfacl (package acl) must be installed');

describe('parseGetfacl (recorded output of getfacl --skip-base --absolute-names --numeric --no-effective)', () => {
  const parsed = parseGetfacl(fs.readFileSync(path.join(import.meta.dirname, 'fixtures/getfacl-skip-base.txt'), 'utf8'));

  it('reads named users, named groups, the owning group entry and the mask', () => {
    expect(parsed.get('/tmp/facltest/a')).toEqual({ users: [[1002, 4]], groupObj: 4, groups: [[1004, 6]], mask: 6 });
  });

  it('unescapes control characters and backslashes in names and keeps UTF-8 names', () => {
    expect(parsed.get('/tmp/facltest/e\nf')?.users).toEqual([[1002, 0]]);
    expect(parsed.get('/tmp/facltest/g\\h')?.users).toEqual([[1002, 0]]);
    expect(parsed.get('/tmp/facltest/c d')?.mask).toBe(4);
    expect(parsed.get('/tmp/facltest/café')?.users).toEqual([[1002, 4]]);
    expect(parsed.get('/tmp/facltest/日本')?.users).toEqual([[1002, 4]]);
  });

  it('ignores default ACLs (they govern new children, not access)', () => {
    expect(parsed.get('/tmp/facltest/sub')).toEqual({ users: [[1001, 1]], groupObj: 5, groups: [], mask: 5 });
  });

  it('lists only items with an extended ACL', () => {
    expect(parsed.has('/tmp/facltest/b')).toBe(false);
    expect(parsed.has('/tmp/facltest')).toBe(false);
  });
});

describe.skipIf(!available)('GetfaclReader on real files', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-facl-'));
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

  it('answers a whole folder with one process and re-reads an item whose ctime moved', async () => {
    for (let i = 0; i < 50; i++) fs.writeFileSync(path.join(root, `f${i}.txt`), 'x');
    execFileSync('setfacl', ['-m', 'u:65534:r', path.join(root, 'f7.txt')]);
    const old = Date.now() - 10_000;
    for (let i = 0; i < 50; i++) fs.utimesSync(path.join(root, `f${i}.txt`), old / 1000, old / 1000);
    // ctime cannot be set back; pretend the items changed long ago by passing an old ctime.
    const reader = new GetfaclReader();
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => reader.get(path.join(root, `f${i}.txt`), old, { folder: true })));
    expect(reader.processes).toBe(1);
    expect(answers.filter(Boolean)).toHaveLength(1);
    expect(answers[7]?.users).toEqual([[65534, 4]]);

    execFileSync('setfacl', ['-m', 'u:65534:-', path.join(root, 'f7.txt')]);
    const st = fs.statSync(path.join(root, 'f7.txt'));
    const again = await reader.get(path.join(root, 'f7.txt'), st.ctimeMs, { folder: true });
    expect(again?.users).toEqual([[65534, 0]]);
    expect(reader.processes).toBe(2);
    // Unchanged siblings are still answered from the first batch.
    await reader.get(path.join(root, 'f8.txt'), old, { folder: true });
    expect(reader.processes).toBe(2);
  });

  it('answers null (never throws) when getfacl is missing, and says so once', async () => {
    const reasons: string[] = [];
    const reader = new GetfaclReader({ command: 'trawl-no-such-getfacl', onUnavailable: (r) => reasons.push(r) });
    expect(await reader.get(path.join(root, 'f1.txt'), 0)).toBeNull();
    expect(await reader.get(path.join(root, 'f2.txt'), 0)).toBeNull();
    expect(reasons).toHaveLength(1);
  });
});
