import type { BackgroundStatus, LiveSourceStatus } from './background.js';

function when(ms: number | null, now: number): string {
  if (ms == null) return 'not scheduled';
  if (ms <= now) return 'due now';
  const min = Math.round((ms - now) / 60_000);
  if (min < 1) return 'in under a minute';
  if (min < 120) return `in ${min} min`;
  const h = Math.round(min / 60);
  return h < 48 ? `in ${h} h` : `in ${Math.round(h / 24)} days`;
}

function mb(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(0)} MB`;
}

function sourceLine(s: LiveSourceStatus, now: number): string {
  const parts: string[] = [s.state];
  if (s.state === 'watching') parts[0] = `watching (${s.watches} watches)`;
  if (s.reason) parts.push(s.reason);
  if (s.crawling) parts.push(`${s.crawling} crawl running`);
  if (s.pendingChanges) parts.push(`${s.pendingChanges} changes pending`);
  if (s.lastUpdate)
    parts.push(
      `last live update ${new Date(s.lastUpdate.at).toISOString()} (${s.lastUpdate.paths} paths, ${s.lastUpdate.ms} ms)`,
    );
  if (s.state !== 'paused')
    parts.push(`next incremental ${when(s.nextIncrementalAt, now)}, full ${when(s.nextFullAt, now)}`);
  return `${String(s.sourceId).padStart(3)}  ${s.name}: ${parts.join(' · ')}`;
}

/** The live status as lines of text for `trawl status` (no trailing newlines). */
export function formatLiveStatus(st: BackgroundStatus, now = Date.now()): string[] {
  const head: string[] = [];
  if (!st.running)
    head.push('live: no background runner (watching and schedules run in `trawl daemon` or the app)');
  else {
    const inotify = st.inotify.limit ? `; inotify ${st.inotify.inUse ?? '?'} of ${st.inotify.limit}` : '';
    const mem = st.memory
      ? `; memory ${mb(st.memory.rssBytes)} RSS, ${mb(st.memory.heapUsedBytes)} heap`
      : '';
    head.push(`live: ${st.watches} watches (budget ${st.watchBudget}${inotify})${mem}`);
    if (st.throttle)
      head.push(
        `      throttle: CPU budget ${Math.round(st.throttle.cpuBudget * 100)} %, quiet ${st.throttle.quietMs} ms after searches${st.throttle.userActive ? ' (holding now)' : ''}`,
      );
  }
  if (st.paused) head.push('      all indexing is paused');
  return [...head, ...st.sources.map((s) => sourceLine(s, now))];
}
