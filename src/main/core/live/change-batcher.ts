import type { Clock, TimerHandle } from './clock.js';

/** Options for {@link ChangeBatcher}. */
export interface ChangeBatcherOptions {
  clock: Clock;
  /** Flush once no event came for this long (default 150 ms). */
  quietMs?: number;
  /** Quiet period once the batch holds more than `burstAt` paths (default 600 ms): bursts end unevenly. */
  burstQuietMs?: number;
  burstAt?: number;
  /** Flush at the latest this long after the batch's first event (default 5 s). */
  maxDelayMs?: number;
  /** Receives each batch (distinct paths, in arrival order). */
  onFlush: (paths: string[]) => void;
}

/**
 * Debounces file-system events into batches: an editor's write-rename-delete dance, or a
 * `git checkout` touching thousands of files, arrives as one batch.
 *
 * Contract: every added path is delivered exactly once, in the first batch flushed after it was
 * added; a batch is flushed when no path was added for the quiet period, or `maxDelayMs` after its
 * first path, whichever comes first. `close()` drops pending paths and cancels the timer.
 */
export class ChangeBatcher {
  private paths = new Set<string>();
  private firstAt = 0;
  private lastAt = 0;
  private timer: TimerHandle | null = null;
  private closed = false;
  private readonly quietMs: number;
  private readonly burstQuietMs: number;
  private readonly burstAt: number;
  private readonly maxDelayMs: number;

  constructor(private readonly opts: ChangeBatcherOptions) {
    this.quietMs = opts.quietMs ?? 150;
    this.burstQuietMs = opts.burstQuietMs ?? 600;
    this.burstAt = opts.burstAt ?? 64;
    this.maxDelayMs = opts.maxDelayMs ?? 5000;
  }

  /** Paths waiting for the next flush. */
  get size(): number {
    return this.paths.size;
  }

  add(p: string): void {
    if (this.closed) return;
    const now = this.opts.clock.now();
    if (this.paths.size === 0) this.firstAt = now;
    this.lastAt = now;
    this.paths.add(p);
    if (!this.timer) this.arm();
  }

  /** Deliver pending paths now. */
  flush(): void {
    if (this.timer) this.opts.clock.clearTimeout(this.timer);
    this.timer = null;
    if (this.paths.size === 0) return;
    const batch = [...this.paths];
    this.paths = new Set();
    this.opts.onFlush(batch);
  }

  close(): void {
    this.closed = true;
    if (this.timer) this.opts.clock.clearTimeout(this.timer);
    this.timer = null;
    this.paths.clear();
  }

  private arm(): void {
    const quiet = this.paths.size > this.burstAt ? this.burstQuietMs : this.quietMs;
    const at = Math.min(this.lastAt + quiet, this.firstAt + this.maxDelayMs);
    this.timer = this.opts.clock.setTimeout(() => {
      this.timer = null;
      const now = this.opts.clock.now();
      const q = this.paths.size > this.burstAt ? this.burstQuietMs : this.quietMs;
      if (now >= this.lastAt + q || now >= this.firstAt + this.maxDelayMs) this.flush();
      else this.arm();
    }, at - this.opts.clock.now());
  }
}
