/**
 * Reading POSIX ACLs with `getfacl` (package `acl`) in as few processes as possible: one recursive
 * `getfacl -R --skip-base` lists every item below a folder that carries an extended ACL (20,000
 * files in ~50 ms), single folders are fetched together, and files that changed since are fetched
 * per folder. Never one process per file.
 */
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { PosixAcl } from './posix-permissions.js';

/**
 * Parse `getfacl --numeric --no-effective --absolute-names` output into the access ACL of each
 * listed path (default ACLs are ignored: they govern new children, not access). getfacl escapes
 * only control characters and backslashes (`\012`, `\\`); other bytes, UTF-8 included, appear as
 * they are. Entries with names instead of numbers are skipped.
 */
export function parseGetfacl(out: string): Map<string, PosixAcl> {
  const result = new Map<string, PosixAcl>();
  let current: { path: string; acl: PosixAcl } | null = null;
  const flush = (): void => {
    if (current) result.set(current.path, current.acl);
    current = null;
  };
  for (const line of out.split('\n')) {
    if (line.startsWith('# file: ')) {
      flush();
      current = { path: unescapeName(line.slice(8)), acl: { users: [], groupObj: 0, groups: [], mask: 7 } };
      continue;
    }
    if (!current || line === '' || line.startsWith('#') || line.startsWith('default:')) continue;
    const m = /^(user|group|mask|other):([^:]*):([r-][w-][x-])/.exec(line);
    if (!m) continue;
    const bits = (m[3][0] === 'r' ? 4 : 0) | (m[3][1] === 'w' ? 2 : 0) | (m[3][2] === 'x' ? 1 : 0);
    const [, tag, qualifier] = m;
    const acl: PosixAcl = (current as { acl: PosixAcl }).acl;
    if (tag === 'mask') acl.mask = bits;
    else if (tag === 'group' && qualifier === '') acl.groupObj = bits;
    else if (qualifier !== '' && /^\d+$/.test(qualifier)) {
      if (tag === 'user') acl.users.push([Number(qualifier), bits]);
      else if (tag === 'group') acl.groups.push([Number(qualifier), bits]);
    }
  }
  flush();
  return result;
}

function unescapeName(s: string): string {
  return s.replace(/\\(\\|[0-7]{3})/g, (_, g: string) =>
    g === '\\' ? '\\' : String.fromCharCode(parseInt(g, 8)),
  );
}

/** Options for {@link AclStore}. */
export interface AclStoreOptions {
  /** The `getfacl` executable (default `getfacl` on PATH). */
  command?: string;
  /**
   * Coarseness of file-system timestamps: an answer fetched less than this long after an item's
   * ctime might predate the change, so it is not used for that item (default 50 ms).
   */
  slackMs?: number;
  /** Paths per getfacl process (default 800). */
  chunk?: number;
  /** Called once when getfacl cannot be run (ACLs are then treated as absent). */
  onUnavailable?: (reason: string) => void;
}

const BASE_ARGS = ['--skip-base', '--absolute-names', '--numeric', '--no-effective'];
const ENV = { ...process.env, LC_ALL: 'C' };

/**
 * What getfacl said about paths, and when. Answers "what is this path's extended ACL?" only with
 * results fetched after the path's ctime (a permission change moves ctime), so an answer is never
 * older than the permissions it describes.
 *
 * Three ways in: `snapshotSync(dir)` (recursive, one process, covers everything below `dir`),
 * `fetchSync(paths)` (one process for a set of paths), and the asynchronous `get()` used for files,
 * which fetches a whole folder per process. Never throws: when getfacl is missing or fails, paths
 * read as having no extended ACL (and `onUnavailable` is told once).
 */
export class AclStore {
  /** Paths with an extended ACL, from snapshots and fetches. */
  private readonly acls = new Map<string, PosixAcl>();
  /** When each snapshot root's subtree was listed. */
  private readonly snapshots = new Map<string, number>();
  /** When single paths were fetched (pending asynchronous fetches carry their promise). */
  private readonly singles = new Map<string, { at: number; pending?: Promise<void> }>();
  private readonly command: string;
  readonly slackMs: number;
  private readonly chunk: number;
  private unavailable: string | null = null;
  private queue: string[] = [];
  private queued: Promise<void> | null = null;

  /** getfacl processes started so far (tests and benchmarks). */
  processes = 0;
  /** Recursive listings (`snapshotSync`) among them. */
  recursiveListings = 0;

  constructor(private readonly opts: AclStoreOptions = {}) {
    this.command = opts.command ?? 'getfacl';
    this.slackMs = opts.slackMs ?? 50;
    this.chunk = opts.chunk ?? 800;
  }

  /**
   * The ACL of `p` (null: none) if known from a fetch newer than `ctimeMs`; undefined when not.
   * `recentMs` also accepts an older answer about `p` itself fetched within that many ms (for
   * folders whose ctime moves with every file created in them); never an older listing of a folder
   * above `p`, in which `p` may not even have existed.
   */
  lookup(p: string, ctimeMs: number, recentMs = 0): PosixAcl | null | undefined {
    const now = Date.now();
    const single = this.singles.get(p);
    if (single && !single.pending && (ctimeMs < single.at - this.slackMs || now - single.at < recentMs))
      return this.acls.get(p) ?? null;
    for (let cur = p; ; cur = path.dirname(cur)) {
      const at = this.snapshots.get(cur);
      if (at !== undefined && ctimeMs < at - this.slackMs) return this.acls.get(p) ?? null;
      if (path.dirname(cur) === cur) return undefined;
    }
  }

