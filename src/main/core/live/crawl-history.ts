import type { Db } from '../index/database.js';
import type { CrawlMode } from '../model.js';
import { LiveSettings } from './live-settings.js';

/** What the crawl history says about one source's scheduled crawls. */
export interface CrawlTimes {
  /** Start of the newest complete crawl of each mode; a full crawl also counts as incremental. */
  lastDone: Record<CrawlMode, number | null>;
  /** End of the newest failed crawl of each mode (retries wait a while after a failure). */
  lastFailed: Record<CrawlMode, number | null>;
  /** Start of the first complete crawl of either mode (anchors the full schedule until a full ran). */
  firstDone: number | null;
}

const PARTIALS_KEY = 'partial-crawls';
/** More partial crawls than this between two regular crawls: the oldest ids are forgotten. */
const MAX_PARTIALS = 5000;

/**
 * Reads schedule-relevant times from the `crawls` table so schedules survive restarts.
 *
 * Live updates run as partial crawls that the table records as `incremental`; they must not count
 * as the scheduled incremental crawl (which is the safety net for events the watcher missed). The
 * runner registers their ids here ({@link notePartial}); rows whose mode is neither `full` nor
 * `incremental` (a future `partial` mode) are ignored as well. `stopped` crawls count neither as
 * done nor as failed, so a crawl cut short by a shutdown runs again at the next start.
 */
export class CrawlHistory {
  private readonly settings: LiveSettings;

  constructor(private readonly db: Db) {
    this.settings = new LiveSettings(db);
  }

  private partials(): Record<string, number[]> {
    const v = this.settings.getRaw(PARTIALS_KEY);
    return v && typeof v === 'object' ? (v as Record<string, number[]>) : {};
  }

  /** Times for one source. */
  times(sourceId: number): CrawlTimes {
    const skip = JSON.stringify(this.partials()[sourceId] ?? []);
    const rows = this.db
      .prepare(
        `SELECT mode, status, min(started_at) AS first, max(started_at) AS started, max(ended_at) AS ended FROM crawls
         WHERE source_id = ? AND mode IN ('full', 'incremental') AND status IN ('done', 'failed')
           AND id NOT IN (SELECT value FROM json_each(?))
         GROUP BY mode, status`,
      )
      .all(sourceId, skip) as {
      mode: CrawlMode;
      status: string;
      first: number;
      started: number;
      ended: number | null;
    }[];
    const t: CrawlTimes = {
      lastDone: { full: null, incremental: null },
      lastFailed: { full: null, incremental: null },
      firstDone: null,
    };
    for (const r of rows) {
      if (r.status === 'done') {
        t.lastDone[r.mode] = r.started;
        t.firstDone = t.firstDone == null ? r.first : Math.min(t.firstDone, r.first);
      } else t.lastFailed[r.mode] = r.ended ?? r.started;
    }
    const full = t.lastDone.full;
    if (full != null && (t.lastDone.incremental == null || full > t.lastDone.incremental))
      t.lastDone.incremental = full;
    return t;
  }

  /** Register a crawl id as a live (partial) update of a source. */
  notePartial(sourceId: number, crawlId: number): void {
    const all = this.partials();
    const newestRegular = this.db
      .prepare(
        `SELECT max(id) AS id FROM crawls WHERE source_id = ? AND mode IN ('full', 'incremental') AND status = 'done'
           AND id NOT IN (SELECT value FROM json_each(?))`,
      )
      .get(sourceId, JSON.stringify([...(all[sourceId] ?? []), crawlId])) as { id: number | null };
    const keep = (all[sourceId] ?? []).filter((id) => newestRegular.id == null || id > newestRegular.id);
    keep.push(crawlId);
    all[sourceId] = keep.slice(-MAX_PARTIALS);
    this.settings.setRaw(PARTIALS_KEY, all);
  }

  /** Forget the bookkeeping of sources that no longer exist. */
  prune(existing: number[]): void {
    const all = this.partials();
    const ids = new Set(existing.map(String));
    let changed = false;
    for (const k of Object.keys(all)) {
      if (!ids.has(k)) {
        delete all[k];
        changed = true;
      }
    }
    if (changed) this.settings.setRaw(PARTIALS_KEY, all);
  }
}
