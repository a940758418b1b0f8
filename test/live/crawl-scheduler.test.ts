import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../src/main/core/index/database.js';
import { SourceStore } from '../../src/main/core/index/source-store.js';
import type { CrawlRequest } from '../../src/main/core/api-types.js';
import type { ContentSource, CrawlMode, CrawlProgress, CrawlRecord } from '../../src/main/core/model.js';
import { emptyCounts } from '../../src/main/core/model.js';
import { ManualClock } from '../../src/main/core/live/clock.js';
import { CrawlHistory } from '../../src/main/core/live/crawl-history.js';
import { CrawlScheduler, decideCrawl, type CrawlTarget } from '../../src/main/core/live/crawl-scheduler.js';
import { LiveSettings } from '../../src/main/core/live/live-settings.js';

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

/**
 * Stands in for the service's crawl loop on the injected clock: writes real rows to the real
 * `crawls` table (so history and restarts behave as with the service), takes `durationMs` of
 * clock time, and joins a running crawl of the same source like TrawlService.crawl does.
 */
class ClockCrawler implements CrawlTarget {
  readonly calls: { sourceId: number; mode: CrawlMode; at: number }[] = [];
  durationMs = 5 * MIN;
  readonly failing = new Set<number>();
  private readonly running = new Map<
    number,
    { promise: Promise<CrawlRecord[]>; progress: CrawlProgress; stop: () => void }
  >();
  private readonly listeners = new Set<(r: CrawlRecord) => void>();

  constructor(
    private readonly db: Db,
    private readonly clock: ManualClock,
    readonly sources: SourceStore,
  ) {}

  listSources(): ContentSource[] {
    return this.sources.list();
  }

  runningCrawls(): CrawlProgress[] {
    return [...this.running.values()].map((r) => r.progress);
  }

  on(_event: 'crawl-finished', cb: (r: CrawlRecord) => void): () => void {
    this.listeners.add(cb);
    return () => this.listeners.delete(cb);
  }

  crawl(req: CrawlRequest): Promise<CrawlRecord[]> {
    const sourceId = req.sourceId!;
    const mode = req.mode ?? 'incremental';
    const existing = this.running.get(sourceId);
    if (existing) return existing.promise;
    const startedAt = this.clock.now();
    this.calls.push({ sourceId, mode, at: startedAt });
    const id = Number(
      this.db
        .prepare(`INSERT INTO crawls (source_id, mode, started_at, status) VALUES (?, ?, ?, 'running')`)
        .run(sourceId, mode, startedAt).lastInsertRowid,
    );
    const progress: CrawlProgress = {
      crawlId: id,
      sourceId,
      mode,
      counts: emptyCounts(),
      done: 0,
      currentItem: null,
      rate: 0,
      state: 'running',
    };
    let finish!: (status: CrawlRecord['status']) => void;
    const promise = new Promise<CrawlRecord[]>((resolve) => {
      finish = (status) => {
        if (!this.running.has(sourceId)) return;
        this.running.delete(sourceId);
        const endedAt = this.clock.now();
        const error = status === 'failed' ? 'unreachable' : null;
        this.db
          .prepare('UPDATE crawls SET status = ?, ended_at = ?, error = ? WHERE id = ?')
          .run(status, endedAt, error, id);
        const rec: CrawlRecord = {
          id,
          sourceId,
          mode,
          startedAt,
          endedAt,
          status,
          counts: emptyCounts(),
          error,
        };
        for (const l of this.listeners) l(rec);
        resolve([rec]);
      };
    });
    const timer = this.clock.setTimeout(
      () => finish(this.failing.has(sourceId) ? 'failed' : 'done'),
      this.durationMs,
    );
    this.running.set(sourceId, {
      promise,
      progress,
      stop: () => {
        this.clock.clearTimeout(timer);
        finish('stopped');
      },
    });
    return promise;
  }

  stop(sourceId: number): void {
    this.running.get(sourceId)?.stop();
  }

  /** Pretend the process died mid-crawl: the row stays `running` (the next open marks it failed). */
  abandon(): void {
    this.running.clear();
  }
}

let dir: string;
let db: Db;
let clock: ManualClock;
let crawler: ClockCrawler;
let scheduler: CrawlScheduler | null;
let settings: LiveSettings;

function makeScheduler(opts: { pollMinutes?: number | null } = {}): CrawlScheduler {
  scheduler = new CrawlScheduler(crawler, {
    clock,
    history: new CrawlHistory(db),
    isPaused: () => settings.get('paused'),
    pollMinutes: () => opts.pollMinutes ?? null,
    maxSleepMs: 6 * HOUR,
  });
  return scheduler;
}

