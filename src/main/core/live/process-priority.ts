import fs from 'node:fs';
import os from 'node:os';

/**
 * How the background runner lowers its CPU priority:
 * - `threads`: every thread but the main one (filter workers, the libuv pool) on Linux, where each
 *   thread has its own nice value; the main thread keeps answering queries at normal priority.
 * - `process`: the whole process (a daemon that only crawls).
 * - `none`: leave priorities alone.
 */
export type PriorityMode = 'none' | 'threads' | 'process';

/** What {@link ThreadPriority.apply} did. */
export interface PriorityState {
  mode: PriorityMode;
  nice: number;
  /** Threads whose priority this object lowered. */
  lowered: number;
  /** Why nothing could be done, if so (platform, permissions). */
  note: string | null;
}

function listThreads(): number[] | null {
  try {
    return fs
      .readdirSync('/proc/self/task')
      .map(Number)
      .filter((n) => Number.isInteger(n));
  } catch {
    return null;
  }
}

/**
 * Lowers CPU priority as far as Node allows. `apply()` is idempotent and cheap, so it can be
 * called at each crawl start to catch threads created since (new threads inherit the main
 * thread's priority). `restore()` puts back what it changed where the OS permits raising it again
 * (root or CAP_SYS_NICE; otherwise lowered threads stay lowered until they exit).
 */
export class ThreadPriority {
  private readonly changed = new Map<number, number>();
  private note: string | null = null;

  constructor(
    readonly mode: PriorityMode,
    readonly nice = 10,
  ) {}

  apply(): PriorityState {
    if (this.mode !== 'none') {
      const tids = process.platform === 'linux' ? listThreads() : null;
      if (tids) {
        const live = new Set(tids);
        for (const tid of this.changed.keys()) if (!live.has(tid)) this.changed.delete(tid);
        for (const tid of tids) {
          if (this.mode === 'threads' && tid === process.pid) continue;
          this.lower(tid);
        }
      } else if (this.mode === 'process') {
        this.lower(0);
      } else {
        this.note = 'per-thread priority needs Linux; the process keeps its priority';
      }
    }
    return this.state();
  }

  state(): PriorityState {
    return { mode: this.mode, nice: this.nice, lowered: this.changed.size, note: this.note };
  }

  restore(): void {
    const live = process.platform === 'linux' ? new Set(listThreads() ?? []) : null;
    for (const [tid, prev] of this.changed) {
      if (live && tid !== 0 && !live.has(tid)) continue; // ended: the id may belong to someone else now
      try {
        os.setPriority(tid, prev);
      } catch {}
    }
    this.changed.clear();
  }

  private lower(tid: number): void {
    if (this.changed.has(tid)) return;
    try {
      const cur = os.getPriority(tid);
      if (cur >= this.nice) return;
      os.setPriority(tid, this.nice);
      this.changed.set(tid, cur);
    } catch (e) {
      // a thread that ended between listing and setting, or no permission
      if ((e as NodeJS.ErrnoException).code !== 'ESRCH')
        this.note = `could not lower priority: ${(e as Error).message}`;
    }
  }
}
