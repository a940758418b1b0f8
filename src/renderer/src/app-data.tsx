/**
 * State every screen shares: sources, index status, who is searching, what the transport can do,
 * and live crawl progress. Kept fresh from the contract's events.
 */
import {
  createContext,
  useCallback,
  useContext,
  useEffect,
  useMemo,
  useRef,
  useState,
  type ReactNode,
} from 'react';
import type {
  AppInfo,
  BackgroundStatus,
  ContentSource,
  CrawlProgress,
  CrawlRecord,
  IndexStatus,
  Whoami,
} from '../../shared/contract.js';
import type { TrawlApi } from '../../shared/rpc.js';
import { useApi } from './api/api-context.js';

export interface CrawlError {
  sourceId: number | null;
  message: string;
  at: number;
}

export interface AppData {
  sources: ContentSource[] | null;
  status: IndexStatus | null;
  whoami: Whoami | null;
  info: AppInfo | null;
  /** Latest progress per source (running or just finished). */
  progress: Map<number, CrawlProgress>;
  /** Sources a crawl was requested for that has not reported progress yet (→ request time). */
  starting: Map<number, number>;
  lastFinished: Map<number, CrawlRecord>;
  errors: CrawlError[];
  /** Watching and schedules per source; null while unknown or when no background runner is attached. */
  live: BackgroundStatus | null;
  /** Set when the engine could not be reached. */
  offline: string | null;
  refresh(): Promise<void>;
  startCrawl(sourceId: number | undefined, mode: 'full' | 'incremental'): Promise<void>;
}

const AppDataContext = createContext<AppData | null>(null);

async function load(api: TrawlApi) {
  const [sources, status] = await Promise.all([api.listSources(), api.status()]);
  return { sources, status };
}

export function AppDataProvider({ children }: { children: ReactNode }) {
  const api = useApi();
  const [sources, setSources] = useState<ContentSource[] | null>(null);
  const [status, setStatus] = useState<IndexStatus | null>(null);
  const [whoami, setWhoami] = useState<Whoami | null>(null);
  const [info, setInfo] = useState<AppInfo | null>(null);
  const [progress, setProgress] = useState(new Map<number, CrawlProgress>());
  const [starting, setStarting] = useState(new Map<number, number>());
  const [lastFinished, setLastFinished] = useState(new Map<number, CrawlRecord>());
  const [errors, setErrors] = useState<CrawlError[]>([]);
  const [live, setLive] = useState<BackgroundStatus | null>(null);
  const [offline, setOffline] = useState<string | null>(null);
  const refreshTimer = useRef<ReturnType<typeof setTimeout> | null>(null);

  const refresh = useCallback(async () => {
    try {
      const data = await load(api);
      setSources(data.sources);
      setStatus(data.status);
      setOffline(null);
      setProgress((prev) => reconcileProgress(prev, data.status));
      setStarting((prev) => settleStarting(prev, data.status));
    } catch (error) {
      setOffline((error as Error).message);
    }
    // An engine without a runner (or an older one) answers null or fails: the list simply shows no live state.
    api.liveStatus().then(setLive, () => {});
  }, [api]);

  /** Coalesces refreshes triggered by bursts of events. */
  const refreshSoon = useCallback(() => {
    if (refreshTimer.current) return;
    refreshTimer.current = setTimeout(() => {
      refreshTimer.current = null;
      void refresh();
    }, 250);
  }, [refresh]);

  useEffect(() => {
    void refresh();
    api.whoami().then(setWhoami, () => {});
    api.appInfo().then(setInfo, () => {});
    const offs = [
      api.on('progress', (p) => {
        setProgress((prev) => new Map(prev).set(p.sourceId, p));
        setStarting((prev) => without(prev, p.sourceId));
      }),
      api.on('crawl-finished', (record) => {
        setLastFinished((prev) => new Map(prev).set(record.sourceId, record));
        setProgress((prev) => {
          const cur = prev.get(record.sourceId);
          if (!cur || cur.crawlId !== record.id) return prev;
          return new Map(prev).set(record.sourceId, {
            ...cur,
            counts: record.counts,
            state: record.status,
            currentItem: null,
          });
        });
        setStarting((prev) => without(prev, record.sourceId));
        refreshSoon();
      }),
      api.on('sources-changed', (list) => {
        setSources(list);
        refreshSoon();
      }),
      api.on('live-status', setLive),
      api.on('crawl-error', (e) => {
        setErrors((prev) => [
          ...prev.slice(-9),
          { sourceId: e.sourceId, message: e.message, at: Date.now() },
        ]);
        setStarting(new Map());
        refreshSoon();
      }),
    ];
    return () => {
      offs.forEach((off) => off());
      if (refreshTimer.current) clearTimeout(refreshTimer.current);
    };
  }, [api, refresh, refreshSoon]);

  // Safety net for lost events (a reconnecting stream, a restarted engine): while anything is
  // crawling, re-read the status every 1.5 s.
  const busy = starting.size > 0 || [...progress.values()].some((p) => p.state === 'running');
  useEffect(() => {
    if (!busy) return;
    const timer = setInterval(() => void refresh(), 1500);
    return () => clearInterval(timer);
  }, [busy, refresh]);

  const startCrawl = useCallback(
    async (sourceId: number | undefined, mode: 'full' | 'incremental') => {
      const ids =
        sourceId !== undefined ? [sourceId] : (sources ?? []).filter((s) => !s.paused).map((s) => s.id);
      const now = Date.now();
      setStarting((prev) => new Map([...prev, ...ids.map((id) => [id, now] as const)]));
      try {
        await api.startCrawl({ sourceId, mode });
      } catch (error) {
        setStarting(new Map());
        setErrors((prev) => [
          ...prev.slice(-9),
          { sourceId: sourceId ?? null, message: (error as Error).message, at: Date.now() },
        ]);
      }
    },
    [api, sources],
  );

  const value = useMemo<AppData>(
    () => ({
      sources,
      status,
      whoami,
      info,
      progress,
      starting,
      lastFinished,
      errors,
      live,
      offline,
      refresh,
      startCrawl,
    }),
    [
      sources,
      status,
      whoami,
      info,
      progress,
      starting,
      lastFinished,
      errors,
      live,
      offline,
      refresh,
      startCrawl,
    ],
  );
  return <AppDataContext.Provider value={value}>{children}</AppDataContext.Provider>;
}

