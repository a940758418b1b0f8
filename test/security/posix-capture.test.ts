import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { canRead } from '../../src/main/core/security/acl-eval.js';
import { openDatabase } from '../../src/main/core/index/database.js';
import { settingsValue } from '../../src/main/core/index/settings-value.js';
import { PosixFileCapture } from '../../src/main/core/security/posix-security.js';

const root = process.getuid?.() === 0;
if (!root && process.env.CI === 'true') throw new Error('CI: the capture tests chown files and need root');

/** Wait past the folder-state TTL (2 ms): keys computed later must see folder changes. */
const pastTtl = () => new Promise((r) => setTimeout(r, 10));

describe.skipIf(!root)('PosixFileCapture on real files', () => {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-cap-'));
  fs.chmodSync(base, 0o755);
  afterAll(() => fs.rmSync(base, { recursive: true, force: true }));
  const dir = path.join(base, 'folder');
  const sub = path.join(dir, 'sub');
  const file = path.join(sub, 'a.txt');
  fs.mkdirSync(sub, { recursive: true, mode: 0o755 });
  fs.chmodSync(dir, 0o755);
  fs.chmodSync(sub, 0o755);
  fs.writeFileSync(file, 'x', { mode: 0o644 });
  fs.chmodSync(file, 0o644);
  const cap = new PosixFileCapture();
  const keyNow = () => cap.key(file, fs.statSync(file));

  it('keys change with the file, with any folder above it, and with folder ACLs — not with new files', async () => {
    const k0 = keyNow();
    expect(keyNow()).toBe(k0);
    await pastTtl();
    fs.writeFileSync(path.join(dir, 'new.txt'), 'y'); // moves dir's ctime and mtime only
    fs.mkdirSync(path.join(sub, 'newdir'));
    await pastTtl();
    expect(keyNow()).toBe(k0);

    fs.chmodSync(dir, 0o750);
    await pastTtl();
    const k1 = keyNow();
    expect(k1).not.toBe(k0);

    execFileSync('setfacl', ['-m', 'u:65534:x', dir]); // mask already rx: the mode does not change
    expect(fs.statSync(dir).mode & 0o777).toBe(0o750);
    await pastTtl();
    const k2 = keyNow();
    expect(k2).not.toBe(k1);

    fs.chmodSync(file, 0o640);
    expect(keyNow()).not.toBe(k2);
  });

  it('captures the folder ACL that only lets one user through, and forgets it after invalidate()', async () => {
    fs.chmodSync(file, 0o644);
    fs.chmodSync(dir, 0o750);
    execFileSync('setfacl', ['-b', dir]);
    execFileSync('setfacl', ['-m', 'u:65534:x', dir]);
    await pastTtl();
    const desc = await cap.capture(file, fs.statSync(file));
    expect(canRead(desc, new Set(['everyone', 'uid:65534', 'gid:65534']))).toBe(true);
    expect(canRead(desc, new Set(['everyone', 'uid:4242', 'gid:4242']))).toBe(false);
    expect(canRead(desc, new Set(['everyone', 'uid:4242', 'gid:0']))).toBe(true);

    execFileSync('setfacl', ['-x', 'u:65534', dir]);
    cap.invalidate();
    const after = await cap.capture(file, fs.statSync(file));
    expect(canRead(after, new Set(['everyone', 'uid:65534', 'gid:65534']))).toBe(false);
  });

  it('costs a handful of getfacl processes for a whole tree, not one per file or folder', async () => {
    const tree = path.join(base, 'big');
    for (let d = 0; d < 30; d++) {
      const p = path.join(tree, `a${d % 3}`, `d${d}`);
      fs.mkdirSync(p, { recursive: true });
      for (let i = 0; i < 20; i++) fs.writeFileSync(path.join(p, `f${i}.txt`), 'z');
    }
    // Just-created folders: no timestamp slack needed to trust a listing taken after them.
    const fresh = new PosixFileCapture({ getfacl: { slackMs: 0 } });
    for (let d = 0; d < 30; d++) {
      for (let i = 0; i < 20; i++) {
        const f = path.join(tree, `a${d % 3}`, `d${d}`, `f${i}.txt`);
        fresh.key(f, fs.statSync(f));
      }
    }
    expect(fresh.acls!.processes).toBeLessThanOrEqual(4);
  });

  it('remembers folder ACLs in the index between processes, and a folder ACL change still changes keys', async () => {
    const tree = path.join(base, 'mem');
    const files: string[] = [];
    for (let d = 0; d < 6; d++) {
      const p = path.join(tree, `d${d}`);
      fs.mkdirSync(p, { recursive: true, mode: 0o755 });
      for (let i = 0; i < 5; i++) {
        const f = path.join(p, `f${i}.txt`);
        fs.writeFileSync(f, 'z');
        files.push(f);
      }
    }
    const guarded = path.join(tree, 'd3');
    fs.chmodSync(guarded, 0o750);
    execFileSync('setfacl', ['-m', 'u:65534:x', guarded]);
    const nobody = new Set(['everyone', 'uid:65534', 'gid:65534']);
    const guardedFile = path.join(guarded, 'f0.txt');
    await new Promise((r) => setTimeout(r, 120)); // past the getfacl slack: answers are trusted
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-capmem-'));
    const db = openDatabase(dataDir);
    try {
      const memory = settingsValue(db, 'security.posix-folder-acls');
      const keysOf = (cap: PosixFileCapture) => files.map((f) => cap.key(f, fs.statSync(f)));
      const first = new PosixFileCapture({ memory });
      const k1 = keysOf(first);
      expect(first.acls!.processes).toBeGreaterThan(0);
      first.settle();
      expect(memory.load()).toContain(guarded);

      // A new process (a new capture over the same index): same keys, no listing of the tree (at
      // most one getfacl, for folders above it that changed since: /tmp is shared).
      const second = new PosixFileCapture({ memory });
      expect(keysOf(second)).toEqual(k1);
      expect(first.acls!.recursiveListings).toBeGreaterThan(0);
      expect(second.acls!.recursiveListings).toBe(0);
      expect(second.acls!.processes).toBeLessThanOrEqual(1);
      expect(canRead(await second.capture(guardedFile, fs.statSync(guardedFile)), nobody)).toBe(true);

      // setfacl moves the folder's ctime: the remembered ACL no longer applies.
      execFileSync('setfacl', ['-x', 'u:65534', guarded]);
      await pastTtl();
      const third = new PosixFileCapture({ memory });
      const k3 = keysOf(third);
      expect(third.acls!.processes).toBeGreaterThan(0);
      files.forEach((f, i) => {
        if (f.startsWith(`${guarded}/`)) expect(k3[i]).not.toBe(k1[i]);
        else expect(k3[i]).toBe(k1[i]);
      });
      expect(canRead(await third.capture(guardedFile, fs.statSync(guardedFile)), nobody)).toBe(false);
    } finally {
      db.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
