/**
 * A bounded pool of async tasks. `run` resolves as soon as the task has *started* (it waits while
 * the pool is full), so producers are throttled to the pool's size. Task errors are collected in
 * `errors` — callers record per-item problems themselves.
 */
export class TaskPool {
  private active = 0;
  /** Submitted and not yet finished (running or waiting for a slot). */
  private pending = 0;
  private readonly waiters: (() => void)[] = [];
  private idleWaiters: (() => void)[] = [];
  readonly errors: unknown[] = [];

  constructor(private readonly limit: number) {
    if (limit < 1) throw new RangeError('pool limit must be >= 1');
  }

  /** Start `task` when a slot is free; resolves once it has started. */
  async run(task: () => Promise<void>): Promise<void> {
    this.pending++;
    while (this.active >= this.limit) await new Promise<void>((r) => this.waiters.push(r));
    this.active++;
    void task()
      .catch((e) => {
        this.errors.push(e);
      })
      .finally(() => {
        this.active--;
        this.pending--;
        this.waiters.shift()?.();
        if (this.pending === 0) {
          const w = this.idleWaiters;
          this.idleWaiters = [];
          for (const r of w) r();
        }
      });
  }

  /** True while any task runs or waits for a slot. */
  busy(): boolean {
    return this.pending > 0;
  }

  /** Resolves when every submitted task has finished. */
  idle(): Promise<void> {
    if (this.pending === 0) return Promise.resolve();
    return new Promise((r) => this.idleWaiters.push(r));
  }
}
