import type Database from 'better-sqlite3';
import type { Db } from '../index/database.js';

const statements = new WeakMap<Db, Database.Statement>();

/**
 * A value that changes whenever the index may have changed: SQLite's `data_version` (commits by
 * other connections), `total_changes()` (writes by this one) and the caller's generation number.
 * Cheap (reads no table); used to invalidate cached results and suggestions.
 */
export function dataStamp(db: Db, generation?: number): string {
  let st = statements.get(db);
  if (!st) {
    st = db.prepare('SELECT total_changes() AS c, (SELECT data_version FROM pragma_data_version) AS v');
    statements.set(db, st);
  }
  const row = st.get() as { c: number; v: number };
  return `${generation ?? ''}|${row.v}|${row.c}`;
}
