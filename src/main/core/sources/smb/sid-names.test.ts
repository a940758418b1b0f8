import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isSid, lookupSidNames, parseLookupSids, sidLabel, SidNameCache } from './sid-names.js';

const FIX = path.resolve(__dirname, '../../../../../test/smb/fixtures');
const lines = (name: string): string[] => fs.readFileSync(path.join(FIX, name), 'utf8').split('\n');
const DOM = 'S-1-5-21-725804085-3375679341-1607731592';

describe('lookupsids output (recorded from Samba 4.17)', () => {
  it('names users, groups, aliases and well-known SIDs, and marks unknown ones', () => {
    const asked = [
      `${DOM}-1000`,
      'S-1-22-1-1001',
      'S-1-22-2-1004',
      'S-1-1-0',
      'S-1-5-11',
      'S-1-5-32-544',
      'S-1-5-2',
      `${DOM}-513`,
      `${DOM}-9999`,
      'S-1-22-1-99999',
      'S-1-5-21-1-2-3-4',
      'S-1-3-0',
      'S-1-5-18',
      'S-1-22-2-0',
    ];
    const { names, errors } = parseLookupSids(lines('rpc-lookupsids-mixed.stdout'), new Set(asked));
    expect(errors).toEqual([]);
    expect([...names.keys()]).toEqual(asked);
    expect(names.get(`${DOM}-1000`)).toEqual({
      sid: `${DOM}-1000`,
      domain: 'TRAWL45699',
      name: 'alice',
      type: 1,
    });
    expect(names.get('S-1-1-0')).toEqual({ sid: 'S-1-1-0', domain: '', name: 'Everyone', type: 5 });
    expect(sidLabel(names.get('S-1-1-0')!)).toBe('Everyone');
    expect(sidLabel(names.get('S-1-5-11')!)).toBe('NT Authority\\Authenticated Users');
    expect(sidLabel(names.get('S-1-22-2-1004')!)).toBe('Unix Group\\sales');
    expect(names.get('S-1-5-32-544')?.type).toBe(4);
    // a uid with no account still gets Samba's Unix User name; unmapped domain RIDs are unknown
    expect(sidLabel(names.get('S-1-22-1-99999')!)).toBe('Unix User\\99999');
    expect(names.get(`${DOM}-9999`)).toBeNull();
    expect(names.get('S-1-5-21-1-2-3-4')).toBeNull();
  });

  it('reads several commands of one process, names with spaces, umlauts and brackets', () => {
    const asked = [
      `${DOM}-1004`,
      `${DOM}-1000`,
      `${DOM}-9999`,
      'S-1-5-21-1-2-3-4',
      'S-1-5-32-545',
      'S-1-22-1-1002',
    ];
    const { names } = parseLookupSids(lines('rpc-lookupsids-batches.stdout'), new Set(asked));
    expect(sidLabel(names.get(`${DOM}-1004`)!)).toBe('TRAWL45699\\Vertrieb Süd (EU)');
    expect(names.get(`${DOM}-1004`)!.type).toBe(2);
    expect(sidLabel(names.get('S-1-5-32-545')!)).toBe('BUILTIN\\Users');
    expect(names.size).toBe(6);
  });

  it('reports a refused command and keeps the answers of the others', () => {
    const { names, errors } = parseLookupSids(lines('rpc-lookupsids-invalid.stdout'), new Set(['S-1-1-0']));
    expect(errors).toEqual(['NT_STATUS_INVALID_SID']);
    expect(sidLabel(names.get('S-1-1-0')!)).toBe('Everyone');
  });

  it('all unknown', () => {
    const { names } = parseLookupSids(
      lines('rpc-lookupsids-unknown.stdout'),
      new Set([`${DOM}-9999`, 'S-1-5-21-1-2-3-4']),
    );
    expect([...names.values()]).toEqual([null, null]);
  });

  it('refuses output it does not understand, or answers nobody asked for', () => {
    expect(() => parseLookupSids(['S-1-1-0 \\Everyone'], new Set(['S-1-1-0']))).toThrow(
      /unexpected rpcclient output/,
    );
    expect(() => parseLookupSids(['something else'], new Set())).toThrow(/unexpected/);
    expect(() => parseLookupSids(['S-1-5-18 NT Authority\\SYSTEM (5)'], new Set(['S-1-1-0']))).toThrow(
      /not asked about/,
    );
  });

  it('knows a SID when it sees one', () => {
    for (const s of ['S-1-1-0', `${DOM}-1000`, 'S-1-22-2-4294967295', 's-1-5-32-544'])
      expect(isSid(s), s).toBe(true);
    for (const s of ['S-1-1', 'S-2-1-0', 'S-1-5-4294967296', 'S-1-5-21-1;rm', 'S-1-5 -1', '', 'S-0-0'])
      expect(isSid(s), s).toBe(false);
  });
});

