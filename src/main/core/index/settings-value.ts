import type Database from 'better-sqlite3';

/** One text value in the index's `settings` table. */
export interface SettingsValue {
  load(): string | null;
  save(value: string): void;
}

/**
 * A named value kept in the index database's `settings` table (engine caches and preferences that
 * belong with the index they describe).
 */
export function settingsValue(db: Database.Database, key: string): SettingsValue {
  return {
    load: () =>
      (db.prepare('SELECT value FROM settings WHERE key = ?').get(key) as { value: string } | undefined)
        ?.value ?? null,
    save: (value) => {
      db.prepare(
        'INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value',
      ).run(key, value);
    },
  };
}
