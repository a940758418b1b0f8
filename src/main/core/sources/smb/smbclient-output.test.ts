/**
 * The smbclient parsers against outputs recorded from Samba 4.17 (test/smb/fixtures, recorded with
 * `TZ=UTC smbclient //127.0.0.1/docs -p <port> -A <auth>` fed the commands named in each test, on a
 * folder whose names have spaces, umlauts, CJK, brackets, leading dots, 30-byte and longer names).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  classifyGetLine,
  connectFailure,
  ListingBatchParser,
  parseAsctime,
  parseLsRow,
  RecursiveListingParser,
  type ListingResult,
} from './smbclient-output.js';

const FIX = path.resolve(__dirname, '../../../../../test/smb/fixtures');
const lines = (name: string): string[] =>
  fs.readFileSync(path.join(FIX, name), 'utf8').replace(/\n$/, '').split('\n');

/** The folder the fixtures list, as `ls -a` shows it on the server (without . and ..). */
const ROOT_NAMES = [
  '.hidden',
  '.leading dot.txt',
  '[brackets]',
  '[x] (1).txt',
  'a file.txt',
  'a-very-long-file-name-that-exceeds-thirty-bytes.txt',
  'acl-bob.txt',
  'deny-bob.txt',
  'empty',
  'exactly-thirty-bytes-name.txt1',
  'group.txt',
  'owner-only.txt',
  'private',
  'straße Ünïcode.txt',
  'sub dir',
  'Ünïcode',
  '日本語',
  '日本語の長いファイル名です.txt',
].sort();
const ROOT_DIRS = ['.hidden', '[brackets]', 'empty', 'private', 'sub dir', 'Ünïcode', '日本語'].sort();

function runBatch(file: string, masks: string[], showacls: boolean, cut?: number): ListingResult[] {
  const results: ListingResult[] = [];
  const p = new ListingBatchParser(
    masks.map((mask) => ({ mask })),
    showacls,
    (i, r) => (results[i] = r),
  );
  const ls = lines(file);
  for (const l of cut === undefined ? ls : ls.slice(0, cut)) p.push(l);
  p.end();
  return results;
}

const names = (r: ListingResult): string[] => (r.ok ? r.entries.map((e) => e.name).sort() : []);

describe('parseAsctime', () => {
  it('reads UTC asctime with space-padded days', () => {
    expect(parseAsctime('Sat Feb  3 04:05:06 2001')).toBe(Date.UTC(2001, 1, 3, 4, 5, 6));
    expect(parseAsctime('Sun Nov 29 21:43:13 2026')).toBe(Date.UTC(2026, 10, 29, 21, 43, 13));
  });
  it('refuses anything else', () => {
    expect(parseAsctime('Sun Nov 29 21:43:13')).toBeNull();
    expect(parseAsctime('Xyz Nov 29 21:43:13 2026')).toBeNull();
    expect(parseAsctime('2026-11-29T21:43:13Z')).toBeNull();
  });
});

