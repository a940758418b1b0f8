import type { Db } from '../index/database.js';
import { settingsValue, type SettingsValue } from '../index/settings-value.js';

/** Settings of the background runner, persisted in the index database's `settings` table. */
export interface LiveSettingValues {
  /** Global pause: no watching, no scheduled crawls (per-source pause lives in `sources.paused`). */
  paused: boolean;
  /** Most file-system watches the runner may use before a source falls back to polling. */
  watchBudget: number;
  /** Minutes between incremental crawls of a source that cannot be watched. */
  pollMinutes: number;
  /** Share of wall time crawl item processing may use, 0.05–1 (1 = no limit). */
  cpuBudget: number;
  /** Crawls hold item processing for this long after the user's last search request (ms). */
  quietMs: number;
}

/** What a setting is when nobody has set it. */
export const LIVE_DEFAULTS: Readonly<LiveSettingValues> = {
  paused: false,
  watchBudget: 100_000,
  pollMinutes: 15,
  cpuBudget: 1,
  quietMs: 400,
};

const PREFIX = 'live.';

function valid<K extends keyof LiveSettingValues>(key: K, value: unknown): value is LiveSettingValues[K] {
  switch (key) {
    case 'paused':
      return typeof value === 'boolean';
    case 'cpuBudget':
      return typeof value === 'number' && value >= 0.05 && value <= 1;
    default:
      return typeof value === 'number' && Number.isFinite(value) && value >= 0;
  }
}

/**
 * Reads and writes the runner's settings (keys `live.*` in the `settings` table, JSON values).
 *
 * Contract: `get` never throws for a missing or malformed row (it returns the default); `set`
 * throws RangeError for an invalid value and writes nothing. Writes are single statements, so
 * they are safe while a crawl holds an open transaction on the same connection (they commit with it).
 */
export class LiveSettings {
  constructor(private readonly db: Db) {}

  private value(key: string): SettingsValue {
    return settingsValue(this.db, PREFIX + key);
  }

  get<K extends keyof LiveSettingValues>(key: K): LiveSettingValues[K] {
    const raw = this.value(key).load();
    if (raw === null) return LIVE_DEFAULTS[key];
    try {
      const v: unknown = JSON.parse(raw);
      return valid(key, v) ? v : LIVE_DEFAULTS[key];
    } catch {
      return LIVE_DEFAULTS[key];
    }
  }

  set<K extends keyof LiveSettingValues>(key: K, value: LiveSettingValues[K]): void {
    if (!valid(key, value))
      throw new RangeError(`invalid value for live setting ${key}: ${JSON.stringify(value)}`);
    this.value(key).save(JSON.stringify(value));
  }

  /** Every setting, defaults filled in. */
  all(): LiveSettingValues {
    return {
      paused: this.get('paused'),
      watchBudget: this.get('watchBudget'),
      pollMinutes: this.get('pollMinutes'),
      cpuBudget: this.get('cpuBudget'),
      quietMs: this.get('quietMs'),
    };
  }

  /** Raw JSON value of a key outside the typed set (crawl-history bookkeeping). */
  getRaw(key: string): unknown {
    const raw = this.value(key).load();
    if (raw === null) return undefined;
    try {
      return JSON.parse(raw);
    } catch {
      return undefined;
    }
  }

  setRaw(key: string, value: unknown): void {
    this.value(key).save(JSON.stringify(value));
  }
}
