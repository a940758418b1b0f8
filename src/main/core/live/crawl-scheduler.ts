import type { CrawlRequest } from '../api-types.js';
import type { ContentSource, CrawlMode, CrawlProgress, CrawlRecord } from '../model.js';
import type { Clock, TimerHandle } from './clock.js';
import type { CrawlHistory, CrawlTimes } from './crawl-history.js';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

/** What the scheduler needs from the service (TrawlService satisfies it). */
export interface CrawlTarget {
  listSources(): ContentSource[];
  crawl(req: CrawlRequest): Promise<CrawlRecord[]>;
  runningCrawls(): CrawlProgress[];
  on(event: 'crawl-finished', cb: (r: CrawlRecord) => void): () => void;
}

/** Input of {@link decideCrawl}. */
export interface DecideInput {
  source: Pick<ContentSource, 'settings'>;
  times: CrawlTimes;
  now: number;
  /** When the source is not watched: crawl incrementally at least this often (minutes). */
  pollMinutes: number | null;
  /** End of the newest stop of a crawl of this source seen at run time (not persisted). */
  lastStoppedAt?: number | null;
  /** Wait this long after a failed or stopped crawl before trying again (ms). */
  retryMs: number;
}

/** A decision: which crawl is due now (if any) and when the next one falls due. */
export interface CrawlDecision {
  due: CrawlMode | null;
  /** When the next crawl falls due if none is due now; null = never (no schedule). */
  nextAt: number | null;
  nextIncrementalAt: number | null;
  nextFullAt: number | null;
}

function positive(n: number | null | undefined): number | null {
  return typeof n === 'number' && Number.isFinite(n) && n > 0 ? n : null;
}

/**
 * Decide whether a source's scheduled crawl is due, from its crawl history alone (pure).
 *
 * - Incremental: every `incrementalMinutes` (or `pollMinutes` when shorter) after the start of the
 *   last complete crawl of either mode. Full: every `fullDays` after the last complete full crawl,
 *   or after the first complete crawl when there never was a full one.
 * - A source that never completed a crawl is due at once (its first crawl), schedule or not.
 * - However many periods were missed, the answer is one crawl; a full crawl wins over an
 *   incremental one that is due at the same time (it does the incremental's work too).
 * - After a failed or stopped crawl nothing is due for `retryMs`.
 */
export function decideCrawl(input: DecideInput): CrawlDecision {
  const { times, now, retryMs } = input;
  const sched = input.source.settings.schedule ?? {};
  const incMin = [positive(sched.incrementalMinutes), positive(input.pollMinutes)].filter(
    (n): n is number => n != null,
  );
  const incEvery = incMin.length ? Math.min(...incMin) * MINUTE : null;
  const fullEvery = positive(sched.fullDays) != null ? positive(sched.fullDays)! * DAY : null;
  const lastInc = times.lastDone.incremental;
  const failed = Math.max(
    times.lastFailed.full ?? -Infinity,
    times.lastFailed.incremental ?? -Infinity,
    input.lastStoppedAt ?? -Infinity,
  );
  const notBefore = failed > (lastInc ?? -Infinity) ? failed + retryMs : -Infinity;

  let incAt: number | null = lastInc == null ? now : incEvery != null ? lastInc + incEvery : null;
  const fullAnchor = times.lastDone.full ?? times.firstDone;
  let fullAt: number | null = fullEvery != null && fullAnchor != null ? fullAnchor + fullEvery : null;
  if (incAt != null) incAt = Math.max(incAt, notBefore);
  if (fullAt != null) fullAt = Math.max(fullAt, notBefore);

  const due: CrawlMode | null =
    fullAt != null && fullAt <= now ? 'full' : incAt != null && incAt <= now ? 'incremental' : null;
  const future = [incAt, fullAt].filter((t): t is number => t != null && t > now);
  return {
    due,
    nextAt: due ? now : future.length ? Math.min(...future) : null,
    nextIncrementalAt: incAt,
    nextFullAt: fullAt,
  };
}

/** Options for {@link CrawlScheduler}. */
export interface SchedulerOptions {
  clock: Clock;
  history: CrawlHistory;
  /** Global pause (per-source pause is `source.paused`). */
  isPaused: () => boolean;
  /** Polling cadence of a source that is not watched, in minutes; null when it is watched. */
  pollMinutes: (source: ContentSource) => number | null;
  /** Wait after a failed or stopped crawl (default 15 minutes). */
  retryMs?: number;
  /** Re-read sources and history at least this often (default 60 s). */
  maxSleepMs?: number;
  /** Called when a scheduled crawl could not be started or threw. */
  onError?: (sourceId: number, error: unknown) => void;
}

/** One source's schedule as the status shows it. */
export interface SchedulePlan {
  sourceId: number;
  nextIncrementalAt: number | null;
  nextFullAt: number | null;
  /** The mode of the crawl of this source running now, if any. */
  running: CrawlMode | null;
}

