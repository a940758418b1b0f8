/**
 * POSIX permission semantics as data: the access check of acl(5) as a reference function, and its
 * exact encoding into ranked allow/deny entries (see `canRead` in acl-eval.ts).
 */
import type { SecurityDescriptor } from '../model.js';
import type { RankedAccessEntry } from './acl-eval.js';

/** Permission bits as in a mode's class triplets. */
export const R = 4;
export const W = 2;
export const X = 1;

/** The extended part of a POSIX ACL (the base entries come from the mode). Bits are r=4 w=2 x=1. */
export interface PosixAcl {
  /** Named users: [uid, bits]. */
  users: [number, number][];
  /** The owning group's entry (`group::`). */
  groupObj: number;
  /** Named groups: [gid, bits]. */
  groups: [number, number][];
  /** The mask: upper bound for named users and the whole group class. */
  mask: number;
}

/** A file or folder as the access check sees it. */
export interface PosixObject {
  mode: number;
  uid: number;
  gid: number;
  acl?: PosixAcl | null;
}

/** Who asks: a uid and every gid the user holds. */
export interface PosixSubject {
  uid: number;
  gids: readonly number[];
}

/**
 * The ACL the kernel consults: Linux skips the ACL when the mode's group bits (which mirror the
 * mask) are all clear, and then decides by the mode bits alone — so a named user under an empty
 * mask gets the *other* bits, not nothing (fs/namei.c `acl_permission_check`).
 */
function effectiveAcl(obj: PosixObject): PosixAcl | null {
  return obj.acl && (obj.mode & 0o070) !== 0 ? obj.acl : null;
}

/**
 * The kernel's access check for one permission bit (acl(5) "ACCESS CHECK ALGORITHM" as Linux
 * implements it, see {@link effectiveAcl}): the owner gets the owner bits; else a named-user entry
 * (masked); else, when any group-class entry names one of the subject's groups, access iff one of
 * those (masked) has the bit; else the other bits. uid 0 is granted everything. The reference
 * model the encoder is tested against.
 */
export function posixAllows(obj: PosixObject, bit: number, who: PosixSubject): boolean {
  if (who.uid === 0) return true;
  if (who.uid === obj.uid) return ((obj.mode >> 6) & bit) !== 0;
  const acl = effectiveAcl(obj);
  if (acl) {
    const named = acl.users.find(([u]) => u === who.uid);
    if (named) return (named[1] & acl.mask & bit) !== 0;
  }
  const groupEntries: [number, number][] = acl
    ? [[obj.gid, acl.groupObj & acl.mask], ...acl.groups.map(([g, b]): [number, number] => [g, b & acl.mask])]
    : [[obj.gid, (obj.mode >> 3) & 7]];
  const matching = groupEntries.filter(([g]) => who.gids.includes(g));
  if (matching.length > 0) return matching.some(([, b]) => (b & bit) !== 0);
  return (obj.mode & bit) !== 0;
}

/** One conjunct: always true, never true (but for root), or ranked entries. */
export type PosixCheck = 'always' | 'never' | RankedAccessEntry[];

const RANK_OWNER = 0;
const RANK_NAMED_USER = 1;
const RANK_GROUP_ALLOW = 2;
const RANK_GROUP_DENY = 3;
const RANK_OTHER = 4;

/**
 * The ranked entries granting `bit` on `obj` exactly as {@link posixAllows} does: owner (rank 0),
 * named users (1), groups that grant (2), groups that do not (3), everyone (4). Entries that cannot
 * change the outcome are dropped, so equal permissions give equal entries.
 */
