import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AclStore, parseGetfacl } from '../../src/main/core/security/getfacl.js';

function hasSetfacl(): boolean {
  try {
    execFileSync('setfacl', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
const available = hasSetfacl();
if (!available && process.env.CI === 'true')
  throw new Error('CI: setfacl/getfacl (package acl) must be installed');

describe('parseGetfacl (recorded output of getfacl --skip-base --absolute-names --numeric --no-effective)', () => {
  const parsed = parseGetfacl(
    fs.readFileSync(path.join(import.meta.dirname, 'fixtures/getfacl-skip-base.txt'), 'utf8'),
  );

  it('reads named users, named groups, the owning group entry and the mask', () => {
    expect(parsed.get('/tmp/facltest/a')).toEqual({
      users: [[1002, 4]],
      groupObj: 4,
      groups: [[1004, 6]],
      mask: 6,
    });
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

describe.skipIf(!available)('AclStore on real files', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-facl-'));
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));
  const old = Date.now() - 10_000;

  it('one recursive listing answers for a whole subtree, until an item changes', () => {
    for (let d = 0; d < 5; d++) {
      fs.mkdirSync(path.join(root, `d${d}`));
      for (let i = 0; i < 20; i++) fs.writeFileSync(path.join(root, `d${d}`, `f${i}.txt`), 'x');
    }
    execFileSync('setfacl', ['-m', 'u:65534:r', path.join(root, 'd3/f7.txt')]);
    execFileSync('setfacl', ['-m', 'g:65534:x', path.join(root, 'd2')]);
    const store = new AclStore();
    store.snapshotSync(root);
    expect(store.processes).toBe(1);
    // ctime cannot be set back: items that changed long ago are asked with an old ctime.
    expect(store.lookup(path.join(root, 'd3/f7.txt'), old)?.users).toEqual([[65534, 4]]);
    expect(store.lookup(path.join(root, 'd2'), old)?.groups).toEqual([[65534, 1]]);
    expect(store.lookup(path.join(root, 'd1/f1.txt'), old)).toBeNull();
    // Outside the subtree, or changed after the listing: unknown.
    expect(store.lookup(os.tmpdir(), old)).toBeUndefined();
    expect(store.lookup(path.join(root, 'd1/f1.txt'), Date.now() + 1000)).toBeUndefined();
    // A recent answer about a busy folder itself may do; an old listing of the folder above may not.
    expect(store.lookup(root, Date.now() + 1000, 60_000)).toBeNull();
    expect(store.lookup(path.join(root, 'd1/f1.txt'), Date.now() + 1000, 60_000)).toBeUndefined();
  });

  it('answers a file that changed with one process for its whole folder, then from memory', async () => {
    const store = new AclStore();
    const files = Array.from({ length: 20 }, (_, i) => path.join(root, 'd3', `f${i}.txt`));
    const answers = await Promise.all(files.map((f) => store.get(f, old, { folder: true })));
    expect(store.processes).toBe(1);
    expect(answers.filter(Boolean)).toHaveLength(1);
    expect(answers[7]?.users).toEqual([[65534, 4]]);

    execFileSync('setfacl', ['-m', 'u:65534:-', files[7]]);
    const st = fs.statSync(files[7]);
    expect((await store.get(files[7], st.ctimeMs, { folder: true }))?.users).toEqual([[65534, 0]]);
    expect(store.processes).toBe(2);
    await store.get(files[8], old, { folder: true });
    expect(store.processes).toBe(2);
  });

  it('answers null (never throws) when getfacl is missing, and says so once', async () => {
    const reasons: string[] = [];
    const store = new AclStore({ command: 'trawl-no-such-getfacl', onUnavailable: (r) => reasons.push(r) });
    expect(await store.get(path.join(root, 'd1/f1.txt'), 0)).toBeNull();
    store.snapshotSync(root);
    expect(store.lookup(path.join(root, 'd3/f7.txt'), old)).toBeNull();
    expect(reasons).toHaveLength(1);
  });
});
