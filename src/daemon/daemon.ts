/**
 * `trawl daemon`: one engine, many users. Listens on one Unix socket per user (user-sockets.ts)
 * and answers each connection trimmed to the user whose socket it arrived on.
 */
import type { BackgroundStatus } from '../main/core/live/background.js';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { IndexStatus } from '../main/core/api-types.js';
import { emptyCounts } from '../main/core/model.js';
import { visibleAclIds } from '../main/core/security/acl-eval.js';
import type { CurrentUser } from '../main/core/security/security-provider.js';
import type { TrawlService } from '../main/core/service.js';
import type { OpenResult } from '../shared/contract.js';
import { failure, toRpcError, validateRequest, type Result } from '../shared/rpc.js';
import { ADMIN_METHODS, MAX_LINE, requestEnvelope, USER_METHODS, type DaemonMethod } from './protocol.js';
import {
  getentPasswd,
  listenPrivately,
  loginAccounts,
  parsePasswd,
  prepareRuntimeDir,
  provisionUserDir,
  requestDir,
  restrictSocket,
  userSocketPath,
} from './user-sockets.js';

/** Options for {@link TrawlDaemon.start}. */
export interface DaemonOptions {
  service: TrawlService;
  /** Resolves the user behind a uid (uid, every gid, names); see `posixSecurity().userFromUid`. */
  userFromUid: (uid: number) => Promise<CurrentUser>;
  runtimeDir: string;
  /** Who gets a socket at start: `login` (root + uids in UID_MIN..UID_MAX, default) or these uids. */
  accounts?: 'login' | number[];
  /** How often `requests/` is checked for users asking for a socket (ms, default 1000; 0 = never). */
  requestPollMs?: number;
  log?: (line: string) => void;
  /** Called on every search, suggest or preview (background crawls yield to people searching). */
  onQuery?: () => void;
  /** The live runner's status, added to root's `status` answer. */
  liveStatus?: () => BackgroundStatus | null;
}

export type DaemonResponse = Result<unknown> & { id?: number };

/**
 * The multi-user query service. Authentication is the socket: a connection on
 * `users/<uid>/trawl.sock` can only come from `uid` (or root), because only they can enter that
 * folder. Nothing in a request names a user; extra fields make a request invalid.
 *
 * Contract: every answer is computed with `service.forUser(userFromUid(uid))`, so search, preview,
 * suggest and open are trimmed to that user; `status` is reduced to what the user may see (root
 * gets the full status). Never throws for a bad request: it answers an error envelope.
 */
export class TrawlDaemon {
  private readonly servers = new Map<number, net.Server>();
  /** Inode of each socket as created: a user may replace what is in their folder. */
  private readonly inodes = new Map<number, number>();
  private readonly connections = new Set<net.Socket>();
  private pollTimer: ReturnType<typeof setInterval> | null = null;
  private closed = false;

  private constructor(private readonly opts: DaemonOptions) {}

  /** Prepare the runtime directory and open the sockets of the initial accounts. */
  static async start(opts: DaemonOptions): Promise<TrawlDaemon> {
    if (process.platform === 'win32')
      throw new Error('trawl daemon needs Unix sockets: not available on Windows yet (see docs/SECURITY.md)');
    const d = new TrawlDaemon(opts);
    prepareRuntimeDir(opts.runtimeDir);
    await d.refreshAccounts();
    const every = opts.requestPollMs ?? 1000;
    if (every > 0) {
      d.pollTimer = setInterval(() => void d.serveRequests(), every);
      d.pollTimer.unref();
    }
    return d;
  }

  /** The socket path of `uid`. */
  socketPath(uid: number): string {
    return userSocketPath(this.opts.runtimeDir, uid);
  }

  /** Uids with an open socket. */
  users(): number[] {
    return [...this.servers.keys()].sort((a, b) => a - b);
  }

  /** Open sockets for the configured accounts that have none (idempotent; call on SIGHUP). */
  async refreshAccounts(): Promise<void> {
    const accounts = this.opts.accounts ?? 'login';
    const list =
      accounts === 'login'
        ? loginAccounts(await getentPasswd())
        : (
            await Promise.all(accounts.map(async (uid) => parsePasswd(await getentPasswd(String(uid)))[0]))
          ).filter(Boolean);
    for (const a of list) {
      try {
        await this.provision(a.uid, a.gid);
      } catch (e) {
        this.opts.log?.(`no socket for uid ${a.uid}: ${(e as Error).message}`);
      }
    }
  }

