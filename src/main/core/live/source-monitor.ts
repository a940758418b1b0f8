import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { RuleMatcher } from '../crawl/crawl-rules.js';
import type { Db } from '../index/database.js';
import type { ContentSource, CrawlRecord } from '../model.js';
import { ChangeBatcher, type ChangeBatcherOptions } from './change-batcher.js';
import type { Clock, TimerHandle } from './clock.js';
import type { CrawlHistory } from './crawl-history.js';
import { coalescePaths, type CoalesceOptions } from './path-coalescing.js';
import { RootWatcher, type WatchFactory } from './root-watcher.js';
import { countWatchTargets, networkFsReason } from './watch-feasibility.js';

/** Pending paths beyond this are folded into folders right away. */
const MAX_BACKLOG = 20_000;

/**
 * How a source is kept up to date: `watching` (events applied as they come), `polling` (periodic
 * incremental crawls, with the reason), `unwatched` (web: its schedule only), `paused`, `starting`
 * (watches being armed), `off` (no background runner in this process).
 */
export type LiveState = 'starting' | 'watching' | 'polling' | 'paused' | 'unwatched' | 'off';

/** The last batch of live changes applied to the index. */
export interface LiveUpdate {
  at: number;
  /** Paths the events named. */
  paths: number;
  /** Scopes the partial crawl re-examined after coalescing. */
  scopes: number;
  ms: number;
  status: CrawlRecord['status'];
}

/** A shared cap on file-system watches across sources. */
export class WatchBudget {
  private readonly used = new Map<number, number>();

  constructor(public limit: number) {}

  /** Whether `n` watches for `sourceId` (replacing what it holds) stay within the limit. */
  fits(sourceId: number, n: number): boolean {
    return this.total() - (this.used.get(sourceId) ?? 0) + n <= this.limit;
  }

  /** Watches left for a source (counting what it holds as free). */
  available(sourceId: number): number {
    return Math.max(0, this.limit - this.total() + (this.used.get(sourceId) ?? 0));
  }

  set(sourceId: number, n: number): void {
    this.used.set(sourceId, n);
  }

  release(sourceId: number): void {
    this.used.delete(sourceId);
  }

  total(): number {
    let t = 0;
    for (const n of this.used.values()) t += n;
    return t;
  }
}

/** What a {@link SourceMonitor} needs. */
export interface SourceMonitorDeps {
  service: { updatePaths(sourceId: number, urls: string[]): Promise<CrawlRecord> };
  db: Db;
  dataDir: string;
  clock: Clock;
  history: CrawlHistory;
  budget: WatchBudget;
  mounts: () => string | null;
  factory?: WatchFactory;
  batch?: Omit<ChangeBatcherOptions, 'clock' | 'onFlush'>;
  coalesce?: CoalesceOptions;
  /** How often a missing start folder is looked for (ms). */
  rootCheckMs: number;
  onStateChange: () => void;
  onError: (e: unknown) => void;
}

function fatalReason(e: NodeJS.ErrnoException, limit: number | null): string {
  switch (e.code) {
    case 'ENOSPC':
      return `the system's inotify watch limit${limit ? ` (${limit})` : ''} is reached (raise fs.inotify.max_user_watches to watch again)`;
    case 'EMFILE':
    case 'ENFILE':
      return 'too many open files to watch this folder';
    default:
      return `watching failed: ${e.code ?? e.message}`;
  }
}

/**
 * Keeps one source current: watches its folders (chokidar), turns events into batched partial
 * crawls through `service.updatePaths`, and falls back to polling (scheduled incremental crawls,
 * see the scheduler's `pollMinutes`) when watching is impossible or too expensive.
 *
 * Contract: batches for one source are applied one at a time, in order; events arriving while a
 * batch is applied form the next one. A start folder that disappears is looked for every
 * `rootCheckMs` and watched again (with a catch-up pass) when it is back. `stop()` closes every
 * watch and drops pending events; it waits for a batch being applied.
 */
export class SourceMonitor {
  state: LiveState = 'starting';
  reason: string | null = null;
  lastUpdate: LiveUpdate | null = null;
  updates = 0;
  readonly roots: string[];
  private readonly watchers = new Map<string, RootWatcher>();
  private readonly missing = new Set<string>();
  private readonly batcher: ChangeBatcher;
  private readonly queue = new Set<string>();
  private applying: Promise<void> | null = null;
  private rootTimer: TimerHandle | null = null;
  private count = 0;
  private countedAt = -Infinity;
  private stopped = false;
  private readonly rules: RuleMatcher;