  /** Whether `dir` itself was listed recursively. */
  hasSnapshot(dir: string): boolean {
    return this.snapshots.has(dir);
  }

  /** Whether a snapshot root lies somewhere below `dir`. */
  hasSnapshotBelow(dir: string): boolean {
    const prefix = dir.endsWith('/') ? dir : `${dir}/`;
    for (const root of this.snapshots.keys()) if (root.startsWith(prefix)) return true;
    return false;
  }

  /** List every extended ACL below `dir` (recursively, symbolic links not followed). */
  snapshotSync(dir: string): void {
    const at = Date.now();
    this.recursiveListings++;
    const out = this.execSync(['-R', '--physical', ...BASE_ARGS, '--', dir]);
    for (const key of [...this.acls.keys()])
      if (key === dir || key.startsWith(dir.endsWith('/') ? dir : `${dir}/`)) this.acls.delete(key);
    this.record(out, []);
    this.snapshots.set(dir, at);
    this.singles.set(dir, { at });
    this.bound();
  }

  /** Fetch these paths (symbolic links followed) in one process. */
  fetchSync(paths: string[]): void {
    if (paths.length === 0) return;
    const at = Date.now();
    for (let i = 0; i < paths.length; i += this.chunk) {
      const part = paths.slice(i, i + this.chunk);
      this.record(this.execSync([...BASE_ARGS, '--', ...part]), part, at);
    }
    this.bound();
  }

  /**
   * The ACL of a file, fetched if the store has no answer newer than `ctimeMs`: with `folder`, the
   * whole folder in one process (unless the file changed within the slack, then it alone, batched
   * with other such files requested in the same turn).
   */
  async get(p: string, ctimeMs: number, opts: { folder?: boolean } = {}): Promise<PosixAcl | null> {
    const known = this.lookup(p, ctimeMs);
    if (known !== undefined) return known;
    const pending = this.singles.get(p)?.pending;
    if (pending) {
      await pending;
      return this.acls.get(p) ?? null;
    }
    let paths = [p];
    if (opts.folder && ctimeMs < Date.now() - this.slackMs) {
      try {
        paths = fs.readdirSync(path.dirname(p)).map((n) => path.join(path.dirname(p), n));
        if (!paths.includes(p)) paths.push(p);
        paths = paths.filter((q) => q === p || !this.singles.get(q)?.pending);
      } catch {
        paths = [p];
      }
    }
    await this.fetchAsync(paths);
    return this.acls.get(p) ?? null;
  }

  /** Forget everything. */
  clear(): void {
    this.acls.clear();
    this.snapshots.clear();
    this.singles.clear();
  }

  private fetchAsync(paths: string[]): Promise<void> {
    const at = Date.now();
    this.queue.push(...paths);
    if (!this.queued) {
      this.queued = new Promise<void>((resolve) => setImmediate(resolve)).then(async () => {
        const batch = [...new Set(this.queue)];
        this.queue = [];
        this.queued = null;
        for (let i = 0; i < batch.length; i += this.chunk) {
          const part = batch.slice(i, i + this.chunk);
          this.record(await this.execAsync([...BASE_ARGS, '--', ...part]), part, at);
        }
      });
    }
    const done = this.queued;
    for (const q of paths) this.singles.set(q, { at, pending: done });
    return done.then(() => {
      for (const q of paths) if (this.singles.get(q)?.pending === done) this.singles.set(q, { at });
      this.bound();
    });
  }

  private record(out: string, asked: string[], at = Date.now()): void {
    for (const q of asked) {
      this.acls.delete(q);
      this.singles.set(q, { at });
    }
    for (const [k, v] of parseGetfacl(out)) this.acls.set(k, v);
  }

  private bound(): void {
    if (this.singles.size > 200_000) this.singles.clear();
  }

  private failed(code: string | undefined): boolean {
    if (code !== 'ENOENT' && code !== 'EACCES') return false;
    if (!this.unavailable) {
      this.unavailable = `${this.command}: ${code === 'ENOENT' ? 'not installed (package acl)' : 'cannot be run'}`;
      this.opts.onUnavailable?.(this.unavailable);
    }
    return true;
  }

  private execSync(args: string[]): string {
    if (this.unavailable) return '';
    this.processes++;
    try {
      return execFileSync(this.command, args, {
        env: ENV,
        encoding: 'utf8',
        maxBuffer: 256 * 1024 * 1024,
        stdio: ['ignore', 'pipe', 'ignore'],
      });
    } catch (e) {
      const err = e as NodeJS.ErrnoException & { stdout?: string };
      if (this.failed(err.code)) return '';
      // Exit status 1 only means some path vanished or could not be read; the rest is listed.
      return typeof err.stdout === 'string' ? err.stdout : '';
    }
  }

  private execAsync(args: string[]): Promise<string> {
    if (this.unavailable) return Promise.resolve('');
    this.processes++;
    return new Promise((resolve) => {
      execFile(
        this.command,
        args,
        { env: ENV, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 },
        (err, stdout) => {
          if (err && this.failed((err as NodeJS.ErrnoException).code)) resolve('');
          else resolve(stdout);
        },
      );
    });
  }
}
