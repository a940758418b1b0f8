import type { ContentExtractor } from '../crawl/tree-crawler.js';
import { systemClock, type Clock } from './clock.js';

/** Something a crawl awaits before each unit of work. */
export interface ActivityGate {
  wait(): Promise<void>;
}

/** Options for {@link CrawlGate}. */
export interface CrawlGateOptions {
  clock?: Clock;
  /** Hold crawl work for this long after the user's last search request (ms, 0 = never). */
  quietMs?: number;
  /** Share of wall time crawl work may use, 0.05–1 (1 = no limit). */
  cpuBudget?: number;
  /** Length of one work slice before the duty cycle rests (ms, default 50). */
  sliceMs?: number;
}

/** What the gate did so far, for status and benchmarks. */
export interface GateStats {
  waits: number;
  /** Total ms waiters were held back (activity and duty cycle), counted once per rest. */
  heldMs: number;
  userActive: boolean;
  quietMs: number;
  cpuBudget: number;
}

const sleep = (clock: Clock, ms: number) => new Promise<void>((r) => clock.setTimeout(r, ms));
const nextTurn = () => new Promise<void>((r) => setImmediate(r));

/**
 * Keeps crawls out of the user's way: crawl code awaits `wait()` before each item (and each folder
 * listing); the gate resolves at once when the user is idle and the CPU budget allows, and otherwise
 * after the user has been quiet for `quietMs` and the duty cycle's rest is over.
 *
 * Contract: `wait()` never rejects, always yields to the event loop at least once (so queries queued
 * behind crawl work run first), and holds every concurrent waiter through the same rest (one rest
 * per slice, not one per waiter). `noteUserActivity()` is cheap enough to call on every keystroke.
 */
export class CrawlGate implements ActivityGate {
  private readonly clock: Clock;
  private quietMs: number;
  private cpuBudget: number;
  private readonly sliceMs: number;
  private lastActivity = -Infinity;
  private sliceStart: number | null = null;
  private resting: Promise<void> | null = null;
  private waits = 0;
  private heldMs = 0;

  constructor(opts: CrawlGateOptions = {}) {
    this.clock = opts.clock ?? systemClock;
    this.quietMs = opts.quietMs ?? 400;
    this.cpuBudget = clampBudget(opts.cpuBudget ?? 1);
    this.sliceMs = opts.sliceMs ?? 50;
  }

  /** The user just did something in the search window (a query, a keystroke). */
  noteUserActivity(): void {
    this.lastActivity = this.clock.now();
  }

  configure(opts: { quietMs?: number; cpuBudget?: number }): void {
    if (opts.quietMs != null) this.quietMs = Math.max(0, opts.quietMs);
    if (opts.cpuBudget != null) this.cpuBudget = clampBudget(opts.cpuBudget);
  }

  async wait(): Promise<void> {
    this.waits++;
    await nextTurn();
    for (;;) {
      if (this.resting) {
        await this.resting;
        continue;
      }
      const now = this.clock.now();
      const quietLeft = this.lastActivity + this.quietMs - now;
      if (quietLeft > 0) {
        this.rest(quietLeft);
        this.sliceStart = null;
        continue;
      }
      if (this.cpuBudget < 1) {
        if (this.sliceStart == null) this.sliceStart = now;
        // A gap far longer than a slice is idle time or one long item: charge at most a few slices.
        const worked = Math.min(now - this.sliceStart, 4 * this.sliceMs);
        if (worked >= this.sliceMs) {
          this.sliceStart = null;
          this.rest((worked * (1 - this.cpuBudget)) / this.cpuBudget);
          continue;
        }
      }
      return;
    }
  }

  stats(): GateStats {
    return {
      waits: this.waits,
      heldMs: Math.round(this.heldMs),
      userActive: this.clock.now() - this.lastActivity < this.quietMs,
      quietMs: this.quietMs,
      cpuBudget: this.cpuBudget,
    };
  }

  private rest(ms: number): void {
    this.heldMs += ms;
    this.resting = sleep(this.clock, ms).then(() => {
      this.resting = null;
    });
  }
}

function clampBudget(b: number): number {
  return Number.isFinite(b) ? Math.min(1, Math.max(0.05, b)) : 1;
}

/**
 * The extractor with the gate in front of every filter run: the cheapest place to throttle a crawl
 * without touching the crawl loop (filtering is most of a crawl's CPU).
 */
export function gateExtractor<E extends ContentExtractor>(extractor: E, gate: ActivityGate): E {
  return {
    ...extractor,
    run: async (input: Parameters<ContentExtractor['run']>[0]) => {
      await gate.wait();
      return extractor.run(input);
    },
  };
}
