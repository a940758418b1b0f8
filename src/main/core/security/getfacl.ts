/**
 * Reading POSIX ACLs with `getfacl` (package `acl`), batched: one process per folder of changed
 * items, listing only the entries that carry an extended ACL (`--skip-base`), never one process
 * per file.
 */
import { execFile } from 'node:child_process';
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
  return s.replace(/\\(\\|[0-7]{3})/g, (_, g: string) => (g === '\\' ? '\\' : String.fromCharCode(parseInt(g, 8))));
}

/** Options for {@link GetfaclReader}. */
export interface GetfaclReaderOptions {
  /** The `getfacl` executable (default `getfacl` on PATH). */
  command?: string;
  /**
   * Coarseness of file-system timestamps: a result fetched less than this long after an item's
   * ctime might predate the change, so it is fetched again (default 50 ms).
   */
  slackMs?: number;
  /** Paths per getfacl process (default 800). */
  chunk?: number;
  /** Called once when getfacl cannot be run (ACLs are then treated as absent). */
  onUnavailable?: (reason: string) => void;
}

interface CacheEntry {
  startedAt: number;
  acl: Promise<PosixAcl | null>;
}

/**
 * Answers "what is this path's extended ACL?" with as few getfacl processes as possible.
 *
 * Contract: `get(p, ctimeMs)` resolves with the access ACL of `p` as of a time after `ctimeMs`
 * (so a permission change, which moves ctime, is never answered from an older result), or null
 * when `p` has none. A miss for a file fetches its whole folder in one process (`folder: true`);
 * misses for folders on an item's path are fetched together. Never rejects: when getfacl is
 * missing or fails, the answer is null.
 */
export class GetfaclReader {
  private readonly cache = new Map<string, CacheEntry>();
  private readonly command: string;
  private readonly slackMs: number;
  private readonly chunk: number;
  private unavailable: string | null = null;
  private pending: { path: string; resolve: (m: Map<string, PosixAcl>) => void }[] = [];
  private pendingTimer: ReturnType<typeof setImmediate> | null = null;

  constructor(private readonly opts: GetfaclReaderOptions = {}) {
    this.command = opts.command ?? 'getfacl';
    this.slackMs = opts.slackMs ?? 50;
    this.chunk = opts.chunk ?? 800;
  }

  /** Spawned getfacl processes so far (for tests and benchmarks). */
  processes = 0;

  /** The ACL of one path; `folder` fetches every entry of its folder in the same process. */
  get(p: string, ctimeMs: number, opts: { folder?: boolean } = {}): Promise<PosixAcl | null> {
    const hit = this.cache.get(p);
    if (hit && ctimeMs < hit.startedAt - this.slackMs) return hit.acl;
    if (this.cache.size > 200_000) this.cache.clear();
    if (opts.folder && ctimeMs < Date.now() - this.slackMs) return this.fetchFolder(p);
    return this.fetchSoon(p);
  }

  /** Forget every cached answer. */
  clear(): void {
    this.cache.clear();
  }

  private fetchFolder(p: string): Promise<PosixAcl | null> {
    const dir = path.dirname(p);
    let names: string[];
    try {
      names = fs.readdirSync(dir);
    } catch {
      return this.fetchSoon(p);
    }
    const startedAt = Date.now();
    const paths = names.map((n) => path.join(dir, n));
    if (!paths.includes(p)) paths.push(p);
    const all = this.run(paths);
    for (const q of paths) this.cache.set(q, { startedAt, acl: all.then((m) => m.get(q) ?? null) });
    return this.cache.get(p)!.acl;
  }

  /** Queue a single path; every path queued in the same turn goes to one process. */
  private fetchSoon(p: string): Promise<PosixAcl | null> {
    const startedAt = Date.now();
    const acl = new Promise<Map<string, PosixAcl>>((resolve) => {
      this.pending.push({ path: p, resolve });
      if (!this.pendingTimer) {
        this.pendingTimer = setImmediate(() => {
          const batch = this.pending;
          this.pending = [];
          this.pendingTimer = null;
          const done = this.run([...new Set(batch.map((b) => b.path))]);
          for (const b of batch) void done.then(b.resolve);
        });
      }
    }).then((m) => m.get(p) ?? null);
    this.cache.set(p, { startedAt, acl });
    return acl;
  }

  private async run(paths: string[]): Promise<Map<string, PosixAcl>> {
    const out = new Map<string, PosixAcl>();
    if (this.unavailable) return out;
    for (let i = 0; i < paths.length; i += this.chunk) {
      const part = paths.slice(i, i + this.chunk);
      const text = await this.exec(part);
      for (const [k, v] of parseGetfacl(text)) out.set(k, v);
    }
    return out;
  }

  private exec(paths: string[]): Promise<string> {
    this.processes++;
    return new Promise((resolve) => {
      execFile(
        this.command,
        ['--skip-base', '--absolute-names', '--numeric', '--no-effective', '--', ...paths],
        { maxBuffer: 64 * 1024 * 1024, env: { ...process.env, LC_ALL: 'C' }, encoding: 'utf8' },
        (err, stdout) => {
          const code = (err as NodeJS.ErrnoException | null)?.code;
          if (code === 'ENOENT' || code === 'EACCES') {
            if (!this.unavailable) {
              this.unavailable = `${this.command}: ${code === 'ENOENT' ? 'not installed (package acl)' : 'cannot be run'}`;
              this.opts.onUnavailable?.(this.unavailable);
            }
            resolve('');
            return;
          }
          // Exit status 1 only means some path vanished; the others are still listed.
          resolve(stdout);
        },
      );
    });
  }
}
