/** A timer handle from {@link Clock.setTimeout}. */
export type TimerHandle = { readonly id: number };

/**
 * Time and timers, injectable so schedules and debouncing can be tested without waiting.
 *
 * Contract: `setTimeout` calls `fn` once, no earlier than `ms` after the call as measured by
 * `now()`; `clearTimeout` on a fired or cleared handle is a no-op.
 */
export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

/** The real clock: `Date.now()` and Node timers (unref'd: a pending timer never keeps the process alive). */
export const systemClock: Clock = (() => {
  const timers = new Map<number, NodeJS.Timeout>();
  let next = 1;
  return {
    now: () => Date.now(),
    setTimeout(fn, ms) {
      const id = next++;
      const t = setTimeout(
        () => {
          timers.delete(id);
          fn();
        },
        Math.max(0, ms),
      );
      t.unref();
      timers.set(id, t);
      return { id };
    },
    clearTimeout(handle) {
      const t = timers.get(handle.id);
      if (t) clearTimeout(t);
      timers.delete(handle.id);
    },
  };
})();

/**
 * A clock that only moves when told to: `advance(ms)` fires every timer that falls due, in order,
 * letting promise callbacks run between them. For tests and simulations.
 */
export class ManualClock implements Clock {
  private time: number;
  private seq = 1;
  private readonly timers = new Map<number, { at: number; fn: () => void }>();

  constructor(start = Date.UTC(2030, 0, 1)) {
    this.time = start;
  }

  now(): number {
    return this.time;
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const id = this.seq++;
    this.timers.set(id, { at: this.time + Math.max(0, ms), fn });
    return { id };
  }

  clearTimeout(handle: TimerHandle): void {
    this.timers.delete(handle.id);
  }

  /** Number of timers not yet fired. */
  pending(): number {
    return this.timers.size;
  }

  /** Move time forward by `ms`, firing due timers in time order (and ones they schedule). */
  async advance(ms: number): Promise<void> {
    const end = this.time + ms;
    for (;;) {
      await flushMicrotasks();
      let nextId = -1;
      let nextAt = Infinity;
      for (const [id, t] of this.timers) {
        if (t.at <= end && (t.at < nextAt || (t.at === nextAt && id < nextId))) {
          nextAt = t.at;
          nextId = id;
        }
      }
      if (nextId < 0) break;
      const t = this.timers.get(nextId)!;
      this.timers.delete(nextId);
      this.time = Math.max(this.time, t.at);
      t.fn();
    }
    this.time = end;
    await flushMicrotasks();
  }
}

/** Let queued promise callbacks (and the I/O they started on the real event loop) run. */
export async function flushMicrotasks(rounds = 5): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise<void>((r) => setImmediate(r));
}
