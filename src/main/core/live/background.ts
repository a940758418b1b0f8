import type { TrawlService } from '../service.js';
import type { ContentSource, CrawlMode } from '../model.js';
import type { ChangeBatcherOptions } from './change-batcher.js';
import { systemClock, type Clock, type TimerHandle } from './clock.js';
import { CrawlGate, type GateStats } from './crawl-gate.js';
import { CrawlHistory } from './crawl-history.js';
import { CrawlScheduler } from './crawl-scheduler.js';
import { LiveSettings, type LiveSettingValues } from './live-settings.js';
import type { CoalesceOptions } from './path-coalescing.js';
import { ThreadPriority, type PriorityMode, type PriorityState } from './process-priority.js';
import type { WatchFactory } from './root-watcher.js';
import { SourceMonitor, WatchBudget, type LiveState, type LiveUpdate } from './source-monitor.js';
import { inotifyWatchesInUse, inotifyWatchLimit, readMounts } from './watch-feasibility.js';

/** Options for {@link startBackground}. Values given here win over the stored `live.*` settings. */
export interface BackgroundOptions {
  /** Watch folder sources (default true). */
  watch?: boolean;
  /** Run scheduled crawls (default true). */
  schedule?: boolean;
  /** Re-examine watched sources once at start for changes made while nothing ran (default true). */
  catchUp?: boolean;
  watchBudget?: number;
  pollMinutes?: number;
  cpuBudget?: number;
  quietMs?: number;
  /** Lower CPU priority (default `threads`: everything but the main thread; a crawl-only daemon: `process`). */
  priority?: PriorityMode;
  clock?: Clock;
  /** Event debouncing (defaults: 150 ms quiet, 600 ms in bursts, at most 5 s). */
  batch?: Omit<ChangeBatcherOptions, 'clock' | 'onFlush'>;
  coalesce?: CoalesceOptions;
  /** How often a missing start folder is looked for (default 1 s). */
  rootCheckMs?: number;
  /** How often changes made by other processes (CLI, another window) are looked for (default 5 s). */
  refreshMs?: number;
  /** Scheduler: wait after a failed or stopped crawl (default 15 min). */
  retryMs?: number;
  /** /proc/mounts text (tests); default reads it. */
  mounts?: () => string | null;
  watchFactory?: WatchFactory;
  /** Problems that do not stop the runner (a batch that failed, a crawl that could not start). */
  onError?: (error: unknown, sourceId?: number) => void;
}

/** One source as the status shows it. */
export interface LiveSourceStatus {
  sourceId: number;
  name: string;
  state: LiveState;
  /** Why the source is polled or unwatched, or what is wrong with its watch. */
  reason: string | null;
  watches: number;
  /** Minutes between the incremental crawls that stand in for watching; null when not polling. */
  pollMinutes: number | null;
  /** Changed paths waiting to be applied. */
  pendingChanges: number;
  liveUpdates: number;
  lastUpdate: LiveUpdate | null;
  nextIncrementalAt: number | null;
  nextFullAt: number | null;
  crawling: CrawlMode | null;
}

/** The background runner's state, for `trawl status` and the UI. */
export interface BackgroundStatus {
  /** False when this is {@link offlineLiveStatus}: read from the database, nothing watching. */
  running: boolean;
  /** Global pause (persisted). */
  paused: boolean;
  sources: LiveSourceStatus[];
  /** Watches held by all sources, and the budget they share. */
  watches: number;
  watchBudget: number;
  /** Linux: the user's inotify watch limit and the watches this process holds. */
  inotify: { limit: number | null; inUse: number | null };
  /** The runner's process; null when not running. */
  memory: { rssBytes: number; heapUsedBytes: number } | null;
  throttle: GateStats | null;
  priority: PriorityState | null;
}

