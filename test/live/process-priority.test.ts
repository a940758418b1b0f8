import fs from 'node:fs';
import os from 'node:os';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { ThreadPriority } from '../../src/main/core/live/process-priority.js';

const threads = () =>
  fs
    .readdirSync('/proc/self/task')
    .map(Number)
    .map((tid) => {
      try {
        return { tid, nice: os.getPriority(tid) };
      } catch {
        return null; // ended meanwhile
      }
    })
    .filter((t): t is { tid: number; nice: number } => t != null);

describe.runIf(process.platform === 'linux')('ThreadPriority', () => {
  it('lowers every thread but the main one (filter workers included), and puts them back', async () => {
    const worker = new Worker('setInterval(() => {}, 1000)', { eval: true });
    await new Promise((r) => worker.once('online', r));
    const mainBefore = os.getPriority(process.pid);
    const p = new ThreadPriority('threads', 10);
    try {
      const state = p.apply();
      expect(state.lowered).toBeGreaterThan(1);
      for (const t of threads()) {
        if (t.tid === process.pid) expect(t.nice).toBe(mainBefore);
        else expect(t.nice).toBeGreaterThanOrEqual(10);
      }
      // a thread created afterwards starts at the main thread's priority: apply() again catches it
      const late = new Worker('setInterval(() => {}, 1000)', { eval: true });
      await new Promise((r) => late.once('online', r));
      expect(threads().some((t) => t.tid !== process.pid && t.nice < 10)).toBe(true);
      expect(p.apply().lowered).toBeGreaterThan(state.lowered);
      expect(
        threads()
          .filter((t) => t.tid !== process.pid)
          .every((t) => t.nice >= 10),
      ).toBe(true);
      await late.terminate();
    } finally {
      p.restore();
      await worker.terminate();
    }
    if (process.getuid?.() === 0) expect(threads().every((t) => t.nice === mainBefore)).toBe(true);
  });
});
