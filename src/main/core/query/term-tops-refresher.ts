import type { Db } from '../index/database.js';
import { refreshTermTops, refreshTermTopsInBackground, type RefreshTermTopsResult } from './term-tops.js';

/** Quiet time after the last index change before the stored top results are rebuilt. */
export const TERM_TOPS_DELAY_MS = 5_000;
/** Work per slice of a background refresh; queries wait at most about this long behind one. */
const SLICE_MS = 20;

/**
 * Keeps `term_tops` (the stored top results of frequent words, term-tops.ts) current without
 * competing with crawls or searches: a refresh starts a while after the index last changed (a
 * timer that never keeps the process alive), runs in short slices in the background, and waits
 * while `busy()` (a crawl runs, a person is typing). Queries are correct at all times (a stale row
 * is never used); the refresh only makes common words fast again.
 */
export class TermTopsRefresher {
  private timer: NodeJS.Timeout | null = null;
  private abort: AbortController | null = null;
  private running: Promise<unknown> | null = null;
  private closed = false;

  constructor(
    private readonly db: Db,
    /** True while a crawl runs or a person searches: the refresh waits between slices. */
    private readonly busy: () => boolean,
    private readonly delayMs = TERM_TOPS_DELAY_MS,
  ) {}

  /** (Re)arm the timer: a background refresh starts `delayMs` after the last call. */
  schedule(): void {
    if (this.closed) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      if (this.busy()) return this.schedule();
      this.abort?.abort();
      const abort = (this.abort = new AbortController());
      this.running = refreshTermTopsInBackground(this.db, {
        signal: abort.signal,
        sliceMs: SLICE_MS,
        hold: this.busy,
      })
        .catch(() => undefined) // only a speed-up: a failed refresh leaves queries on the full path
        .finally(() => {
          if (this.abort === abort) this.abort = null;
        });
    }, this.delayMs);
    this.timer.unref();
  }

  /** A crawl starts: stop a refresh under way (rows built so far stay valid) and wait for it. */
  async pause(): Promise<void> {
    this.abort?.abort();
    await this.running;
  }

  /**
   * Refresh now, in this turn (the CLI after `trawl crawl`, benchmarks). With `budgetMs`, stops
   * after about that long; the rest is done by a later refresh.
   */
  async refreshNow(budgetMs?: number): Promise<RefreshTermTopsResult> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.pause();
    return refreshTermTops(this.db, budgetMs === undefined ? {} : { budgetMs });
  }

  /** Stop timers and any refresh under way. Idempotent. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.pause();
  }
}