/**
 * Runs each source's scheduled crawls when they fall due.
 *
 * Contract: due times come from the crawl history, so a restart neither forgets nor repeats a
 * schedule, and a schedule missed while nothing ran yields exactly one crawl. A source with a crawl
 * running (scheduled, manual or queued for a slot) is never started again until it finishes; the
 * service's global limit decides how many crawl at once. Paused sources and a global pause start
 * nothing. `stop()` cancels the timer only; running crawls are the caller's to stop.
 */
export class CrawlScheduler {
  private timer: TimerHandle | null = null;
  private timerAt = Infinity;
  private stopped = true;
  private readonly inFlight = new Map<number, { mode: CrawlMode; promise: Promise<unknown> }>();
  private readonly stoppedAt = new Map<number, number>();
  private off: (() => void) | null = null;
  private readonly retryMs: number;
  private readonly maxSleepMs: number;

  constructor(
    private readonly target: CrawlTarget,
    private readonly opts: SchedulerOptions,
  ) {
    this.retryMs = opts.retryMs ?? 15 * MINUTE;
    this.maxSleepMs = opts.maxSleepMs ?? MINUTE;
  }

  /** Start: crawls that fell due while nothing ran start now (once each). Idempotent. */
  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.off = this.target.on('crawl-finished', (r) => {
      if (r.status === 'stopped') this.stoppedAt.set(r.sourceId, r.endedAt ?? this.opts.clock.now());
      this.poke();
    });
    this.tick();
  }

  /** Stop scheduling (crawls already started keep running: stop them through the service). */
  stop(): void {
    this.stopped = true;
    this.off?.();
    this.off = null;
    if (this.timer) this.opts.clock.clearTimeout(this.timer);
    this.timer = null;
    this.timerAt = Infinity;
  }

  /** Resolves when the crawls this scheduler started have settled. */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.inFlight.values()].map((f) => f.promise));
  }

  /** Re-evaluate now (sources, settings or pause changed). */
  poke(): void {
    if (this.stopped) return;
    this.arm(this.opts.clock.now());
  }

  /** Note a user's stop so the schedule does not restart the crawl at once. */
  noteStopped(sourceId: number): void {
    this.stoppedAt.set(sourceId, this.opts.clock.now());
  }

  /** Every source's next due times. */
  plan(): SchedulePlan[] {
    const now = this.opts.clock.now();
    const running = this.runningModes();
    return this.target.listSources().map((s) => {
      const d = this.decide(s, now);
      return {
        sourceId: s.id,
        nextIncrementalAt: d.nextIncrementalAt,
        nextFullAt: d.nextFullAt,
        running: running.get(s.id) ?? null,
      };
    });
  }

  private decide(s: ContentSource, now: number): CrawlDecision {
    return decideCrawl({
      source: s,
      times: this.opts.history.times(s.id),
      now,
      pollMinutes: this.opts.pollMinutes(s),
      lastStoppedAt: this.stoppedAt.get(s.id) ?? null,
      retryMs: this.retryMs,
    });
  }

  private runningModes(): Map<number, CrawlMode> {
    const m = new Map<number, CrawlMode>();
    for (const p of this.target.runningCrawls()) m.set(p.sourceId, p.mode);
    for (const [id, f] of this.inFlight) if (!m.has(id)) m.set(id, f.mode);
    return m;
  }

  private arm(at: number): void {
    if (this.stopped) return;
    if (this.timer && this.timerAt <= at) return;
    if (this.timer) this.opts.clock.clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = this.opts.clock.setTimeout(() => {
      this.timer = null;
      this.timerAt = Infinity;
      this.tick();
    }, at - this.opts.clock.now());
  }

  private tick(): void {
    if (this.stopped) return;
    const now = this.opts.clock.now();
    let next = now + this.maxSleepMs;
    if (!this.opts.isPaused()) {
      const running = this.runningModes();
      for (const s of this.target.listSources()) {
        if (s.paused || running.has(s.id)) continue;
        let d: CrawlDecision;
        try {
          d = this.decide(s, now);
        } catch (e) {
          this.opts.onError?.(s.id, e);
          continue;
        }
        if (d.due) this.launch(s.id, d.due);
        else if (d.nextAt != null) next = Math.min(next, d.nextAt);
      }
    }
    this.arm(next);
  }

  private launch(sourceId: number, mode: CrawlMode): void {
    const promise = this.target
      .crawl({ sourceId, mode })
      .then((records) => {
        for (const r of records)
          if (r.status === 'failed') this.opts.onError?.(sourceId, new Error(r.error ?? 'crawl failed'));
      })
      .catch((e) => this.opts.onError?.(sourceId, e))
      .finally(() => {
        this.inFlight.delete(sourceId);
        this.poke();
      });
    this.inFlight.set(sourceId, { mode, promise });
  }
}
