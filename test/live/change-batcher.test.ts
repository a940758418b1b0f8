import { describe, expect, it } from 'vitest';
import { ChangeBatcher } from '../../src/main/core/live/change-batcher.js';
import { ManualClock } from '../../src/main/core/live/clock.js';

function setup(opts: Partial<ConstructorParameters<typeof ChangeBatcher>[0]> = {}) {
  const clock = new ManualClock();
  const batches: string[][] = [];
  const b = new ChangeBatcher({
    clock,
    quietMs: 150,
    burstQuietMs: 600,
    burstAt: 64,
    maxDelayMs: 5000,
    onFlush: (p) => batches.push(p),
    ...opts,
  });
  return { clock, batches, b };
}

describe('ChangeBatcher', () => {
  it("turns an editor's write-rename-delete dance into one batch after the quiet period", async () => {
    const { clock, batches, b } = setup();
    b.add('/r/.notes.txt.swp');
    await clock.advance(3);
    b.add('/r/notes.txt~');
    b.add('/r/notes.txt');
    await clock.advance(5);
    b.add('/r/notes.txt~');
    await clock.advance(149);
    expect(batches).toEqual([]);
    await clock.advance(1);
    expect(batches).toEqual([['/r/.notes.txt.swp', '/r/notes.txt~', '/r/notes.txt']]);
  });

  it('keeps a burst of thousands of events together while it lasts (one batch)', async () => {
    const { clock, batches, b } = setup();
    for (let i = 0; i < 5000; i++) {
      b.add(`/r/src/f${i}.ts`);
      if (i % 100 === 0) await clock.advance(40); // events trickle in for 2 s, with gaps > quietMs
    }
    await clock.advance(599);
    expect(batches).toEqual([]);
    await clock.advance(1);
    expect(batches).toHaveLength(1);
    expect(batches[0]).toHaveLength(5000);
  });

  it('flushes at maxDelayMs even when events never stop', async () => {
    const { clock, batches, b } = setup();
    for (let t = 0; t < 12_000; t += 100) {
      b.add(`/r/log${t % 3}.txt`);
      await clock.advance(100);
    }
    expect(batches.length).toBeGreaterThanOrEqual(2);
    expect(batches.length).toBeLessThanOrEqual(3);
    expect(batches[0]).toEqual(['/r/log0.txt', '/r/log1.txt', '/r/log2.txt']);
  });

  it('delivers each path once, and nothing after close', async () => {
    const { clock, batches, b } = setup();
    b.add('/a');
    await clock.advance(200);
    b.add('/a');
    b.flush();
    b.add('/b');
    b.close();
    await clock.advance(10_000);
    expect(batches).toEqual([['/a'], ['/a']]);
    expect(clock.pending()).toBe(0);
  });
});