  /**
   * Make sure `uid` has a listening socket; returns its path. Re-creates it when the user removed
   * or replaced it. Throws when the uid has no account.
   */
  async provision(uid: number, gid?: number): Promise<string> {
    const socketPath = this.socketPath(uid);
    const existing = this.servers.get(uid);
    if (existing && this.isOurSocket(uid)) return socketPath;
    if (existing) await closeServer(existing);
    this.servers.delete(uid);
    this.inodes.delete(uid);
    if (gid === undefined) {
      const account = parsePasswd(await getentPasswd(String(uid)))[0];
      if (!account || account.uid !== uid) throw new Error(`no account with uid ${uid}`);
      gid = account.gid;
    }
    await provisionUserDir(this.opts.runtimeDir, uid, gid);
    const server = net.createServer((socket) => this.serve(uid, socket));
    await listenPrivately(server, socketPath);
    restrictSocket(socketPath, uid, gid);
    this.servers.set(uid, server);
    this.inodes.set(uid, fs.lstatSync(socketPath).ino);
    this.opts.log?.(`listening for uid ${uid} on ${socketPath}`);
    return socketPath;
  }

  /** Whether `uid`'s socket path still is the socket this daemon created. */
  private isOurSocket(uid: number): boolean {
    try {
      const st = fs.lstatSync(this.socketPath(uid));
      return st.isSocket() && st.ino === this.inodes.get(uid);
    } catch {
      return false;
    }
  }

  /** Give a socket to the owner of each file dropped in `requests/`. */
  private async serveRequests(): Promise<void> {
    const dir = requestDir(this.opts.runtimeDir);
    let names: string[];
    try {
      names = fs.readdirSync(dir).slice(0, 100);
    } catch {
      return;
    }
    for (const name of names) {
      const p = path.join(dir, name);
      let uid: number;
      try {
        uid = fs.lstatSync(p).uid;
        fs.unlinkSync(p);
      } catch {
        continue;
      }
      try {
        await this.provision(uid);
      } catch (e) {
        this.opts.log?.(`request from uid ${uid}: ${(e as Error).message}`);
      }
    }
  }