describe('lookupSidNames and SidNameCache (a stand-in rpcclient replaying recorded output)', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-sidnames-'));
  const log = path.join(dir, 'calls.log');
  const bin = path.join(dir, 'rpcclient');
  // answers every SID of its -c argument from the recorded mixed answer (unknown ones as type 8)
  fs.writeFileSync(
    bin,
    `#!/bin/sh
printf '%s\\n' "$*" >> '${log}'
env | grep -c '^PASSWD=' >> '${log}'
while [ $# -gt 1 ]; do [ "$1" = -c ] && cmd="$2"; shift; done
for sid in $(printf '%s' "$cmd" | tr ';' '\\n' | sed 's/lookupsids//'); do
  line=$(grep "^$sid " '${path.join(FIX, 'rpc-lookupsids-mixed.stdout')}')
  if [ -n "$line" ]; then printf '%s\\n' "$line"; else printf '%s %s\\n' "$sid" '*unknown*\\*unknown* (8)'; fi
done
`,
    { mode: 0o755 },
  );
  const calls = (): string[] =>
    fs.existsSync(log) ? fs.readFileSync(log, 'utf8').split('\n').filter(Boolean) : [];
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('uses one process per batch, credentials off the command line, and caches', async () => {
    const sids = [
      `${DOM}-1000`,
      'S-1-1-0',
      'S-1-5-11',
      'not-a-sid',
      ...Array.from({ length: 250 }, (_, i) => `${DOM}-${5000 + i}`),
    ];
    const cred = { user: 'crawler', password: 'Sekr1t-pw', domain: 'CORP' };
    const names = await lookupSidNames('smb://127.0.0.1:4455/share', cred, sids, {
      rpcclient: bin,
      perCommand: 100,
    });
    const argv = calls();
    expect(argv).toHaveLength(2); // one process: its argv, then "1" (PASSWD set in its environment)
    expect(argv[0]).toMatch(/^127\.0\.0\.1 -p 4455 -A \S+ -c lookupsids .*; lookupsids .*; lookupsids /);
    expect(argv[0]).not.toContain('Sekr1t-pw');
    expect(argv[0]).not.toContain('not-a-sid');
    expect(argv[1]).toBe('1');
    expect(sidLabel(names.get(`${DOM}-1000`)!)).toBe('TRAWL45699\\alice');
    expect(names.get(`${DOM}-5000`)).toBeNull();
    expect(names.size).toBe(253);
    fs.rmSync(log);

    const cache = new SidNameCache({ rpcclient: bin, perProcess: 100 });
    const url = 'smb://127.0.0.1:4455/share';
    const [a, b] = await Promise.all([
      cache.names(url, cred, [`${DOM}-1000`, 'S-1-1-0']),
      cache.names(url, cred, ['S-1-1-0', `${DOM}-1000`]),
    ]);
    expect(calls()).toHaveLength(2); // the second request joined the first lookup
    expect(sidLabel(a.get('S-1-1-0')!)).toBe('Everyone');
    expect(b.get(`${DOM}-1000`)).toEqual(a.get(`${DOM}-1000`));
    const again = await cache.names(url, cred, [`${DOM}-1000`, 'S-1-5-18', `${DOM}-9999`]);
    expect(calls()).toHaveLength(4); // only the two SIDs not known yet were asked
    expect(calls()[2]).toMatch(/-c lookupsids S-1-5-18 S-1-5-21-725804085-3375679341-1607731592-9999$/);
    expect(sidLabel(again.get('S-1-5-18')!)).toBe('NT Authority\\SYSTEM');
    expect(again.get(`${DOM}-9999`)).toBeNull();
  });

  it('fails with the server’s reason when the login is refused', async () => {
    const refuse = path.join(dir, 'rpcclient-refuse');
    fs.writeFileSync(
      refuse,
      `#!/bin/sh\ncat '${path.join(FIX, 'rpc-lookupsids-logon.stderr')}' >&2\nexit 1\n`,
      {
        mode: 0o755,
      },
    );
    await expect(
      lookupSidNames('smb://127.0.0.1/share', { user: 'x', password: 'y' }, ['S-1-1-0'], {
        rpcclient: refuse,
      }),
    ).rejects.toMatchObject({ code: 'auth', message: expect.stringMatching(/NT_STATUS_LOGON_FAILURE/) });
    const gone = path.join(dir, 'rpcclient-gone');
    fs.writeFileSync(
      gone,
      `#!/bin/sh\ncat '${path.join(FIX, 'rpc-lookupsids-refused.stderr')}' >&2\nexit 1\n`,
      {
        mode: 0o755,
      },
    );
    await expect(
      lookupSidNames('smb://127.0.0.1:1/share', null, ['S-1-1-0'], { rpcclient: gone }),
    ).rejects.toMatchObject({
      code: 'unavailable',
      message: expect.stringMatching(/NT_STATUS_CONNECTION_REFUSED/),
    });
    await expect(
      lookupSidNames('smb://127.0.0.1/share', null, ['S-1-1-0'], { rpcclient: path.join(dir, 'nope') }),
    ).rejects.toMatchObject({ code: 'unavailable', message: expect.stringMatching(/not installed/) });
  });
});