/** The running background: watching, schedules, throttling. */
export interface Background {
  /** The gate crawls await before each unit of work (see docs/LIVE.md for where it is threaded in). */
  readonly gate: CrawlGate;
  status(): BackgroundStatus;
  /** Call on every search/suggest request: crawls hold their work for `quietMs`. */
  noteUserActivity(): void;
  /** Pause one source (persisted in `sources.paused`) or everything (persisted in `settings`). */
  pause(sourceId?: number): void;
  resume(sourceId?: number): void;
  isPaused(): boolean;
  /** Change a live setting (persisted) and apply it. */
  configure(patch: Partial<Omit<LiveSettingValues, 'paused'>>): void;
  /** Apply every pending change now; resolves when the index has them (tests, benchmarks). */
  settle(): Promise<void>;
  /** Called when a source's watch state changes. Returns the unsubscribe function. */
  onStatus(cb: (s: BackgroundStatus) => void): () => void;
  /** Stop watching and scheduling, stop running crawls (cleanly) and wait for them. Idempotent. */
  stop(): Promise<void>;
}

/** What a change to a source must re-arm its watch for (not schedule or ranking weights). */
function watchSignature(s: ContentSource): string {
  const { schedule: _s, weights: _w, ...rest } = s.settings;
  return JSON.stringify([s.startAddresses, s.rules, rest]);
}

/** The incremental cadence of a polled source: its own schedule or the poll cadence, whichever is shorter. */
function pollEvery(s: ContentSource, pollMinutes: number): number {
  const own = s.settings.schedule?.incrementalMinutes;
  return typeof own === 'number' && own > 0 ? Math.min(own, pollMinutes) : pollMinutes;
}

/**
 * Start watching and scheduling for every source of the service: folder sources are watched
 * (falling back to periodic incremental crawls when they cannot be), scheduled crawls run when
 * due, crawls are throttled while the user searches. Resolves once every watch is armed.
 *
 * Contract: per-source pause (`sources.paused`) and global pause (`settings` key `live.paused`)
 * are honoured and persist; sources added, changed or removed — through this service or by another
 * process on the same data directory — are picked up within `refreshMs`. The service stays usable
 * after `stop()`; closing it is the caller's.
 */
