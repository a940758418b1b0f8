import path from 'node:path';
import { watch as chokidarWatch, type ChokidarOptions, type FSWatcher } from 'chokidar';
import type { RuleMatcher } from '../crawl/crawl-rules.js';

/** Creates a chokidar watcher; injectable so tests can count or fail watches. */
export type WatchFactory = (paths: string | string[], options: ChokidarOptions) => FSWatcher;

/** Errors after which a watcher cannot be trusted to see every change. */
const FATAL_CODES = new Set(['ENOSPC', 'EMFILE', 'ENFILE', 'ENOMEM']);

/** Options for {@link RootWatcher}. */
export interface RootWatcherOptions {
  /** The folder (or file) to watch: a start address as a native path. */
  root: string;
  rules: RuleMatcher;
  followSymlinks: boolean;
  /** Folders never watched (the data directory). */
  skip: string[];
  /** A path under the root was added, changed or removed (files and folders). */
  onChange: (p: string) => void;
  /** The root itself was removed (or renamed away). */
  onRootGone: () => void;
  /** The watcher hit a limit (`ENOSPC` = inotify watches, `EMFILE`…) and stopped being complete. */
  onFatal: (err: NodeJS.ErrnoException) => void;
  /** The number of watched paths changed by `delta`. */
  onCount?: (delta: number) => void;
  factory?: WatchFactory;
}

function isUnder(p: string, dir: string): boolean {
  return p === dir || p.startsWith(dir.endsWith(path.sep) ? dir : dir + path.sep);
}

/**
 * Watches one start address with chokidar, applying the source's crawl rules in chokidar's
 * `ignored` so excluded folders are never watched at all.
 *
 * Contract: `start()` resolves once the initial scan is done (every included folder and file is
 * watched), or when the watcher is closed before that; no events for what already existed. After `onRootGone` or `onFatal` the
 * watcher is useless: the owner closes it (and re-arms later). `close()` is idempotent.
 */
export class RootWatcher {
  private watcher: FSWatcher | null = null;
  private closed = false;
  private onClose: (() => void) | null = null;
  private readonly ruleRoot: string;

  constructor(private readonly opts: RootWatcherOptions) {
    this.ruleRoot = opts.root.replace(/\\/g, '/');
  }

  /** Whether chokidar should leave `p` alone (rules, data directory). */
  ignored(p: string, stats?: { isDirectory(): boolean }): boolean {
    const { root, rules, skip } = this.opts;
    if (skip.some((d) => isUnder(p, d))) return true;
    if (p === root || !isUnder(p, root)) return false;
    const target = p.replace(/\\/g, '/');
    if (stats) return !rules.decide(target, this.ruleRoot, stats.isDirectory()).included;
    // Without stats chokidar asks again with them: ignore now only what no reading would include.
    return (
      !rules.decide(target, this.ruleRoot, false).included &&
      !rules.decide(target, this.ruleRoot, true).included
    );
  }

  start(): Promise<void> {
    const factory = this.opts.factory ?? chokidarWatch;
    const w = factory(this.opts.root, {
      ignoreInitial: true,
      persistent: true,
      followSymlinks: this.opts.followSymlinks,
      ignorePermissionErrors: true,
      atomic: true,
      ignored: (p: string, stats?: { isDirectory(): boolean }) => this.ignored(p, stats),
    });
    this.watcher = w;
    w.on('all', (event, p) => {
      if (this.closed) return;
      if (event === 'add' || event === 'addDir') this.opts.onCount?.(1);
      else if (event === 'unlink' || event === 'unlinkDir') this.opts.onCount?.(-1);
      if (event === 'unlinkDir' && p === this.opts.root) {
        // Closing chokidar from inside this event leaks an fs.watch handle: let it finish first.
        setImmediate(() => this.opts.onRootGone());
        return;
      }
      if (isUnder(p, this.opts.root)) this.opts.onChange(p);
    });
    w.on('error', (err: unknown) => {
      const e = err as NodeJS.ErrnoException;
      if (!this.closed && e && FATAL_CODES.has(e.code ?? '')) setImmediate(() => this.opts.onFatal(e));
    });
    return new Promise((resolve) => {
      w.once('ready', () => resolve());
      this.onClose = resolve;
    });
  }

  /** Paths watched under the root (folders and files, the root included), counted exactly. */
  count(): number {
    if (!this.watcher) return 0;
    let n = 0;
    const watched = this.watcher.getWatched();
    for (const [dir, children] of Object.entries(watched)) {
      if (isUnder(dir, this.opts.root)) n += children.length;
      else if (children.some((c) => path.join(dir, c) === this.opts.root)) n += 1;
    }
    return n;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.onClose?.();
    await this.watcher?.close();
    this.watcher = null;
  }
}