describe('parseLsRow', () => {
  it('reads every recorded row exactly, whatever the name', () => {
    const rows = lines('ls-plain.stdout').slice(1, 21).map(parseLsRow);
    expect(rows.every(Boolean)).toBe(true);
    expect(
      rows
        .map((r) => r!.name)
        .filter((n) => n !== '.' && n !== '..')
        .sort(),
    ).toEqual(ROOT_NAMES);
    const byName = new Map(rows.map((r) => [r!.name, r!]));
    expect(byName.get('.hidden')).toMatchObject({ attrs: 'DH', isDir: true, size: 0 });
    expect(byName.get('.leading dot.txt')).toMatchObject({ attrs: 'H', isDir: false, size: 2 });
    expect(byName.get('a file.txt')!.mtimeMs).toBe(Date.UTC(2001, 1, 3, 4, 5, 6));
  });
  it('reads names shorter than, exactly and longer than the 30-byte column', () => {
    const pad = (s: string): string => s + ' '.repeat(Math.max(0, 30 - Buffer.byteLength(s)));
    const row = (name: string, attrs: string, size: number): string =>
      `  ${pad(name)}${attrs.padStart(7)} ${String(size).padStart(8)}  Sun Nov 29 21:43:13 2026`;
    for (const name of [
      'x',
      'trail N',
      'exactly-thirty-bytes-name.txt1',
      'ends with letters ABC and is long',
      '日本語',
      ' lead',
    ]) {
      expect(parseLsRow(row(name, 'A', 5))).toMatchObject({ name, attrs: 'A', size: 5 });
    }
    expect(parseLsRow(row('big', 'N', 125829120))).toMatchObject({ name: 'big', size: 125829120 });
    expect(parseLsRow(row('dir', 'DHS', 0))).toMatchObject({ name: 'dir', isDir: true, attrs: 'DHS' });
  });
  it('refuses rows without the shape', () => {
    expect(parseLsRow('  a file.txt N 2 Sun Nov 29 21:43:13 2026')).toBeNull();
    expect(parseLsRow('\t\t264212084 blocks of size 1024. 81655780 blocks available')).toBeNull();
    expect(
      parseLsRow('  short                              N        2  not a date at all here!!'),
    ).toBeNull();
  });
});

describe('ListingBatchParser (plain ls)', () => {
  it('splits a recorded batch into one result per command', () => {
    const r = runBatch(
      'ls-plain.stdout',
      [
        'fixture\\*',
        'fixture\\日本語\\*',
        'fixture\\a file.txt',
        'fixture\\nonexist\\*',
        'fixture\\empty\\*',
      ],
      false,
    );
    expect(r).toHaveLength(5);
    expect(names(r[0])).toEqual(ROOT_NAMES);
    expect(names(r[1])).toEqual(['文書.txt']);
    expect(r[2].ok && r[2].entries[0]).toMatchObject({
      name: 'a file.txt',
      size: 2,
      mtimeMs: Date.UTC(2001, 1, 3, 4, 5, 6),
    });
    expect(r[3].ok ? null : r[3].error.code).toBe('not-found');
    expect(r[4]).toEqual({ ok: true, entries: [] });
  });
  it('fails every command when the output names another listing (out of step)', () => {
    const r = runBatch(
      'ls-plain.stdout',
      ['fixture\\*', 'fixture\\日本語\\*', 'fixture\\a file.txt', 'elsewhere\\*', 'x\\*'],
      false,
    );
    expect(r[0].ok && r[1].ok && r[2].ok).toBe(true);
    expect(r.slice(3).map((x) => (x.ok ? 'ok' : x.error.code))).toEqual(['io', 'io']);
  });
  it('fails the commands a truncated output never answered', () => {
    const r = runBatch('ls-plain.stdout', ['fixture\\*', 'fixture\\日本語\\*'], false, 10);
    expect(r.map((x) => (x.ok ? 'ok' : x.error.code))).toEqual(['io', 'io']);
  });
  it('fails only the command whose block holds a line it cannot read', () => {
    const results: ListingResult[] = [];
    const p = new ListingBatchParser([{ mask: 'a\\*' }, { mask: 'b\\*' }], false, (i, r) => (results[i] = r));
    p.push('  what is this');
    p.push('\t\t1 blocks of size 1024. 1 blocks available');
    p.push('  b.txt                               N        2  Sun Nov 29 22:03:21 2026');
    p.push('\t\t1 blocks of size 1024. 1 blocks available');
    expect(results[0].ok).toBe(false);
    expect(names(results[1])).toEqual(['b.txt']);
  });
  it('fails everything with the login error', () => {
    for (const [file, code] of [
      ['fail-logon.stdout', 'auth'],
      ['fail-share.stdout', 'not-found'],
      ['fail-refused.stdout', 'unavailable'],
    ] as const) {
      const r = runBatch(file, ['*', 'x\\*'], false);
      expect(r.map((x) => (x.ok ? 'ok' : x.error.code))).toEqual([code, code]);
    }
  });
});

