/**
 * The Windows back-end's parsers on binary security descriptors produced by Samba's own NDR
 * encoder from the SDDL in test/smb/fixtures/windows-sd.json (the same self-relative form
 * `GetSecurityDescriptorBinaryForm()` returns), and its file-system side on a local folder.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ntCheck } from './nt-security.js';
import { createWindowsBackend, parseAclAnswer, parseSecurityDescriptor } from './windows-backend.js';

const FIX = path.resolve(__dirname, '../../../../../test/smb/fixtures');
const sds = JSON.parse(fs.readFileSync(path.join(FIX, 'windows-sd.json'), 'utf8')) as Record<
  string,
  { sddl: string; base64: string }
>;
const sd = (k: string) => parseSecurityDescriptor(Buffer.from(sds[k].base64, 'base64'));
const DOM = 'S-1-5-21-1111-2222-3333';

describe('parseSecurityDescriptor', () => {
  it('reads an inherited NTFS DACL with well-known SIDs', () => {
    const s = sd('ntfs-inherited');
    expect(s.owner).toBe('S-1-5-32-544');
    expect(Array.isArray(s.dacl) && s.dacl.map((a) => [a.type, a.sid, a.flags])).toEqual([
      ['allow', 'S-1-5-18', 0x13],
      ['allow', 'S-1-5-32-544', 0x13],
      ['allow', 'S-1-5-32-545', 0x13],
      ['allow', 'S-1-5-11', 0x10],
    ]);
    expect(Array.isArray(s.dacl) && s.dacl[2].mask).toBe(0x1200a9);
  });
  it('reads a protected DACL with a deny first', () => {
    const s = sd('protected-deny');
    expect(s.owner).toBe(`${DOM}-1104`);
    expect(ntCheck(s, 'read')).toEqual([
      { type: 'deny', principal: `${DOM}-1105` },
      { type: 'allow', principal: `${DOM}-1104`, rank: 1 },
      { type: 'allow', principal: `${DOM}-513`, rank: 1 },
    ]);
  });
  it('tells a NULL DACL (everyone) from an empty one (nobody)', () => {
    expect(sd('null-dacl').dacl).toBeNull();
    expect(ntCheck(sd('null-dacl'), 'read')).toBe('always');
    expect(sd('empty-dacl').dacl).toEqual([]);
    expect(ntCheck(sd('empty-dacl'), 'read')).toBe('never');
  });
  it('skips inherit-only CREATOR OWNER entries and maps generic read', () => {
    expect(ntCheck(sd('creator-owner-inherit-only'), 'read')).toBe('always');
    expect(ntCheck(sd('folder-traverse-only'), 'traverse')).toEqual([
      { type: 'allow', principal: `${DOM}-1300` },
      { type: 'allow', principal: 'S-1-5-32-544' },
    ]);
    expect(ntCheck(sd('folder-traverse-only'), 'read')).toEqual([
      { type: 'allow', principal: 'S-1-5-32-544' },
    ]);
  });
  it('refuses malformed input', () => {
    expect(() => parseSecurityDescriptor(Buffer.from([1, 0, 4, 0]))).toThrow(RangeError);
    const b = Buffer.from(sds['protected-deny'].base64, 'base64');
    expect(() => parseSecurityDescriptor(b.subarray(0, b.length - 6))).toThrow(RangeError);
  });
});

describe('parseAclAnswer', () => {
  const b64 = sds['protected-deny'].base64;
  it('pairs answers with the requested paths', () => {
    const a = parseAclAnswer(
      [
        `OK\t\\\\s\\sh\\a.txt\t${b64}`,
        'ERR\t\\\\s\\sh\\b.txt\tAttempted to perform an unauthorized operation.',
      ],
      ['\\\\s\\sh\\a.txt', '\\\\s\\sh\\b.txt'],
    );
    expect(a[0].ok && Array.isArray(a[0].security.dacl)).toBe(true);
    expect(a[1]).toEqual({ ok: false, message: 'Attempted to perform an unauthorized operation.' });
  });
  it('refuses answers out of step or malformed', () => {
    expect(() => parseAclAnswer([`OK\t\\\\s\\sh\\b.txt\t${b64}`], ['\\\\s\\sh\\a.txt'])).toThrow(
      /out of step/,
    );
    expect(() => parseAclAnswer([], ['x'])).toThrow(/answered 0 of 1/);
    expect(() => parseAclAnswer(['WHAT\tx\ty'], ['x'])).toThrow(/unexpected/);
    expect(parseAclAnswer(['OK\tx\tAAAA'], ['x'])[0].ok).toBe(false);
  });
});

describe('the Windows back-end file system side (on a local folder)', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-winbe-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  it('lists, stats and reads below its root', async () => {
    fs.mkdirSync(path.join(dir, 'sub dir'));
    fs.writeFileSync(path.join(dir, 'sub dir', 'Ünï.txt'), 'hello windows');
    fs.writeFileSync(path.join(dir, 'big.bin'), Buffer.alloc(5000, 1));
    const be = createWindowsBackend(
      {
        location: { host: 'srv', port: null, share: 'share', path: [] },
        credential: null,
        captureAcls: false,
        signal: new AbortController().signal,
      },
      { root: dir, pathModule: path },
    );
    const root = await be.list([]);
    expect(root.map((e) => [e.name, e.isDir])).toEqual([
      ['big.bin', false],
      ['sub dir', true],
    ]);
    expect((await be.list(['sub dir']))[0]).toMatchObject({ name: 'Ünï.txt', size: 13 });
    const [st, missing] = await be.stat([['sub dir', 'Ünï.txt'], ['nope']]);
    expect(st.ok && st.entries[0].name).toBe('Ünï.txt');
    expect(missing.ok ? null : missing.error.code).toBe('not-found');
    expect((await be.read(['sub dir', 'Ünï.txt'], 13, 100)).bytes.toString()).toBe('hello windows');
    expect(await be.read(['big.bin'], 5000, 100)).toEqual({ bytes: Buffer.alloc(0), truncated: true });
    // A head read (a photo's metadata): the first bytes of the larger file.
    expect(await be.read(['big.bin'], 5000, 100, true)).toEqual({
      bytes: Buffer.alloc(100, 1),
      truncated: true,
    });
    await expect(be.list(['nope'])).rejects.toMatchObject({ code: 'not-found' });
    await be.close();
  });
});
