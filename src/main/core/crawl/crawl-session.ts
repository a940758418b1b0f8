import type Database from 'better-sqlite3';
import type { Db } from '../index/database.js';
import type { IndexWriter } from '../index/index-writer.js';
import {
  emptyCounts,
  type ContentSource,
  type CrawlCounts,
  type CrawlLogEntry,
  type CrawlMode,
  type CrawlProgress,
  type CrawlRecord,
} from '../model.js';

/** A crawl log line as a crawl loop reports it (the session adds ids and time). */
export type LogLine = Omit<CrawlLogEntry, 'id' | 'crawlId' | 'sourceId' | 'at'>;

/** Everything one crawl of one source shares: counters, history record, log, progress, stop. */
export interface CrawlSessionOptions {
  db: Db;
  writer: IndexWriter;
  source: ContentSource;
  mode: CrawlMode;
  signal: AbortSignal;
  onProgress?: (p: CrawlProgress) => void;
  /** Minimum ms between progress events (default 100). */
  progressEveryMs?: number;
}

/**
 * One crawl's bookkeeping. Creates the crawl's history record on construction (`status=running`),
 * and `finish()` closes it. Log lines are written in the writer's current transaction.
 *
 * Used by both crawl loops (hierarchical and web) so counts, logs and progress mean the same.
 */
export class CrawlSession {
  readonly id: number;
  readonly counts: CrawlCounts = emptyCounts();
  readonly startedAt = Date.now();
  currentItem: string | null = null;
  private lastEmit = 0;
  private readonly insertLog: Database.Statement;
  private readonly progressEveryMs: number;

  constructor(readonly opts: CrawlSessionOptions) {
    const { db, source, mode } = opts;
    this.id = Number(
      db
        .prepare(`INSERT INTO crawls (source_id, mode, started_at, status) VALUES (?, ?, ?, 'running')`)
        .run(source.id, mode, this.startedAt).lastInsertRowid,
    );
    this.insertLog = db.prepare(
      `INSERT INTO crawl_log (crawl_id, source_id, at, url, outcome, reason, status, size, hops, via, mime, duration_ms, digest, annotations)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.progressEveryMs = opts.progressEveryMs ?? 100;
  }

  get source(): ContentSource {
    return this.opts.source;
  }
  get mode(): CrawlMode {
    return this.opts.mode;
  }
  get writer(): IndexWriter {
    return this.opts.writer;
  }
  get signal(): AbortSignal {
    return this.opts.signal;
  }

  /** Append a crawl log line. */
  log(line: LogLine): void {
    this.insertLog.run(
      this.id,
      this.source.id,
      Date.now(),
      line.url,
      line.outcome,
      line.reason ?? null,
      line.status ?? null,
      line.size ?? null,
      line.hops ?? null,
      line.via ?? null,
      line.mime ?? null,
      line.durationMs ?? null,
      line.digest ?? null,
      line.annotations ?? null,
    );
  }

  /** Discovered items finished so far (excluded and deleted items are counted apart). */
  done(): number {
    const c = this.counts;
    return c.added + c.updated + c.notModified + c.failed;
  }

  /** Current progress snapshot. */
  progress(state: CrawlProgress['state'] = 'running'): CrawlProgress {
    const secs = Math.max(0.001, (Date.now() - this.startedAt) / 1000);
    const done = this.done();
    return {
      crawlId: this.id,
      sourceId: this.source.id,
      mode: this.mode,
      counts: { ...this.counts },
      done,
      currentItem: this.currentItem,
      rate: Math.round((done / secs) * 10) / 10,
      state,
    };
  }

  /** Emit a progress event unless one was emitted less than `progressEveryMs` ago. */
  tick(force = false): void {
    if (!this.opts.onProgress) return;
    const now = Date.now();
    if (!force && now - this.lastEmit < this.progressEveryMs) return;
    this.lastEmit = now;
    this.opts.onProgress(this.progress());
  }

  /** Close the crawl record (and commit everything written). */
  finish(status: CrawlRecord['status'], error?: string): CrawlRecord {
    const { db, writer } = this.opts;
    writer.flush();
    const c = this.counts;
    const endedAt = Date.now();
    db.prepare(
      `UPDATE crawls SET ended_at = ?, status = ?, discovered = ?, added = ?, updated = ?, not_modified = ?, deleted = ?,
         failed = ?, excluded = ?, error = ? WHERE id = ?`,
    ).run(
      endedAt,
      status,
      c.discovered,
      c.added,
      c.updated,
      c.notModified,
      c.deleted,
      c.failed,
      c.excluded,
      error ?? null,
      this.id,
    );
    this.opts.onProgress?.(this.progress(status));
    return {
      id: this.id,
      sourceId: this.source.id,
      mode: this.mode,
      startedAt: this.startedAt,
      endedAt,
      status,
      counts: { ...c },
      error: error ?? null,
    };
  }
}

/** Crawls left `running` by a process that died are marked failed (called when the engine opens). */
export function closeInterruptedCrawls(db: Db): number {
  return db
    .prepare(
      `UPDATE crawls SET status = 'failed', ended_at = COALESCE(ended_at, started_at), error = 'interrupted (the process ended during the crawl)' WHERE status = 'running'`,
    )
    .run().changes;
}
