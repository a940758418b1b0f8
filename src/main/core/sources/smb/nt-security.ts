/**
 * NT security descriptors as the SMB handler reads them (access-control entries with SIDs and
 * access masks), and their exact encoding into the engine's read descriptors: read on the file and
 * traverse on every folder above it, each as one ranked conjunct (see `canRead` in acl-eval.ts).
 */
import crypto from 'node:crypto';
import type { AccessEntry, SecurityDescriptor } from '../../model.js';

/** One access-control entry of a DACL, in DACL order. */
export interface NtAce {
  type: 'allow' | 'deny';
  /** The trustee's SID string, e.g. `S-1-5-21-…-1001`. */
  sid: string;
  /** The access mask as stored (generic bits unmapped). */
  mask: number;
  /** ACE flags (inheritance bits). */
  flags: number;
}

/**
 * A DACL as captured: the entries in order; `null` for a NULL DACL (no DACL: everyone has full
 * access); `'unreadable'` when the crawl account could not read the descriptor.
 */
export type NtDacl = NtAce[] | null | 'unreadable';

/** A captured security descriptor: its DACL and owner (for OWNER RIGHTS entries). */
export interface NtSecurity {
  dacl: NtDacl;
  owner?: string;
}

export const FILE_READ_DATA = 0x1;
export const FILE_TRAVERSE = 0x20;
export const GENERIC_ALL = 0x10000000;
export const GENERIC_EXECUTE = 0x20000000;
export const GENERIC_READ = 0x80000000;
export const ACE_INHERIT_ONLY = 0x08;

export const SID_EVERYONE = 'S-1-1-0';
const SID_CREATOR_OWNER = 'S-1-3-0';
const SID_CREATOR_GROUP = 'S-1-3-1';
const SID_OWNER_RIGHTS = 'S-1-3-4';

/** The mask bits that grant (or deny) each right, generic rights included. */
const RIGHT_BITS = {
  read: FILE_READ_DATA | GENERIC_READ | GENERIC_ALL,
  traverse: FILE_TRAVERSE | GENERIC_EXECUTE | GENERIC_ALL,
} as const;

export type NtRight = keyof typeof RIGHT_BITS;

/** An engine access entry with the conjunct (`check`) and precedence (`rank`) fields canRead reads. */
export interface RankedEntry extends AccessEntry {
  check?: number;
  rank?: number;
}

/** One conjunct: granted to everyone, to nobody, or by ranked entries. */
export type NtCheck = 'always' | 'never' | RankedEntry[];

/** The descriptor nobody may read (an everyone-deny). */
export const NOBODY: SecurityDescriptor = { entries: [{ type: 'deny', principal: 'everyone' }] };

/** The engine principal of a SID: Everyone is `everyone`, every other SID is itself. */
export function sidPrincipal(sid: string): string {
  return sid === SID_EVERYONE ? 'everyone' : sid.toUpperCase();
}

/**
 * The check for one right on one object, exactly as Windows decides it for a single access bit:
 * walking the DACL in order, the first entry that names one of the caller's SIDs and mentions the
 * bit decides. Encoded as ranked entries (consecutive entries of one type share a rank); entries
 * that can never decide are dropped so equal meanings give equal entries.
 *
 * Inherit-only entries and CREATOR OWNER/GROUP placeholders do not apply to the object itself;
 * OWNER RIGHTS applies to the owner's SID.
 */
export function ntCheck(sec: NtSecurity, right: NtRight): NtCheck {
  const { dacl } = sec;
  if (dacl === 'unreadable') return 'never';
  if (dacl === null) return 'always';
  const bits = RIGHT_BITS[right];
  const ranked: RankedEntry[] = [];
  let rank = -1;
  let lastType: 'allow' | 'deny' | null = null;
  for (const ace of dacl) {
    if (ace.flags & ACE_INHERIT_ONLY) continue;
    if ((ace.mask & bits) === 0) continue;
    let sid = ace.sid.toUpperCase();
    if (sid === SID_CREATOR_OWNER || sid === SID_CREATOR_GROUP) continue;
    if (sid === SID_OWNER_RIGHTS) {
      if (!sec.owner) continue;
      sid = sec.owner.toUpperCase();
    }
    if (ace.type !== lastType) {
      rank++;
      lastType = ace.type;
    }
    const principal = sidPrincipal(sid);
    ranked.push({ type: ace.type, principal, rank });
    if (principal === 'everyone') break; // nothing after an entry for everyone can decide
  }
  return minimize(ranked);
}

