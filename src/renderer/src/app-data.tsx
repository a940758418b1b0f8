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
  /** Sources a crawl was requested for that has not reported progress yet. */
  starting: Set<number>;
  lastFinished: Map<number, CrawlRecord>;
  errors: CrawlError[];
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
  const [starting, setStarting] = useState(new Set<number>());
  const [lastFinished, setLastFinished] = useState(new Map<number, CrawlRecord>());
  const [errors, setErrors] = useState<CrawlError[]>([]);
  const [offline, setOffline] = useState<string | null>(null);
  const refreshTimer = useRef<ReturnType<typeof setTimeout> | null>(null);

  const refresh = useCallback(async () => {
    try {
      const data = await load(api);
      setSources(data.sources);
      setStatus(data.status);
      setOffline(null);
      setProgress((prev) => {
        const next = new Map(prev);
        for (const p of data.status.running) next.set(p.sourceId, p);
        return next;
      });
    } catch (error) {
      setOffline((error as Error).message);
    }
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
        setStarting((prev) => {
          if (!prev.has(p.sourceId)) return prev;
          const next = new Set(prev);
          next.delete(p.sourceId);
          return next;
        });
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
        setStarting((prev) => {
          const next = new Set(prev);
          next.delete(record.sourceId);
          return next;
        });
        refreshSoon();
      }),
      api.on('sources-changed', (list) => {
        setSources(list);
        refreshSoon();
      }),
      api.on('crawl-error', (e) => {
        setErrors((prev) => [
          ...prev.slice(-9),
          { sourceId: e.sourceId, message: e.message, at: Date.now() },
        ]);
        setStarting(new Set());
        refreshSoon();
      }),
    ];
    return () => {
      offs.forEach((off) => off());
      if (refreshTimer.current) clearTimeout(refreshTimer.current);
    };
  }, [api, refresh, refreshSoon]);

  const startCrawl = useCallback(
    async (sourceId: number | undefined, mode: 'full' | 'incremental') => {
      const ids =
        sourceId !== undefined ? [sourceId] : (sources ?? []).filter((s) => !s.paused).map((s) => s.id);
      setStarting((prev) => new Set([...prev, ...ids]));
      try {
        await api.startCrawl({ sourceId, mode });
      } catch (error) {
        setStarting(new Set());
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
      offline,
      refresh,
      startCrawl,
    }),
    [sources, status, whoami, info, progress, starting, lastFinished, errors, offline, refresh, startCrawl],
  );
  return <AppDataContext.Provider value={value}>{children}</AppDataContext.Provider>;
}

export function useAppData(): AppData {
  const ctx = useContext(AppDataContext);
  if (!ctx) throw new Error('useAppData outside AppDataProvider');
  return ctx;
}

/** True while a source has a crawl running or requested. */
export function isCrawling(data: AppData, sourceId: number): boolean {
  return data.starting.has(sourceId) || data.progress.get(sourceId)?.state === 'running';
}
