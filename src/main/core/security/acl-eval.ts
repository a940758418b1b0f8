import type { Db } from '../index/database.js';
import type { Principal, SecurityDescriptor } from '../model.js';

/**
 * Whether a holder of `principals` may read an item with `descriptor`: some allow entry names one
 * of the principals (or `everyone`) and no deny entry does — deny wins, as on Windows.
 * A missing descriptor means visible to everyone.
 */
export function canRead(descriptor: SecurityDescriptor | null | undefined, principals: ReadonlySet<Principal>): boolean {
  if (!descriptor) return true;
  let allowed = false;
  for (const e of descriptor.entries) {
    const applies = e.principal === 'everyone' || principals.has(e.principal);
    if (!applies) continue;
    if (e.type === 'deny') return false;
    allowed = true;
  }
  return allowed;
}

/**
 * The ids of stored descriptors (`acls` table) that `principals` may read. Queries are trimmed to
 * `acl_id IS NULL OR acl_id IN (…these…)` in SQL. Cost: one pass over the distinct descriptors,
 * which number in the dozens even for large indexes.
 */
export function visibleAclIds(db: Db, principals: readonly Principal[]): number[] {
  const set = new Set(principals);
  const out: number[] = [];
  for (const row of db.prepare('SELECT id, descriptor FROM acls').iterate() as IterableIterator<{ id: number; descriptor: string }>) {
    if (canRead(JSON.parse(row.descriptor) as SecurityDescriptor, set)) out.push(row.id);
  }
  return out;
}