function minimize(entries: RankedEntry[]): NtCheck {
  const rankOf = (e: RankedEntry): number => e.rank ?? 0;
  // The first entry naming a principal decides for it; later ones for the same principal never do.
  const firstOnly: RankedEntry[] = [];
  const seen = new Set<string>();
  for (const e of entries) {
    if (seen.has(e.principal)) continue;
    seen.add(e.principal);
    firstOnly.push(e);
  }
  // A deny matters only when some later allow could otherwise grant.
  let kept = firstOnly.filter(
    (e) => e.type === 'allow' || firstOnly.some((a) => a.type === 'allow' && rankOf(a) > rankOf(e)),
  );
  // Beside Everyone's allow, other allows of the same rank add nothing.
  const everyone = kept.find((e) => e.type === 'allow' && e.principal === 'everyone');
  if (everyone)
    kept = kept.filter((e) => e === everyone || e.type !== 'allow' || rankOf(e) !== rankOf(everyone));
  if (!kept.some((e) => e.type === 'allow')) return 'never';
  const hasDeny = kept.some((e) => e.type === 'deny');
  // Everyone's allow comes last (nothing after it was kept): only an earlier deny can still refuse.
  if (!hasDeny && kept.some((e) => e.principal === 'everyone')) return 'always';
  if (!hasDeny) {
    return kept.map((e) => ({ type: e.type, principal: e.principal })).sort(byPrincipal);
  }
  // Renumber densely: runs of one type that became adjacent merge into one rank.
  const out: RankedEntry[] = [];
  let r = -1;
  let prevType: string | null = null;
  for (const e of kept) {
    if (e.type !== prevType) {
      r++;
      prevType = e.type;
    }
    out.push(
      r === 0 ? { type: e.type, principal: e.principal } : { type: e.type, principal: e.principal, rank: r },
    );
  }
  return out.sort((a, b) => rankOf(a) - rankOf(b) || byPrincipal(a, b));
}

function byPrincipal(a: AccessEntry, b: AccessEntry): number {
  return a.principal < b.principal ? -1 : a.principal > b.principal ? 1 : 0;
}

/**
 * Combine conjuncts into one descriptor: `null` when every conjunct is `always` (visible to all),
 * {@link NOBODY} when one is `never`, else the distinct conjuncts in a canonical order numbered by
 * `check`. Deterministic: equal permissions give byte-equal descriptors (stored once).
 */
export function combineChecks(checks: readonly NtCheck[]): SecurityDescriptor | null {
  const distinct = new Map<string, RankedEntry[]>();
  for (const c of checks) {
    if (c === 'always') continue;
    if (c === 'never') return NOBODY;
    distinct.set(JSON.stringify(c), c);
  }
  if (distinct.size === 0) return null;
  const entries: RankedEntry[] = [];
  [...distinct.keys()].sort().forEach((k, i) => {
    for (const e of distinct.get(k)!) entries.push(i === 0 ? e : { ...e, check: i });
  });
  return { entries };
}

/**
 * The read descriptor of a file: read on the file itself and traverse on each folder from the
 * share root down to its parent (`folders`, already reduced to checks).
 */
export function fileDescriptor(file: NtSecurity, folders: readonly NtCheck[]): SecurityDescriptor | null {
  return combineChecks([ntCheck(file, 'read'), ...folders]);
}

/** A short fingerprint of a descriptor (`none` for "visible to everyone"). */
export function securityKeyOf(desc: SecurityDescriptor | null): string {
  if (!desc) return 'none';
  return crypto.createHash('sha1').update(JSON.stringify(desc.entries)).digest('hex').slice(0, 24);
}