export async function startBackground(
  service: TrawlService,
  opts: BackgroundOptions = {},
): Promise<Background> {
  const clock = opts.clock ?? systemClock;
  const settings = new LiveSettings(service.db);
  const history = new CrawlHistory(service.db);
  const stored = settings.all();
  const conf = {
    watchBudget: opts.watchBudget ?? stored.watchBudget,
    pollMinutes: opts.pollMinutes ?? stored.pollMinutes,
    cpuBudget: opts.cpuBudget ?? stored.cpuBudget,
    quietMs: opts.quietMs ?? stored.quietMs,
  };
  const limit = inotifyWatchLimit();
  const budget = new WatchBudget(
    limit ? Math.min(conf.watchBudget, Math.floor(limit * 0.75)) : conf.watchBudget,
  );
  const gate = new CrawlGate({ clock, quietMs: conf.quietMs, cpuBudget: conf.cpuBudget });
  const priority = new ThreadPriority(opts.priority ?? 'threads');
  const onError = opts.onError ?? (() => {});
  const monitors = new Map<number, { monitor: SourceMonitor; signature: string; started: Promise<void> }>();
  const statusListeners = new Set<(s: BackgroundStatus) => void>();
  const watchEnabled = opts.watch ?? true;
  let stopped = false;
  let syncing: Promise<void> = Promise.resolve();
  let refreshTimer: TimerHandle | null = null;
  let dataVersion = service.db.pragma('data_version', { simple: true }) as number;

  // Crawls yield to the gate between items. User activity is noted by the transports that carry a
  // person's typing (web shell, Electron, daemon), not by every internal search.
  service.setCrawlGate(gate);

  const globallyPaused = () => settings.get('paused');

  const scheduler = new CrawlScheduler(service, {
    clock,
    history,
    isPaused: globallyPaused,
    pollMinutes: (s) => {
      const m = monitors.get(s.id)?.monitor;
      return s.kind !== 'http' && (!m || m.state === 'polling' || !watchEnabled) ? conf.pollMinutes : null;
    },
    retryMs: opts.retryMs,
    onError: (id, e) => onError(e, id),
  });

  const emitStatus = () => {
    if (statusListeners.size === 0) return;
    const st = status();
    for (const cb of statusListeners) {
      try {
        cb(st);
      } catch {}
    }
  };

  const sync = (): Promise<void> => {
    syncing = syncing.then(async () => {
      if (stopped) return;
      const catchUp = opts.catchUp ?? true;
      const paused = globallyPaused();
      const sources = service.listSources();
      const wanted = new Map(sources.filter((s) => !paused && !s.paused).map((s) => [s.id, s]));
      for (const [id, m] of monitors) {
        const s = wanted.get(id);
        if (!s || m.signature !== watchSignature(s)) {
          monitors.delete(id);
          await m.monitor.stop();
        }
      }
      history.prune(sources.map((s) => s.id));
      const starts: Promise<void>[] = [];
      for (const s of wanted.values()) {
        if (monitors.has(s.id) || !watchEnabled) continue;
        const monitor = new SourceMonitor(
          s,
          {
            service,
            db: service.db,
            dataDir: service.dataDir,
            clock,
            history,
            budget,
            mounts: opts.mounts ?? readMounts,
            factory: opts.watchFactory,
            batch: opts.batch,
            coalesce: opts.coalesce,
            rootCheckMs: opts.rootCheckMs ?? 1000,
            onStateChange: () => {
              scheduler.poke();
              emitStatus();
            },
            onError: (e) => onError(e, s.id),
          },
          limit,
        );
        // A source that never completed a crawl gets its first crawl from the scheduler instead.
        const crawled = history.times(s.id).lastDone.incremental != null;
        const started = monitor.start({ catchUp: catchUp && crawled }).catch((e) => onError(e, s.id));
        monitors.set(s.id, { monitor, signature: watchSignature(s), started });
        starts.push(started);
      }
      await Promise.all(starts);
      scheduler.poke();
      emitStatus();
    });
    return syncing;
  };

  const refresh = () => {
    refreshTimer = clock.setTimeout(() => {
      if (stopped) return;
      const v = service.db.pragma('data_version', { simple: true }) as number;
      if (v !== dataVersion) {
        dataVersion = v;
        void sync();
      }
      refresh();
    }, opts.refreshMs ?? 5000);
  };

  const offSources = service.on('sources-changed', () => void sync());
  let priorityAt = -Infinity;
  const offProgress = service.on('progress', () => {
    // new filter workers start at the main thread's priority: catch them, at most every 2 s
    if (clock.now() - priorityAt < 2000) return;
    priorityAt = clock.now();
    priority.apply();
  });
  let inotifyInUse: { at: number; n: number | null } = { at: -Infinity, n: null };

  function inotifyInUseCached(): number | null {
    if (clock.now() - inotifyInUse.at > 5000) inotifyInUse = { at: clock.now(), n: inotifyWatchesInUse() };
    return inotifyInUse.n;
  }

  function status(): BackgroundStatus {
    const plans = new Map(scheduler.plan().map((p) => [p.sourceId, p]));
    const paused = globallyPaused();
    let watches = 0;
    const sources = service.listSources().map((s): LiveSourceStatus => {
      const m = monitors.get(s.id)?.monitor;
      const plan = plans.get(s.id);
      const w = m ? m.watchCount(true) : 0;
      watches += w;
      const state: LiveState =
        paused || s.paused ? 'paused' : m ? m.state : watchEnabled ? 'starting' : 'polling';
      const reason =
        paused && !s.paused
          ? 'all indexing is paused'
          : s.paused
            ? null
            : m
              ? m.reason
              : watchEnabled
                ? null
                : 'watching is off';
      return {
        sourceId: s.id,
        name: s.name,
        state,
        reason,
        watches: w,
        pollMinutes: state === 'polling' ? pollEvery(s, conf.pollMinutes) : null,
        pendingChanges: m?.pending() ?? 0,
        liveUpdates: m?.updates ?? 0,
        lastUpdate: m?.lastUpdate ?? null,
        nextIncrementalAt: state === 'paused' ? null : (plan?.nextIncrementalAt ?? null),
        nextFullAt: state === 'paused' ? null : (plan?.nextFullAt ?? null),
        crawling: plan?.running ?? null,
      };
    });
    const mem = process.memoryUsage();
    return {
      running: true,
      paused,
      sources,
      watches,
      watchBudget: budget.limit,
      inotify: { limit, inUse: inotifyInUseCached() },
      memory: { rssBytes: mem.rss, heapUsedBytes: mem.heapUsed },
      throttle: gate.stats(),
      priority: priority.state(),
    };
  }

  priority.apply();
  await sync();
  if (opts.schedule ?? true) scheduler.start();
  refresh();

  return {
    gate,
    status,
    noteUserActivity: () => gate.noteUserActivity(),
    pause(sourceId) {
      if (sourceId != null) {
        service.pause(sourceId);
        return;
      }
      settings.set('paused', true);
      service.stopCrawl();
      void sync();
    },
    resume(sourceId) {
      if (sourceId != null) {
        service.resume(sourceId);
        return;
      }
      settings.set('paused', false);
      void sync();
    },
    isPaused: globallyPaused,
    configure(patch) {
      for (const [k, v] of Object.entries(patch) as [keyof LiveSettingValues, never][]) {
        if (v === undefined) continue;
        settings.set(k, v);
        (conf as Record<string, unknown>)[k] = v;
      }
      gate.configure({ quietMs: conf.quietMs, cpuBudget: conf.cpuBudget });
      budget.limit = limit ? Math.min(conf.watchBudget, Math.floor(limit * 0.75)) : conf.watchBudget;
      scheduler.poke();
      emitStatus();
    },
    async settle() {
      await syncing;
      await Promise.all([...monitors.values()].map((m) => m.started));
      await Promise.all([...monitors.values()].map((m) => m.monitor.settle()));
    },
    onStatus(cb) {
      statusListeners.add(cb);
      return () => statusListeners.delete(cb);
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      offSources();
      offProgress();
      if (refreshTimer) clock.clearTimeout(refreshTimer);
      scheduler.stop();
      await syncing.catch(() => undefined);
      await Promise.allSettled([...monitors.values()].map((m) => m.monitor.stop()));
      monitors.clear();
      service.stopCrawl();
      await scheduler.settled();
      priority.restore();
      service.setCrawlGate(null);
      statusListeners.clear();
    },
  };
}