  constructor(
    readonly source: ContentSource,
    private readonly deps: SourceMonitorDeps,
    private readonly inotifyLimit: number | null = null,
  ) {
    this.roots = source.kind === 'file' ? source.startAddresses.map((u) => fileURLToPath(u)) : [];
    this.rules = new RuleMatcher(source);
    this.batcher = new ChangeBatcher({
      clock: deps.clock,
      ...deps.batch,
      onFlush: (paths) => this.enqueue(paths),
    });
  }

  /** Paths and batches not yet applied. */
  pending(): number {
    return this.batcher.size + this.queue.size;
  }

  /** Watches this source holds; `exact` recounts (at most every 5 s: it walks chokidar's tables). */
  watchCount(exact = false): number {
    if (exact && this.deps.clock.now() - this.countedAt > 5000) this.recount();
    return this.count;
  }

  /** Arm the watchers (or decide to poll). `catchUp` re-examines the whole source once afterwards. */
  async start(opts: { catchUp: boolean }): Promise<void> {
    const s = this.source;
    if (s.kind === 'http') return this.setState('unwatched', 'web sites are re-crawled on their schedule');
    if (s.kind !== 'file')
      return this.setState('polling', `${s.kind.toUpperCase()} shares cannot be watched`);
    for (const root of this.roots) {
      const net = networkFsReason(root, this.deps.mounts());
      if (net) return this.setState('polling', net);
    }
    const estimate = await this.estimate();
    if (this.stopped) return;
    if (!this.deps.budget.fits(s.id, estimate)) {
      return this.setState(
        'polling',
        `about ${estimate} folders and files to watch: more than the watch budget leaves (${this.deps.budget.available(s.id)} of ${this.deps.budget.limit})`,
      );
    }
    this.deps.budget.set(s.id, estimate);
    try {
      for (const root of this.roots) await this.arm(root);
    } catch (e) {
      return this.fallback(`watching failed: ${(e as Error).message}`);
    }
    if (this.stopped || this.state === 'polling') return;
    this.recount();
    if (!this.deps.budget.fits(s.id, this.count)) return this.overBudget();
    this.deps.budget.set(s.id, this.count);
    this.updateState();
    if (opts.catchUp) for (const root of this.roots) if (!this.missing.has(root)) this.batcher.add(root);
  }

  /** Apply everything pending now; resolves when it is in the index. */
  async settle(): Promise<void> {
    this.batcher.flush();
    while (this.applying) await this.applying;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.batcher.close();
    this.queue.clear();
    if (this.rootTimer) this.deps.clock.clearTimeout(this.rootTimer);
    this.rootTimer = null;
    await this.closeWatchers();
    this.deps.budget.release(this.source.id);
    await this.applying?.catch(() => undefined);
  }

  /** Count watches exactly (the incremental count drifts with renames chokidar reports late). */
  recount(): number {
    this.countedAt = this.deps.clock.now();
    let n = 0;
    for (const w of this.watchers.values()) n += w.count();
    this.count = n;
    if (this.state === 'watching' || this.state === 'starting') this.deps.budget.set(this.source.id, n);
    return n;
  }

  private async estimate(): Promise<number> {
    const row = this.deps.db
      .prepare(
        `SELECT count(*) AS files, count(DISTINCT rtrim(path, replace(replace(path, '/', ''), '\\', ''))) AS dirs
         FROM documents WHERE source_id = ?`,
      )
      .get(this.source.id) as { files: number; dirs: number };
    if (row.files > 0) return row.files + row.dirs + this.roots.length;
    let n = 0;
    const limit = this.deps.budget.available(this.source.id);
    for (const root of this.roots) {
      n += await countWatchTargets(root, this.rules, limit - n, {
        followSymlinks: this.source.settings.followSymlinks,
        skip: (p) => p === this.deps.dataDir || p.startsWith(this.deps.dataDir + path.sep),
      });
      if (n > limit) break;
    }
    return n;
  }