export function posixCheck(obj: PosixObject, bit: number): PosixCheck {
  const entries: RankedAccessEntry[] = [];
  const add = (granted: boolean, principal: string, rank: number): void => {
    entries.push({ type: granted ? 'allow' : 'deny', principal, rank });
  };
  add(((obj.mode >> 6) & bit) !== 0, `uid:${obj.uid}`, RANK_OWNER);
  const acl = effectiveAcl(obj);
  const groupGrants = new Map<number, boolean>();
  if (acl) {
    const users = [...acl.users].sort((a, b) => a[0] - b[0]);
    for (const [u, b] of users)
      if (u !== obj.uid) add((b & acl.mask & bit) !== 0, `uid:${u}`, RANK_NAMED_USER);
    for (const [g, b] of [[obj.gid, acl.groupObj] as [number, number], ...acl.groups]) {
      groupGrants.set(g, (groupGrants.get(g) ?? false) || (b & acl.mask & bit) !== 0);
    }
  } else {
    groupGrants.set(obj.gid, ((obj.mode >> 3) & bit) !== 0);
  }
  for (const [g, granted] of [...groupGrants].sort((a, b) => a[0] - b[0])) {
    add(granted, `gid:${g}`, granted ? RANK_GROUP_ALLOW : RANK_GROUP_DENY);
  }
  add((obj.mode & bit) !== 0, 'everyone', RANK_OTHER);
  return minimize(entries);
}

/** Drop entries that cannot decide anything; classify the all-allow and no-allow cases. */
function minimize(entries: RankedAccessEntry[]): PosixCheck {
  const rank = (e: RankedAccessEntry): number => e.rank ?? 0;
  // A deny matters only if some later (higher-rank) allow could otherwise grant.
  let kept = entries.filter(
    (e) => e.type === 'allow' || entries.some((a) => a.type === 'allow' && rank(a) > rank(e)),
  );
  // With everyone allowed last, an earlier allow matters only if a later deny could otherwise apply.
  const everyoneAllowed = kept.some((e) => e.type === 'allow' && e.principal === 'everyone');
  if (everyoneAllowed) {
    kept = kept.filter(
      (e) =>
        e.type === 'deny' ||
        e.principal === 'everyone' ||
        kept.some((d) => d.type === 'deny' && rank(d) > rank(e)),
    );
  }
  if (!kept.some((e) => e.type === 'allow')) return 'never';
  if (kept.length === 1 && kept[0].principal === 'everyone') return 'always';
  // Without denies, precedence is irrelevant: drop ranks so equal grants compare equal.
  if (!kept.some((e) => e.type === 'deny'))
    return kept.map((e) => ({ type: e.type, principal: e.principal }));
  return kept.map((e) => (rank(e) === 0 ? { type: e.type, principal: e.principal } : e));
}

/** The descriptor every principal but root is denied. */
export const NOBODY: SecurityDescriptor = { entries: [{ type: 'deny', principal: 'everyone' }] };

/**
 * Combine conjuncts into one descriptor: `null` when all are `always` (visible to everyone),
 * {@link NOBODY} when one is `never`, else the distinct conjuncts in a canonical order, numbered
 * by `check`. Deterministic, so equal permissions give byte-equal descriptors (stored once).
 */
export function combineChecks(checks: readonly PosixCheck[]): SecurityDescriptor | null {
  const distinct = new Map<string, RankedAccessEntry[]>();
  for (const c of checks) {
    if (c === 'always') continue;
    if (c === 'never') return NOBODY;
    distinct.set(JSON.stringify(c), c);
  }
  if (distinct.size === 0) return null;
  const ordered = [...distinct.keys()].sort().map((k) => distinct.get(k)!);
  const entries: RankedAccessEntry[] = [];
  ordered.forEach((c, i) => {
    for (const e of c) entries.push(i === 0 ? e : { ...e, check: i });
  });
  return { entries };
}

/**
 * The descriptor for reading a file: read on the file and search on every folder on its path
 * (`folders` from the root down, symlink targets' folders included).
 */
export function posixReadDescriptor(
  file: PosixObject,
  folders: readonly PosixObject[],
): SecurityDescriptor | null {
  return combineChecks([posixCheck(file, R), ...folders.map((f) => posixCheck(f, X))]);
}
