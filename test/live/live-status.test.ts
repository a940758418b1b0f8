import { afterEach, describe, expect, it } from 'vitest';
import { offlineLiveStatus } from '../../src/main/core/live/background.js';
import { LiveSettings } from '../../src/main/core/live/live-settings.js';
import { formatLiveStatus } from '../../src/main/core/live/live-status-text.js';
import { liveEnv, type LiveEnv } from './live-env.js';

let env: LiveEnv | null = null;
afterEach(async () => {
  await env?.close();
  env = null;
});

describe('live status for trawl status', () => {
  it('reports a running runner: states, watches, memory, next crawls', async () => {
    env = await liveEnv({ 'a.txt': 'alpha', 'sub/b.txt': 'beta' });
    const st = env.bg.status();
    expect(st.running).toBe(true);
    expect(st.watches).toBe(4); // root, sub, a.txt, sub/b.txt
    expect(st.memory!.rssBytes).toBeGreaterThan(st.memory!.heapUsedBytes);
    const lines = formatLiveStatus(st, st.sources[0].nextIncrementalAt! - 30 * 60_000);
    expect(lines[0]).toMatch(/^live: 4 watches \(budget \d+/);
    expect(lines.at(-1)).toMatch(
      /root: watching \(4 watches\) · last live update \S+ \(1 paths, \d+ ms\) · next incremental in 30 min, full in 7 days$/,
    );
  });

  it('changes and persists live settings at run time, rejecting invalid ones', async () => {
    env = await liveEnv({ 'a.txt': 'alpha' });
    env.bg.configure({ cpuBudget: 0.5, quietMs: 150, pollMinutes: 5 });
    expect(env.bg.status().throttle).toMatchObject({ cpuBudget: 0.5, quietMs: 150 });
    expect(new LiveSettings(env.service.db).all()).toMatchObject({
      cpuBudget: 0.5,
      quietMs: 150,
      pollMinutes: 5,
    });
    expect(() => env!.bg.configure({ cpuBudget: 3 })).toThrow(RangeError);
    expect(new LiveSettings(env.service.db).get('cpuBudget')).toBe(0.5);
  });

  it('reads pause and schedules from the database when no runner is running', async () => {
    env = await liveEnv({ 'a.txt': 'alpha' }, { bg: { watch: false, schedule: false } });
    const other = env.service.addSource({ startAddresses: [env.base] });
    env.service.pause(other.id);
    let st = offlineLiveStatus(env.service);
    expect(st.running).toBe(false);
    expect(st.sources.map((s) => s.state)).toEqual(['off', 'paused']);
    const last = env.service.crawls(env.sourceId, 1)[0];
    expect(st.sources[0].nextIncrementalAt).toBe(last.startedAt + 60 * 60_000);
    expect(formatLiveStatus(st)[0]).toMatch(/no background runner/);
    new LiveSettings(env.service.db).set('paused', true);
    st = offlineLiveStatus(env.service);
    expect(st.paused).toBe(true);
    expect(st.sources[0]).toMatchObject({
      state: 'paused',
      reason: 'all indexing is paused',
      nextIncrementalAt: null,
    });
  });
});