  private async arm(root: string): Promise<void> {
    try {
      await fs.promises.stat(root);
    } catch {
      this.missing.add(root);
      this.scheduleRootCheck();
      return;
    }
    const w = new RootWatcher({
      root,
      rules: this.rules,
      followSymlinks: this.source.settings.followSymlinks,
      skip: [this.deps.dataDir],
      factory: this.deps.factory,
      onChange: (p) => {
        this.batcher.add(p);
        if (this.batcher.size > MAX_BACKLOG) this.batcher.flush();
      },
      onRootGone: () => void this.rootGone(root),
      onFatal: (e) => void this.fallback(fatalReason(e, this.inotifyLimit)),
      onCount: (d) => this.grow(d),
    });
    this.watchers.set(root, w);
    await w.start();
  }

  private grow(delta: number): void {
    this.count += delta;
    if (delta <= 0 || this.state !== 'watching') return;
    if (
      this.count > this.deps.budget.available(this.source.id) &&
      this.recount() > this.deps.budget.available(this.source.id)
    ) {
      this.overBudget();
    } else {
      this.deps.budget.set(this.source.id, this.count);
    }
  }

  private overBudget(): void {
    void this.fallback(
      `${this.count} folders and files to watch: more than the watch budget leaves (${this.deps.budget.available(this.source.id)} of ${this.deps.budget.limit})`,
    );
  }

  private async fallback(reason: string): Promise<void> {
    if (this.state === 'polling' && this.watchers.size === 0) return;
    this.setState('polling', reason);
    this.deps.budget.release(this.source.id);
    await this.closeWatchers();
  }

  private async rootGone(root: string): Promise<void> {
    const w = this.watchers.get(root);
    this.watchers.delete(root);
    this.missing.add(root);
    this.updateState();
    await w?.close();
    this.recount();
    this.scheduleRootCheck();
  }

  private scheduleRootCheck(): void {
    if (this.rootTimer || this.stopped) return;
    this.rootTimer = this.deps.clock.setTimeout(() => {
      this.rootTimer = null;
      void this.checkRoots();
    }, this.deps.rootCheckMs);
  }

  private async checkRoots(): Promise<void> {
    for (const root of [...this.missing]) {
      if (this.stopped || this.state === 'polling') return;
      let back = false;
      try {
        back = (await fs.promises.stat(root)) != null;
      } catch {}
      if (!back) continue;
      this.missing.delete(root);
      try {
        await this.arm(root);
      } catch (e) {
        this.deps.onError(e);
      }
      this.recount();
      this.batcher.add(root);
    }
    this.updateState();
    if (this.missing.size) this.scheduleRootCheck();
  }

  private updateState(): void {
    if (this.stopped || this.state === 'polling' || this.state === 'unwatched') return;
    if (this.missing.size) {
      this.setState('watching', `${[...this.missing].join(', ')} is missing: watched again when it is back`);
    } else {
      this.setState('watching', null);
    }
  }

  private setState(state: LiveState, reason: string | null): void {
    if (this.state === state && this.reason === reason) return;
    this.state = state;
    this.reason = reason;
    this.deps.onStateChange();
  }

  private async closeWatchers(): Promise<void> {
    const ws = [...this.watchers.values()];
    this.watchers.clear();
    this.count = 0;
    await Promise.allSettled(ws.map((w) => w.close()));
  }

  private enqueue(paths: string[]): void {
    if (this.stopped) return;
    for (const p of paths) this.queue.add(p);
    // A long batch in flight while events pour in: keep the backlog folded, not one entry per path.
    if (this.queue.size > MAX_BACKLOG) {
      const folded = coalescePaths(this.queue, this.roots, this.deps.coalesce);
      this.queue.clear();
      for (const p of folded) this.queue.add(p);
    }
    if (!this.applying) {
      this.applying = this.pump().finally(() => {
        this.applying = null;
      });
    }
  }

  private async pump(): Promise<void> {
    while (this.queue.size && !this.stopped) {
      const paths = this.queue.size;
      const scopes = coalescePaths(this.queue, this.roots, this.deps.coalesce);
      this.queue.clear();
      if (scopes.length === 0) continue;
      const t0 = this.deps.clock.now();
      try {
        const rec = await this.deps.service.updatePaths(
          this.source.id,
          scopes.map((p) => pathToFileURL(p).href),
        );
        this.deps.history.notePartial(this.source.id, rec.id);
        this.updates++;
        this.lastUpdate = {
          at: this.deps.clock.now(),
          paths,
          scopes: scopes.length,
          ms: this.deps.clock.now() - t0,
          status: rec.status,
        };
      } catch (e) {
        this.deps.onError(e);
      }
    }
  }
}