describe('ListingBatchParser (showacls)', () => {
  it('reads entries with their DACLs (crawl account)', () => {
    const r = runBatch(
      'ls-showacls-admin.stdout',
      ['fixture\\*', 'fixture\\private\\*', 'fixture\\empty\\*', 'fixture\\deny-bob.txt'],
      true,
    );
    expect(r.every((x) => x.ok)).toBe(true);
    expect(names(r[0])).toEqual(ROOT_NAMES);
    const root = r[0].ok ? r[0].entries : [];
    expect(
      root
        .filter((e) => e.isDir)
        .map((e) => e.name)
        .sort(),
    ).toEqual(ROOT_DIRS);
    expect(root.every((e) => Array.isArray(e.dacl))).toBe(true);
    const acl = root.find((e) => e.name === 'acl-bob.txt')!;
    expect(acl.dacl).toEqual([
      { type: 'allow', sid: 'S-1-5-21-1938987793-1253678122-523364932-1000', mask: 0x1f019f, flags: 0 },
      { type: 'allow', sid: 'S-1-22-2-1001', mask: 0, flags: 0 },
      { type: 'allow', sid: 'S-1-5-21-1938987793-1253678122-523364932-1001', mask: 0x120089, flags: 0 },
      { type: 'allow', sid: 'S-1-1-0', mask: 0, flags: 0 },
    ]);
    expect(acl.owner).toBe('S-1-5-21-1938987793-1253678122-523364932-1000');
    const folder = root.find((e) => e.name === 'sub dir')!;
    expect(Array.isArray(folder.dacl) && folder.dacl.some((a) => a.flags & 0x08)).toBe(true);
    expect(names(r[1])).toEqual(['secret.txt']);
    expect(r[2]).toEqual({ ok: true, entries: [] });
    const deny = r[3].ok ? r[3].entries[0] : null;
    expect(deny?.name).toBe('deny-bob.txt');
    expect(Array.isArray(deny?.dacl) && deny.dacl[0]).toMatchObject({
      type: 'deny',
      sid: 'S-1-5-21-1938987793-1253678122-523364932-1001',
    });
  });
  it('marks descriptors the account may not read and reports folders it may not list', () => {
    const r = runBatch(
      'ls-showacls-bob.stdout',
      ['fixture\\*', 'fixture\\private\\*', 'fixture\\sub dir\\*'],
      true,
    );
    expect(names(r[0])).toEqual(ROOT_NAMES);
    const root = r[0].ok ? r[0].entries : [];
    expect(
      root
        .filter((e) => e.dacl === 'unreadable')
        .map((e) => e.name)
        .sort(),
    ).toEqual(['deny-bob.txt', 'group.txt', 'owner-only.txt', 'private']);
    expect(r[1].ok ? null : r[1].error.code).toBe('access-denied');
    expect(names(r[2])).toEqual(['inner file.md']);
  });
  it('refuses an ACE count that does not match', () => {
    const ls = lines('ls-showacls-admin.stdout');
    const cut = ls.findIndex((l) => l === 'FILENAME:acl-bob.txt');
    const edited = [...ls.slice(0, cut + 7), '\tACL\tNum ACEs:\t9\trevision:\t2', ...ls.slice(cut + 8)];
    const results: ListingResult[] = [];
    const p = new ListingBatchParser([{ mask: 'fixture\\*' }], true, (i, x) => (results[i] = x));
    for (const l of edited) p.push(l);
    p.end();
    expect(results[0].ok ? null : results[0].error.message).toMatch(/ACE count/);
  });
});