function addSource(schedule: {
  incrementalMinutes?: number | null;
  fullDays?: number | null;
}): ContentSource {
  const folder = fs.mkdtempSync(path.join(dir, 'src-'));
  return crawler.sources.add({ startAddresses: [folder], settings: { schedule } as never });
}

function insertCrawl(sourceId: number, mode: CrawlMode, startedAt: number, status = 'done'): number {
  return Number(
    db
      .prepare('INSERT INTO crawls (source_id, mode, started_at, ended_at, status) VALUES (?, ?, ?, ?, ?)')
      .run(sourceId, mode, startedAt, startedAt + MIN, status).lastInsertRowid,
  );
}

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-sched-'));
  db = openDatabase(path.join(dir, 'data'));
  clock = new ManualClock();
  crawler = new ClockCrawler(db, clock, new SourceStore(db));
  settings = new LiveSettings(db);
  scheduler = null;
});

afterEach(async () => {
  scheduler?.stop();
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('decideCrawl', () => {
  const base = { settings: { schedule: { incrementalMinutes: 60, fullDays: 7 } } } as Pick<
    ContentSource,
    'settings'
  >;
  type ModeTimes = { full: number | null; incremental: number | null };
  const none: ModeTimes = { full: null, incremental: null };
  const t = (lastDone: ModeTimes, lastFailed: ModeTimes = none) => ({
    lastDone,
    lastFailed,
    firstDone: lastDone.full ?? lastDone.incremental,
  });

  it('crawls a source that never completed a crawl at once, even without a schedule', () => {
    const d = decideCrawl({
      source: { settings: { schedule: {} } } as never,
      times: { lastDone: none, lastFailed: none, firstDone: null },
      now: 1000,
      pollMinutes: null,
      retryMs: 0,
    });
    expect(d.due).toBe('incremental');
  });

  it('gives one crawl however many periods were missed, full winning over incremental', () => {
    const now = 100 * DAY;
    const times = t({ full: now - 30 * DAY, incremental: now - 10 * DAY });
    const d = decideCrawl({ source: base, times, now, pollMinutes: null, retryMs: 0 });
    expect(d.due).toBe('full');
    expect(d.nextFullAt).toBe(now - 23 * DAY);
  });

  it('is not due before the period ends, and says when it will be', () => {
    const now = 100 * DAY;
    const times = t({ full: now - DAY, incremental: now - 20 * MIN });
    const d = decideCrawl({ source: base, times, now, pollMinutes: null, retryMs: 0 });
    expect(d.due).toBeNull();
    expect(d.nextAt).toBe(now + 40 * MIN);
    expect(d.nextFullAt).toBe(now + 6 * DAY);
  });

  it('polls an unwatched source at the shorter of its schedule and the poll cadence', () => {
    const now = 100 * DAY;
    const times = t({ full: now - DAY, incremental: now - 20 * MIN });
    expect(decideCrawl({ source: base, times, now, pollMinutes: 15, retryMs: 0 }).due).toBe('incremental');
    expect(decideCrawl({ source: base, times, now, pollMinutes: 30, retryMs: 0 }).nextAt).toBe(
      now + 10 * MIN,
    );
  });

  it('waits retryMs after a failure that is newer than the last complete crawl', () => {
    const now = 100 * DAY;
    const times = t(
      { full: now - 2 * DAY, incremental: now - 2 * HOUR },
      { full: null, incremental: now - 5 * MIN },
    );
    const d = decideCrawl({ source: base, times, now, pollMinutes: null, retryMs: 15 * MIN });
    expect(d.due).toBeNull();
    expect(d.nextAt).toBe(now + 10 * MIN);
  });
});

describe('CrawlScheduler on an injected clock', () => {
  it('runs the first crawl, then incremental every N minutes and full every N days', async () => {
    const s = addSource({ incrementalMinutes: 60, fullDays: 1 });
    makeScheduler().start();
    await clock.advance(0);
    expect(crawler.calls.map((c) => c.mode)).toEqual(['incremental']);
    await clock.advance(59 * MIN);
    expect(crawler.calls).toHaveLength(1);
    await clock.advance(1 * MIN);
    expect(crawler.calls.map((c) => c.mode)).toEqual(['incremental', 'incremental']);
    await clock.advance(DAY - HOUR);
    const fulls = crawler.calls.filter((c) => c.mode === 'full');
    expect(fulls).toHaveLength(1);
    expect(fulls[0].at).toBe(crawler.calls[0].at + DAY);
    expect(crawler.calls.every((c) => c.sourceId === s.id)).toBe(true);
    // No incremental right after the full: the full counts as one.
    const afterFull = crawler.calls.filter((c) => c.at > fulls[0].at);
    expect(afterFull.every((c) => c.at >= fulls[0].at + HOUR)).toBe(true);
  });

  it('runs a schedule missed while nothing ran exactly once at start-up', async () => {
    const s = addSource({ incrementalMinutes: 60, fullDays: null });
    insertCrawl(s.id, 'incremental', clock.now() - 10 * HOUR);
    const t0 = clock.now();
    makeScheduler().start();
    await clock.advance(59 * MIN);
    expect(crawler.calls).toEqual([{ sourceId: s.id, mode: 'incremental', at: t0 }]);
    await clock.advance(1 * MIN);
    expect(crawler.calls.map((c) => c.at - t0)).toEqual([0, HOUR]);
  });

  it('never overlaps crawls of one source, and runs a full that fell due during an incremental after it', async () => {
    const s = addSource({ incrementalMinutes: 10, fullDays: 1 });
    insertCrawl(s.id, 'full', clock.now() - DAY + 30 * MIN);
    insertCrawl(s.id, 'incremental', clock.now() - 20 * MIN);
    crawler.durationMs = 45 * MIN;
    makeScheduler().start();
    await clock.advance(0);
    expect(crawler.calls.map((c) => c.mode)).toEqual(['incremental']);
    await clock.advance(44 * MIN); // the full fell due at +30 min: still running the incremental
    expect(crawler.calls).toHaveLength(1);
    await clock.advance(1 * MIN);
    expect(crawler.calls.map((c) => c.mode)).toEqual(['incremental', 'full']);
    expect(crawler.calls[1].at).toBe(crawler.calls[0].at + 45 * MIN);
    expect(crawler.runningCrawls()).toHaveLength(1);
  });

  it('leaves a source alone while a crawl someone else started is running', async () => {
    const s = addSource({ incrementalMinutes: 60, fullDays: null });
    insertCrawl(s.id, 'incremental', clock.now() - 2 * HOUR);
    crawler.durationMs = 30 * MIN;
    const t0 = clock.now();
    const manual = crawler.crawl({ sourceId: s.id, mode: 'full' });
    makeScheduler().start();
    await clock.advance(30 * MIN);
    await manual;
    expect(crawler.calls.map((c) => c.mode)).toEqual(['full']); // overdue, but a crawl was running
    await clock.advance(29 * MIN);
    expect(crawler.calls).toHaveLength(1); // the manual full counts as the incremental
    await clock.advance(1 * MIN);
    expect(crawler.calls.map((c) => [c.mode, c.at - t0])).toEqual([
      ['full', 0],
      ['incremental', HOUR],
    ]);
  });

  it('starts every due source at once and lets the service queue them', async () => {
    const a = addSource({ incrementalMinutes: 60 });
    const b = addSource({ incrementalMinutes: 60 });
    const c = addSource({ incrementalMinutes: 60 });
    makeScheduler().start();
    await clock.advance(0);
    expect(crawler.calls.map((x) => x.sourceId).sort()).toEqual([a.id, b.id, c.id].sort());
  });

  it('survives a restart: due times come from the crawl history', async () => {
    const s = addSource({ incrementalMinutes: 60, fullDays: 2 });
    makeScheduler().start();
    await clock.advance(6 * MIN);
    expect(crawler.calls).toHaveLength(1);
    scheduler!.stop();
    await clock.advance(40 * MIN);
    makeScheduler().start(); // "restart" 46 minutes after the first crawl began
    await clock.advance(13 * MIN);
    expect(crawler.calls).toHaveLength(1);
    await clock.advance(1 * MIN);
    expect(crawler.calls).toHaveLength(2);
    expect(crawler.calls[1].at).toBe(crawler.calls[0].at + HOUR);
    expect(crawler.calls[1].sourceId).toBe(s.id);
  });

  it('runs a crawl cut short by shutdown (stopped) or by a dying process again at start-up', async () => {
    const s = addSource({ incrementalMinutes: 60, fullDays: null });
    insertCrawl(s.id, 'incremental', clock.now() - 2 * HOUR);
    crawler.durationMs = 20 * MIN;
    makeScheduler().start();
    await clock.advance(1 * MIN);
    crawler.stop(s.id); // the daemon shut down mid-crawl
    scheduler!.stop();
    makeScheduler().start();
    await clock.advance(0);
    expect(crawler.calls).toHaveLength(2);
    crawler.abandon(); // the process died: the row stays running until the service reopens
    db.prepare(`UPDATE crawls SET status = 'failed', ended_at = started_at WHERE status = 'running'`).run();
    scheduler!.stop();
    makeScheduler().start();
    await clock.advance(14 * MIN);
    expect(crawler.calls).toHaveLength(2); // it died at once: treated as a failure, retried after the wait
    await clock.advance(1 * MIN);
    expect(crawler.calls).toHaveLength(3);
  });

  it('backs off after failures instead of retrying in a loop', async () => {
    const s = addSource({ incrementalMinutes: 5, fullDays: null });
    crawler.failing.add(s.id);
    crawler.durationMs = MIN;
    makeScheduler().start();
    await clock.advance(2 * HOUR);
    // first attempt, then one every 1 min crawl + 15 min wait
    expect(crawler.calls.length).toBeGreaterThanOrEqual(7);
    expect(crawler.calls.length).toBeLessThanOrEqual(8);
    crawler.failing.delete(s.id);
    const before = crawler.calls.length;
    await clock.advance(HOUR);
    expect(crawler.calls.length - before).toBeGreaterThanOrEqual(10); // back to every 5 minutes
  });

  it('does not restart a crawl the user stopped until the retry wait is over', async () => {
    const s = addSource({ incrementalMinutes: 5, fullDays: null });
    crawler.durationMs = 10 * MIN;
    makeScheduler().start();
    await clock.advance(MIN);
    crawler.stop(s.id);
    await clock.advance(14 * MIN);
    expect(crawler.calls).toHaveLength(1);
    await clock.advance(2 * MIN);
    expect(crawler.calls).toHaveLength(2);
  });

  it('keeps per-source and global pause across restarts, and runs the missed crawl once on resume', async () => {
    const a = addSource({ incrementalMinutes: 60 });
    const b = addSource({ incrementalMinutes: 60 });
    crawler.sources.update(a.id, { paused: true });
    makeScheduler().start();
    await clock.advance(3 * HOUR);
    expect(crawler.calls.every((c) => c.sourceId === b.id)).toBe(true);
    settings.set('paused', true);
    const beforePause = crawler.calls.length;
    scheduler!.stop();

    // restart with a fresh settings reader over the same database
    settings = new LiveSettings(db);
    makeScheduler().start();
    await clock.advance(10 * HOUR);
    expect(crawler.calls).toHaveLength(beforePause);
    expect(crawler.sources.get(a.id)!.paused).toBe(true);

    settings.set('paused', false);
    crawler.sources.update(a.id, { paused: false });
    scheduler!.poke();
    await clock.advance(0);
    const resumed = crawler.calls.slice(beforePause);
    expect(resumed.map((c) => c.sourceId).sort()).toEqual([a.id, b.id].sort());
  });

  it('does not count live (partial) updates as the scheduled incremental crawl', async () => {
    const s = addSource({ incrementalMinutes: 60, fullDays: null });
    insertCrawl(s.id, 'incremental', clock.now() - 2 * HOUR);
    const history = new CrawlHistory(db);
    for (let i = 0; i < 3; i++)
      history.notePartial(s.id, insertCrawl(s.id, 'incremental', clock.now() - 10 * MIN + i));
    expect(history.times(s.id).lastDone.incremental).toBe(clock.now() - 2 * HOUR);
    makeScheduler().start();
    await clock.advance(0);
    expect(crawler.calls).toHaveLength(1);
    await clock.advance(10 * MIN);
    // partial ids older than the newest regular crawl are forgotten
    history.notePartial(s.id, insertCrawl(s.id, 'incremental', clock.now()));
    const stored = settings.getRaw('partial-crawls') as Record<string, number[]>;
    expect(stored[s.id]).toHaveLength(1);
  });

  it('reports each source\u2019s next due times', async () => {
    const s = addSource({ incrementalMinutes: 30, fullDays: 7 });
    insertCrawl(s.id, 'full', clock.now() - HOUR);
    const sch = makeScheduler();
    const [p] = sch.plan();
    expect(p).toEqual({
      sourceId: s.id,
      nextIncrementalAt: clock.now() - 30 * MIN,
      nextFullAt: clock.now() - HOUR + 7 * DAY,
      running: null,
    });
    sch.start();
    await clock.advance(0);
    expect(sch.plan()[0].running).toBe('incremental');
  });
});