export function useAppData(): AppData {
  const ctx = useContext(AppDataContext);
  if (!ctx) throw new Error('useAppData outside AppDataProvider');
  return ctx;
}

function without<K, V>(map: Map<K, V>, key: K): Map<K, V> {
  if (!map.has(key)) return map;
  const next = new Map(map);
  next.delete(key);
  return next;
}

/**
 * Merges a status snapshot into the progress map without going back in time: a snapshot never
 * replaces a newer event for the same crawl, and a crawl the snapshot no longer lists as running
 * takes its final state from the source's last crawl record.
 */
export function reconcileProgress(
  prev: Map<number, CrawlProgress>,
  status: IndexStatus,
): Map<number, CrawlProgress> {
  const next = new Map(prev);
  const running = new Map(status.running.map((p) => [p.sourceId, p]));
  for (const p of status.running) {
    const cur = next.get(p.sourceId);
    if (cur && cur.crawlId === p.crawlId && (cur.state !== 'running' || cur.done > p.done)) continue;
    if (cur && cur.crawlId > p.crawlId) continue;
    next.set(p.sourceId, p);
  }
  for (const [sourceId, cur] of next) {
    if (cur.state !== 'running' || running.has(sourceId)) continue;
    const last = status.sources.find((s) => s.id === sourceId)?.stats.lastCrawl;
    if (last && last.id === cur.crawlId && last.status !== 'running') {
      const c = last.counts;
      const done = c.added + c.updated + c.notModified + c.failed + c.excluded + c.deleted;
      next.set(sourceId, { ...cur, counts: c, done, state: last.status, currentItem: null });
    }
  }
  return next;
}

/** Drops "starting" marks for sources the snapshot shows running, or finished since the request. */
function settleStarting(prev: Map<number, number>, status: IndexStatus): Map<number, number> {
  let next = prev;
  for (const [sourceId, requestedAt] of prev) {
    const last = status.sources.find((s) => s.id === sourceId)?.stats.lastCrawl;
    const runningNow = status.running.some((p) => p.sourceId === sourceId);
    if (runningNow || (last && last.startedAt >= requestedAt - 1000)) next = without(next, sourceId);
  }
  return next;
}

/** True while a source has a crawl running or requested. */
export function isCrawling(data: AppData, sourceId: number): boolean {
  return data.starting.has(sourceId) || data.progress.get(sourceId)?.state === 'running';
}
