import fc from 'fast-check';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/main/core/index/database.js';
import { IndexWriter } from '../../src/main/core/index/index-writer.js';
import type { SecurityDescriptor } from '../../src/main/core/model.js';
import { canRead } from '../../src/main/core/security/acl-eval.js';
import {
  NOBODY,
  posixAllows,
  posixCheck,
  posixReadDescriptor,
  R,
  X,
  type PosixAcl,
  type PosixObject,
  type PosixSubject,
} from '../../src/main/core/security/posix-permissions.js';

// A small id space so that owners, named entries and memberships collide often.
const uid = fc.constantFrom(0, 1, 2, 3, 4);
const gid = fc.constantFrom(10, 11, 12, 13);
const bits = fc.integer({ min: 0, max: 7 });

const acl: fc.Arbitrary<PosixAcl> = fc.record({
  users: fc.uniqueArray(fc.tuple(fc.constantFrom(1, 2, 3, 4), bits), { selector: (t) => t[0], maxLength: 3 }),
  groupObj: bits,
  groups: fc.uniqueArray(fc.tuple(gid, bits), { selector: (t) => t[0], maxLength: 3 }),
  mask: bits,
});

const obj: fc.Arbitrary<PosixObject> = fc.record({
  mode: fc.integer({ min: 0, max: 0o777 }),
  uid,
  gid,
  acl: fc.option(acl, { nil: null, freq: 2 }),
});

const subject: fc.Arbitrary<PosixSubject> = fc.record({
  uid: fc.constantFrom(1, 2, 3, 4, 5),
  gids: fc.uniqueArray(gid, { maxLength: 3 }),
});

function principalsOf(s: PosixSubject): Set<string> {
  return new Set(['everyone', `uid:${s.uid}`, ...s.gids.map((g) => `gid:${g}`)]);
}

function expected(file: PosixObject, folders: PosixObject[], s: PosixSubject): boolean {
  return posixAllows(file, R, s) && folders.every((f) => posixAllows(f, X, s));
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-perm-'));
const db = openDatabase(dir);
const writer = new IndexWriter(db);
afterAll(() => {
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** The descriptor as the index stores it: through the writer's canonicalisation and back. */
function stored(desc: SecurityDescriptor | null): SecurityDescriptor | null {
  const id = writer.aclId(desc);
  if (id == null) return null;
  const row = db.prepare('SELECT descriptor FROM acls WHERE id = ?').get(id) as { descriptor: string };
  return JSON.parse(row.descriptor) as SecurityDescriptor;
}

describe('POSIX permissions as ranked allow/deny entries', () => {
  it('one object: the encoding decides exactly like the acl(5) access check, for every bit', () => {
    fc.assert(
      fc.property(obj, subject, fc.constantFrom(R, 2, X), (o, s, bit) => {
        const check = posixCheck(o, bit);
        const desc = check === 'always' ? null : check === 'never' ? NOBODY : { entries: check };
        expect(canRead(desc, principalsOf(s))).toBe(posixAllows(o, bit, s));
      }),
      { numRuns: 5000 },
    );
  });

  it('a file below folders: read on the file and search on every folder, after storage in the index', () => {
    fc.assert(
      fc.property(
        obj,
        fc.array(obj, { maxLength: 4 }),
        fc.array(subject, { minLength: 1, maxLength: 4 }),
        (file, folders, subjects) => {
          const desc = stored(posixReadDescriptor(file, folders));
          for (const s of subjects) expect(canRead(desc, principalsOf(s))).toBe(expected(file, folders, s));
        },
      ),
      { numRuns: 3000 },
    );
    writer.flush();
  });

  it('root reads everything, including items nobody else may read', () => {
    const desc = posixReadDescriptor({ mode: 0, uid: 5, gid: 5 }, [{ mode: 0o700, uid: 5, gid: 5 }]);
    expect(desc).toEqual(NOBODY);
    expect(canRead(desc, new Set(['everyone', 'uid:0', 'gid:0']))).toBe(true);
    expect(canRead(desc, new Set(['everyone', 'uid:5', 'gid:5']))).toBe(false);
  });

  it('the classic cases: other-but-not-owner, group-class deny, world-readable file in a private folder', () => {
    const alice = new Set(['everyone', 'uid:1', 'gid:10']);
    const carol = new Set(['everyone', 'uid:3', 'gid:10']);
    const bob = new Set(['everyone', 'uid:2', 'gid:11']);
    // 0044: everyone but the owner.
    const d1 = posixReadDescriptor({ mode: 0o044, uid: 1, gid: 10 }, []);
    expect([canRead(d1, alice), canRead(d1, carol), canRead(d1, bob)]).toEqual([false, true, true]);
    // 0404 owned by alice, group 10 (alice and carol): alice (owner bits) yes, carol (group bits) no, bob (other) yes.
    const d2 = posixReadDescriptor({ mode: 0o404, uid: 1, gid: 10 }, []);
    expect([canRead(d2, alice), canRead(d2, carol), canRead(d2, bob)]).toEqual([true, false, true]);
    // 0644 inside alice's 0700 folder: only alice.
    const d3 = posixReadDescriptor({ mode: 0o644, uid: 1, gid: 10 }, [{ mode: 0o700, uid: 1, gid: 10 }]);
    expect([canRead(d3, alice), canRead(d3, carol), canRead(d3, bob)]).toEqual([true, false, false]);
    // A world-readable file in world-searchable folders carries no descriptor at all.
    expect(
      posixReadDescriptor({ mode: 0o644, uid: 1, gid: 10 }, [
        { mode: 0o755, uid: 0, gid: 0 },
        { mode: 0o711, uid: 1, gid: 10 },
      ]),
    ).toBeNull();
  });

  it('equal permissions give equal descriptors, so thousands of files share a handful of ACLs', () => {
    const a = posixReadDescriptor({ mode: 0o640, uid: 1, gid: 10 }, [
      { mode: 0o755, uid: 0, gid: 0 },
      { mode: 0o750, uid: 1, gid: 10 },
    ]);
    const b = posixReadDescriptor({ mode: 0o640, uid: 1, gid: 10 }, [
      { mode: 0o755, uid: 0, gid: 0 },
      { mode: 0o750, uid: 1, gid: 10 },
    ]);
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
    expect(writer.aclId(a)).toBe(writer.aclId(b));
  });
});
