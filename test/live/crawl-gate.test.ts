import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/main/core/live/clock.js';
import { CrawlGate, gateExtractor } from '../../src/main/core/live/crawl-gate.js';
import type { ContentExtractor } from '../../src/main/core/crawl/tree-crawler.js';

/** Track whether a promise settled, advancing the manual clock 1 ms at a time until it does. */
async function settleOn(clock: ManualClock, p: Promise<unknown>, maxMs = 60_000): Promise<number> {
  let done = false;
  void p.then(() => (done = true));
  const t0 = clock.now();
  await clock.advance(0);
  while (!done) {
    if (clock.now() - t0 > maxMs) throw new Error('never settled');
    await clock.advance(1);
  }
  return clock.now() - t0;
}

describe('CrawlGate', () => {
  it('lets work through at once when the user is idle and there is no CPU budget', async () => {
    const clock = new ManualClock();
    const gate = new CrawlGate({ clock, quietMs: 400, cpuBudget: 1 });
    expect(await settleOn(clock, gate.wait())).toBe(0);
    expect(gate.stats()).toMatchObject({ waits: 1, heldMs: 0, userActive: false });
  });

  it('holds work until the user has been quiet for quietMs, however often they type', async () => {
    const clock = new ManualClock();
    const gate = new CrawlGate({ clock, quietMs: 400 });
    gate.noteUserActivity();
    let done = false;
    const p = gate.wait().then(() => (done = true));
    for (let i = 0; i < 10; i++) {
      await clock.advance(100);
      gate.noteUserActivity(); // a keystroke every 100 ms for a second
    }
    expect(done).toBe(false);
    expect(gate.stats().userActive).toBe(true);
    await clock.advance(399);
    expect(done).toBe(false);
    await clock.advance(1);
    await p;
    expect(done).toBe(true);
  });

  it('keeps crawl work to the CPU budget share of wall time', async () => {
    const clock = new ManualClock();
    const gate = new CrawlGate({ clock, cpuBudget: 0.25, sliceMs: 50 });
    const t0 = clock.now();
    let work = 0;
    for (let i = 0; i < 200; i++) {
      await settleOn(clock, gate.wait());
      await clock.advance(5); // one item's work
      work += 5;
    }
    const share = work / (clock.now() - t0);
    expect(share).toBeGreaterThan(0.22);
    expect(share).toBeLessThan(0.28);
  });

  it('rests once per slice for all concurrent waiters', async () => {
    const clock = new ManualClock();
    const gate = new CrawlGate({ clock, cpuBudget: 0.5, sliceMs: 50 });
    await settleOn(clock, gate.wait());
    await clock.advance(60);
    const waits = Array.from({ length: 8 }, () => gate.wait());
    const took = await settleOn(clock, Promise.all(waits));
    // 60 ms of work at a 50 % budget: one 60 ms rest shared by all eight
    expect(took).toBeGreaterThanOrEqual(60);
    expect(took).toBeLessThan(90);
    expect(gate.stats().heldMs).toBe(60);
  });

  it('gates every filter run of an extractor, and keeps its other members', async () => {
    const clock = new ManualClock();
    const gate = new CrawlGate({ clock, quietMs: 300 });
    const runs: string[] = [];
    const inner: ContentExtractor & { close(): Promise<void> } = {
      pick: () => ({ id: 'text', maxBytes: 10, metadataOnly: false }),
      run: async (input) => {
        runs.push(input.name);
        return { text: 'x', mime: 'text/plain' } as never;
      },
      close: async () => {},
    };
    const gated = gateExtractor(inner, gate);
    expect(gated.pick('txt').id).toBe('text');
    expect(typeof gated.close).toBe('function');
    gate.noteUserActivity();
    const p = gated.run({ bytes: Buffer.from('x'), name: 'a.txt', ext: 'txt', url: 'file:///a.txt' });
    await clock.advance(299);
    expect(runs).toEqual([]);
    await settleOn(clock, p);
    expect(runs).toEqual(['a.txt']);
  });
});