/**
 * The live status as the database alone tells it, for `trawl status` when no runner (daemon, app)
 * is reachable: global and per-source pause, and when each scheduled crawl falls due.
 */
export function offlineLiveStatus(service: TrawlService, clock: Clock = systemClock): BackgroundStatus {
  const settings = new LiveSettings(service.db);
  const paused = settings.get('paused');
  const scheduler = new CrawlScheduler(service, {
    clock,
    history: new CrawlHistory(service.db),
    isPaused: () => paused,
    pollMinutes: () => null,
  });
  const plans = new Map(scheduler.plan().map((p) => [p.sourceId, p]));
  return {
    running: false,
    paused,
    sources: service.listSources().map((s) => {
      const plan = plans.get(s.id);
      const off = paused || s.paused;
      return {
        sourceId: s.id,
        name: s.name,
        state: off ? 'paused' : 'off',
        reason:
          paused && !s.paused
            ? 'all indexing is paused'
            : off
              ? null
              : 'no background runner: start `trawl daemon` or the app',
        watches: 0,
        pollMinutes: null,
        pendingChanges: 0,
        liveUpdates: 0,
        lastUpdate: null,
        nextIncrementalAt: off ? null : (plan?.nextIncrementalAt ?? null),
        nextFullAt: off ? null : (plan?.nextFullAt ?? null),
        crawling: plan?.running ?? null,
      };
    }),
    watches: 0,
    watchBudget: settings.get('watchBudget'),
    inotify: { limit: inotifyWatchLimit(), inUse: null },
    memory: null,
    throttle: null,
    priority: null,
  };
}
