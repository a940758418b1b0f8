import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canRead } from '../../security/acl-eval.js';
import {
  ACE_INHERIT_ONLY,
  combineChecks,
  FILE_READ_DATA,
  FILE_TRAVERSE,
  fileDescriptor,
  GENERIC_ALL,
  GENERIC_EXECUTE,
  GENERIC_READ,
  NOBODY,
  ntCheck,
  securityKeyOf,
  sidPrincipal,
  type NtAce,
  type NtRight,
  type NtSecurity,
} from './nt-security.js';

const ALICE = 'S-1-5-21-1-2-3-1000';
const BOB = 'S-1-5-21-1-2-3-1001';
const SALES = 'S-1-22-2-1004';
const EVERYONE = 'S-1-1-0';
const allow = (sid: string, mask = 0x120089, flags = 0): NtAce => ({ type: 'allow', sid, mask, flags });
const deny = (sid: string, mask = 0x120089, flags = 0): NtAce => ({ type: 'deny', sid, mask, flags });

/**
 * Windows' access check for one bit, as the reference: walk the DACL in order; the first entry
 * that applies to one of the caller's SIDs and mentions the bit decides. No entry: denied.
 */
function reference(sec: NtSecurity, right: NtRight, sids: ReadonlySet<string>): boolean {
  if (sec.dacl === 'unreadable') return false;
  if (sec.dacl === null) return true;
  const bits =
    right === 'read'
      ? FILE_READ_DATA | GENERIC_READ | GENERIC_ALL
      : FILE_TRAVERSE | GENERIC_EXECUTE | GENERIC_ALL;
  for (const ace of sec.dacl) {
    if (ace.flags & ACE_INHERIT_ONLY || (ace.mask & bits) === 0) continue;
    let sid = ace.sid;
    if (sid === 'S-1-3-0' || sid === 'S-1-3-1') continue;
    if (sid === 'S-1-3-4') sid = sec.owner ?? '';
    if (sid !== EVERYONE && !sids.has(sid)) continue;
    return ace.type === 'allow';
  }
  return false;
}

/** The engine principals of a caller holding `sids`. */
const principalsOf = (sids: ReadonlySet<string>): Set<string> =>
  new Set(['everyone', ...[...sids].map(sidPrincipal)]);

describe('ntCheck', () => {
  it('keeps the read entries of a recorded POSIX-mapped DACL (owner, POSIX ACL user, no-access group)', () => {
    const c = ntCheck(
      { dacl: [allow(ALICE, 0x1f019f), allow('S-1-22-2-1001', 0), allow(BOB, 0x120089), allow(EVERYONE, 0)] },
      'read',
    );
    expect(c).toEqual([
      { type: 'allow', principal: ALICE },
      { type: 'allow', principal: BOB },
    ]);
  });
  it('puts a deny before the allows it overrides', () => {
    const c = ntCheck(
      { dacl: [deny(BOB), allow('S-1-22-1-0', 0x1f019f), allow('S-1-22-2-0'), allow(EVERYONE)] },
      'read',
    );
    expect(c).toEqual([
      { type: 'deny', principal: BOB },
      { type: 'allow', principal: 'everyone', rank: 1 },
    ]);
  });
  it('is always for Everyone without a deny, never without an allow, and follows NULL/unreadable DACLs', () => {
    expect(ntCheck({ dacl: [allow(ALICE), allow(EVERYONE)] }, 'read')).toBe('always');
    expect(ntCheck({ dacl: [allow(ALICE, 0x20000)] }, 'read')).toBe('never');
    expect(ntCheck({ dacl: [] }, 'read')).toBe('never');
    expect(ntCheck({ dacl: null }, 'read')).toBe('always');
    expect(ntCheck({ dacl: 'unreadable' }, 'read')).toBe('never');
  });
  it('ignores inherit-only entries and CREATOR placeholders, maps OWNER RIGHTS to the owner', () => {
    expect(
      ntCheck(
        {
          dacl: [
            allow(EVERYONE, GENERIC_ALL, ACE_INHERIT_ONLY | 3),
            allow('S-1-3-0', GENERIC_ALL),
            allow(ALICE),
          ],
        },
        'read',
      ),
    ).toEqual([{ type: 'allow', principal: ALICE }]);
    expect(ntCheck({ dacl: [deny('S-1-3-4'), allow(EVERYONE)], owner: BOB }, 'read')).toEqual([
      { type: 'deny', principal: BOB },
      { type: 'allow', principal: 'everyone', rank: 1 },
    ]);
  });
  it('reads generic and traverse bits', () => {
    expect(ntCheck({ dacl: [allow(ALICE, GENERIC_READ)] }, 'read')).toEqual([
      { type: 'allow', principal: ALICE },
    ]);
    expect(ntCheck({ dacl: [allow(ALICE, 0x1200a9)] }, 'traverse')).toEqual([
      { type: 'allow', principal: ALICE },
    ]);
    expect(ntCheck({ dacl: [allow(ALICE, 0x120089)] }, 'traverse')).toBe('never');
    expect(ntCheck({ dacl: [allow(ALICE, GENERIC_EXECUTE)] }, 'traverse')).toEqual([
      { type: 'allow', principal: ALICE },
    ]);
  });
});

