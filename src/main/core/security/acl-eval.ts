import type { Db } from '../index/database.js';
import type { AccessEntry, Principal, SecurityDescriptor } from '../model.js';

/**
 * An access entry with the two optional fields platform encoders use to express precedence and
 * conjunction (see {@link canRead}). Plain `AccessEntry` objects are ranked entries with both
 * fields absent (= 0), so every descriptor written before these fields existed keeps its meaning.
 */
export interface RankedAccessEntry extends AccessEntry {
  /** Which conjunct the entry belongs to; every conjunct must grant (default 0). */
  check?: number;
  /** Precedence inside its conjunct: the lowest applicable rank decides (default 0). */
  rank?: number;
}

/** The principal of POSIX root: reads every item (discretionary access checks do not apply). */
export const SUPERUSER: Principal = 'uid:0';

/**
 * Prefix of principals that only match *deny* entries (Windows "group used for deny only" in a
 * filtered token): `denyonly:S-1-5-32-544`.
 */
export const DENY_ONLY_PREFIX = 'denyonly:';

/**
 * Whether a holder of `principals` may read an item with `descriptor`.
 *
 * Entries are grouped into conjuncts by `check` (default 0); the item is readable when every
 * conjunct grants. Inside a conjunct, only the applicable entries of the lowest `rank` count, and
 * of those a deny wins over an allow: the conjunct grants when one of them allows and none denies.
 * With neither field present this is the plain rule "some allow applies and no deny does".
 * An entry applies when it names `everyone` or one of the principals (a deny also applies to a
 * `denyonly:` principal). A missing descriptor means visible to everyone; an empty one, to nobody.
 * {@link SUPERUSER} reads everything.
 */
export function canRead(
  descriptor: SecurityDescriptor | null | undefined,
  principals: ReadonlySet<Principal>,
): boolean {
  if (!descriptor) return true;
  if (principals.has(SUPERUSER)) return true;
  const entries = descriptor.entries as RankedAccessEntry[];
  if (entries.length === 0) return false;
  const checks = new Map<number, { rank: number; allow: boolean; deny: boolean }>();
  for (const e of entries) {
    const c = e.check ?? 0;
    let state = checks.get(c);
    if (!state) checks.set(c, (state = { rank: Infinity, allow: false, deny: false }));
    const applies =
      e.principal === 'everyone' ||
      principals.has(e.principal) ||
      (e.type === 'deny' && principals.has(DENY_ONLY_PREFIX + e.principal));
    if (!applies) continue;
    const r = e.rank ?? 0;
    if (r > state.rank) continue;
    if (r < state.rank) {
      state.rank = r;
      state.allow = false;
      state.deny = false;
    }
    if (e.type === 'deny') state.deny = true;
    else state.allow = true;
  }
  for (const s of checks.values()) if (!s.allow || s.deny) return false;
  return true;
}

/**
 * The ids of stored descriptors (`acls` table) that `principals` may read. Queries are trimmed to
 * `acl_id IS NULL OR acl_id IN (…these…)` in SQL. Cost: one pass over the distinct descriptors,
 * which number in the dozens even for large indexes.
 */
export function visibleAclIds(db: Db, principals: readonly Principal[]): number[] {
  const set = new Set(principals);
  const out: number[] = [];
  for (const row of db.prepare('SELECT id, descriptor FROM acls').raw().iterate() as IterableIterator<
    [number, string]
  >) {
    let desc = parsed.get(row[1]);
    if (!desc) {
      if (parsed.size > 10_000) parsed.clear();
      parsed.set(row[1], (desc = JSON.parse(row[1]) as SecurityDescriptor));
    }
    if (canRead(desc, set)) out.push(row[0]);
  }
  return out;
}

/** Stored descriptors are immutable: each distinct text is parsed once per process. */
const parsed = new Map<string, SecurityDescriptor>();