describe('RecursiveListingParser', () => {
  function run(file: string): Map<string, ListingResult> {
    const out = new Map<string, ListingResult>();
    const p = new RecursiveListingParser(['fixture'], (pth, r) => out.set(pth.join('\\'), r));
    for (const l of lines(file)) p.push(l);
    expect(p.finished).toBe(true);
    p.end();
    return out;
  }
  it('reports every folder of the tree, with its entries', () => {
    const out = run('ls-recursive-admin.stdout');
    expect([...out.keys()].sort()).toEqual(['fixture', ...ROOT_DIRS.map((d) => `fixture\\${d}`)].sort());
    expect(names(out.get('fixture')!)).toEqual(ROOT_NAMES);
    expect(names(out.get('fixture\\private')!)).toEqual(['secret.txt']);
    expect(names(out.get('fixture\\日本語')!)).toEqual(['文書.txt']);
    expect(names(out.get('fixture\\sub dir')!)).toEqual(['inner file.md']);
  });
  it('reports a folder the account may not list, and ends at the pwd answer without a disk-free line', () => {
    const out = run('ls-recursive-carol.stdout');
    const priv = out.get('fixture\\private')!;
    expect(priv.ok ? null : priv.error.code).toBe('access-denied');
    expect(out.get('fixture\\Ünïcode')).toEqual({ ok: true, entries: [] });
  });
  it('fails the open folder when the output stops in the middle', () => {
    const out = new Map<string, ListingResult>();
    const p = new RecursiveListingParser(['fixture'], (pth, r) => out.set(pth.join('\\'), r));
    for (const l of lines('ls-recursive-admin.stdout').slice(0, 8)) p.push(l);
    p.end();
    expect(out.get('fixture')!.ok).toBe(false);
  });
});

describe('classifyGetLine', () => {
  it('reads a recorded get session', () => {
    const ev = lines('get-bob.stderr').map(classifyGetLine);
    expect(ev[0]).toBeNull();
    expect(ev[1]).toMatchObject({
      kind: 'get',
      remote: '\\fixture\\a file.txt',
      local: '/tmp/trawl-smb-get-X/1',
      size: 2,
      state: 'ok',
    });
    expect(ev[2]).toMatchObject({ kind: 'failed', remote: '\\fixture\\owner-only.txt' });
    expect(ev[2]!.kind === 'failed' && ev[2]!.error.code).toBe('access-denied');
    expect(ev[3]!.kind === 'failed' && ev[3]!.error.code).toBe('not-found');
    expect(ev[4]).toMatchObject({ kind: 'get', remote: '\\fixture\\[x] (1).txt', state: 'ok' });
    expect(ev[5]).toMatchObject({ kind: 'failed', remote: '\\fixture\\private\\secret.txt' });
  });
  it('reads failures in the middle of a transfer and split lines', () => {
    expect(
      classifyGetLine(
        'getting file \\a b.txt of size 9 as /t/1 parallel_read returned NT_STATUS_CONNECTION_DISCONNECTED',
      ),
    ).toMatchObject({
      kind: 'get',
      state: 'failed',
      error: { code: 'unavailable' },
    });
    expect(
      classifyGetLine(
        'getting file \\a.txt of size 9 as /t/1 Error NT_STATUS_INTERNAL_ERROR closing remote file',
      ),
    ).toMatchObject({ state: 'started' });
    expect(classifyGetLine('(12.5 KiloBytes/sec) (average 3.0 KiloBytes/sec)')).toEqual({ kind: 'rate' });
    expect(
      classifyGetLine('getting file \\x of size 3 as /t/2 (inf KiloBytes/sec) (average inf KiloBytes/sec)'),
    ).toMatchObject({ state: 'ok', remote: '\\x' });
    expect(classifyGetLine('something else entirely')).toBeNull();
  });
});

describe('connectFailure', () => {
  it('classifies recorded login, share and server failures', () => {
    expect(connectFailure(lines('fail-logon.stdout')[0])?.code).toBe('auth');
    expect(connectFailure(lines('fail-share.stdout')[0])?.code).toBe('not-found');
    expect(connectFailure(lines('fail-refused.stdout')[0])?.code).toBe('unavailable');
    expect(connectFailure('  a file.txt   N   2  Sun Nov 29 22:03:21 2026')).toBeNull();
  });
});