describe('fileDescriptor', () => {
  it('requires traverse on the folders above: a world-readable file in a private folder', () => {
    const d = fileDescriptor({ dacl: [allow(EVERYONE)] }, [
      ntCheck({ dacl: [allow(ALICE, 0x1f01ff)] }, 'traverse'),
    ]);
    expect(d).toEqual({ entries: [{ type: 'allow', principal: ALICE }] });
    expect(canRead(d, principalsOf(new Set([ALICE])))).toBe(true);
    expect(canRead(d, principalsOf(new Set([BOB])))).toBe(false);
  });
  it('is null when everyone may read, NOBODY when nobody may', () => {
    expect(fileDescriptor({ dacl: [allow(EVERYONE)] }, [])).toBeNull();
    expect(fileDescriptor({ dacl: 'unreadable' }, [])).toEqual(NOBODY);
  });
  it('gives equal descriptors (and keys) for equal meanings', () => {
    const a = fileDescriptor({ dacl: [allow(BOB), allow(ALICE)] }, []);
    const b = fileDescriptor({ dacl: [allow(ALICE), allow(BOB, 0x1f01ff), allow(ALICE)] }, []);
    expect(a).toEqual(b);
    expect(securityKeyOf(a)).toBe(securityKeyOf(b));
    expect(securityKeyOf(a)).not.toBe(securityKeyOf(fileDescriptor({ dacl: [allow(ALICE)] }, [])));
    expect(combineChecks(['always', 'always'])).toBeNull();
  });

  const SIDS = [ALICE, BOB, SALES, 'S-1-22-1-1002', 'S-1-5-11', EVERYONE, 'S-1-3-0', 'S-1-3-4'];
  const ace = fc.record({
    type: fc.constantFrom<'allow' | 'deny'>('allow', 'deny'),
    sid: fc.constantFrom(...SIDS),
    mask: fc.constantFrom(
      0,
      0x1,
      0x20,
      0x21,
      0x120089,
      0x1200a9,
      0x1f01ff,
      GENERIC_READ,
      GENERIC_EXECUTE,
      GENERIC_ALL,
      0x20000,
    ),
    flags: fc.constantFrom(0, 0x3, ACE_INHERIT_ONLY | 0x3, 0x10),
  });
  const sec = fc.record({
    dacl: fc.oneof(
      { weight: 8, arbitrary: fc.array(ace, { maxLength: 7 }) },
      fc.constant(null),
      fc.constant<'unreadable'>('unreadable'),
    ),
    owner: fc.constantFrom(ALICE, BOB, undefined),
  });

  it('grants exactly what the Windows access check grants (file read and traverse of every folder above)', () => {
    fc.assert(
      fc.property(
        sec,
        fc.array(sec, { maxLength: 3 }),
        fc.subarray([ALICE, BOB, SALES, 'S-1-22-1-1002', 'S-1-5-11']),
        (file, folders, held) => {
          const sids = new Set(held);
          const desc = fileDescriptor(
            file,
            folders.map((f) => ntCheck(f, 'traverse')),
          );
          const expected =
            reference(file, 'read', sids) && folders.every((f) => reference(f, 'traverse', sids));
          expect(canRead(desc, principalsOf(sids))).toBe(expected);
        },
      ),
      { numRuns: 3000 },
    );
  });
});