  private serve(uid: number, socket: net.Socket): void {
    this.connections.add(socket);
    socket.on('close', () => this.connections.delete(socket));
    socket.on('error', () => socket.destroy());
    socket.setEncoding('utf8');
    let buffered = '';
    let chain = Promise.resolve();
    socket.on('data', (chunk: string) => {
      buffered += chunk;
      let nl: number;
      while ((nl = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        if (!line.trim()) continue;
        chain = chain
          .then(() => this.answer(uid, line))
          .then((res) => {
            if (!socket.destroyed) socket.write(`${JSON.stringify(res)}\n`);
          });
      }
      if (buffered.length > MAX_LINE) {
        socket.end(
          `${JSON.stringify(failure('BAD_REQUEST', `request line longer than ${MAX_LINE} bytes`))}\n`,
        );
        socket.destroy();
      }
    });
  }

  /** Answer one request line for the user behind `uid`. Never rejects. */
  async answer(uid: number, line: string): Promise<DaemonResponse> {
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch {
      return failure('BAD_REQUEST', 'a request is one JSON object per line');
    }
    const env = requestEnvelope.safeParse(raw);
    const rawId = (raw as { id?: unknown } | null)?.id;
    const id = typeof rawId === 'number' && Number.isSafeInteger(rawId) ? rawId : undefined;
    const withId = (r: Result<unknown>): DaemonResponse => (id === undefined ? r : { id, ...r });
    if (!env.success)
      return withId(failure('BAD_REQUEST', 'a request is {"id"?, "method", "params"?} and nothing else'));
    const method = env.data.method;
    const isUser = (USER_METHODS as readonly string[]).includes(method);
    const isAdmin = (ADMIN_METHODS as readonly string[]).includes(method);
    if (!isUser && !isAdmin)
      return withId(failure('UNKNOWN_METHOD', `unknown method: ${method.slice(0, 100)}`));
    if (isAdmin && uid !== 0) return withId(failure('FORBIDDEN', `${method} is for root only`));
    const checked = validateRequest(method, env.data.params);
    if (!checked.ok) return withId(checked);
    let user: CurrentUser;
    try {
      user = await this.opts.userFromUid(uid);
    } catch (e) {
      return withId(failure('UNAUTHORIZED', `uid ${uid}: ${(e as Error).message}`));
    }
    try {
      return withId({
        ok: true,
        value: this.call(method as DaemonMethod, checked.request, user, uid) ?? null,
      });
    } catch (e) {
      return withId({ ok: false, error: toRpcError(e) });
    }
  }

  private call(method: DaemonMethod, req: unknown, user: CurrentUser, uid: number): unknown {
    const service = this.opts.service;
    const view = service.forUser(user);
    if (method === 'search' || method === 'suggest' || method === 'preview') this.opts.onQuery?.();
    switch (method) {
      case 'search':
        return view.search(req as Parameters<typeof view.search>[0]);
      case 'preview': {
        const r = req as { id: number; query?: string };
        return view.preview(r.id, r.query);
      }
      case 'suggest':
        return view.suggest((req as { prefix: string }).prefix);
      case 'whoami':
        return user;
      case 'status':
        return uid === 0
          ? { ...service.status(), live: this.opts.liveStatus?.() ?? null }
          : trimmedStatus(service, user);
      case 'openItem': {
        const target = view.openItem((req as { id: number }).id);
        const result: OpenResult | null = target ? { ...target, opened: false } : null;
        return result;
      }
      case 'startCrawl': {
        const r = req as { sourceId?: number; mode?: 'full' | 'incremental' };
        service
          .crawl({ sourceId: r.sourceId, mode: r.mode })
          .catch((e: unknown) => this.opts.log?.(`crawl failed: ${(e as Error).message}`));
        return null;
      }
    }
  }

  /** Close every socket and connection (the service stays open: its owner closes it). Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.pollTimer) clearInterval(this.pollTimer);
    for (const c of this.connections) c.destroy();
    await Promise.all([...this.servers.values()].map(closeServer));
    this.servers.clear();
  }
}

function closeServer(server: net.Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

/**
 * The index status as a user may see it: only sources with documents the user may read, counts of
 * those documents only, no crawl counters, rules, data folder or index size (they describe
 * documents the user cannot see).
 */
export function trimmedStatus(service: TrawlService, user: CurrentUser): IndexStatus {
  const db = service.db;
  const visible = '(acl_id IS NULL OR acl_id IN (SELECT value FROM json_each(?)))';
  const ids = JSON.stringify(visibleAclIds(db, user.principals));
  const counts = new Map<number, { n: number; f: number }>();
  for (const r of db
    .prepare(
      `SELECT source_id AS s, count(*) AS n, sum(status = 'failed') AS f FROM documents WHERE ${visible} GROUP BY source_id`,
    )
    .all(ids) as { s: number; n: number; f: number | null }[]) {
    counts.set(r.s, { n: r.n, f: r.f ?? 0 });
  }
  const byType = new Map<number, { ext: string; count: number }[]>();
  for (const r of db
    .prepare(
      `SELECT source_id AS s, ext, count(*) AS count FROM documents WHERE ${visible} GROUP BY source_id, ext ORDER BY count DESC`,
    )
    .all(ids) as { s: number; ext: string; count: number }[]) {
    const list = byType.get(r.s) ?? [];
    if (list.length < 20) list.push({ ext: r.ext, count: r.count });
    byType.set(r.s, list);
  }
  const sources: IndexStatus['sources'] = [];
  for (const s of service.listSources()) {
    const c = counts.get(s.id);
    if (!c) continue;
    const last = service.sourceStats(s.id).lastCrawl;
    sources.push({
      ...s,
      rules: [],
      settings: { ...s.settings, http: undefined, smb: undefined },
      stats: {
        sourceId: s.id,
        documents: c.n,
        failed: c.f,
        byType: byType.get(s.id) ?? [],
        lastCrawl: last ? { ...last, counts: emptyCounts(), error: null } : null,
      },
    });
  }
  return {
    dataDir: '',
    documents: sources.reduce((n, s) => n + s.stats.documents, 0),
    indexBytes: 0,
    sources,
    running: [],
  };
}
