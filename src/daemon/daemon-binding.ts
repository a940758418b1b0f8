/**
 * The contract served by a system-wide `trawl daemon` instead of a local index: what the web shell
 * and the desktop app use when `resolveDaemonSocket` names a daemon (the same rule `trawl search`
 * follows). Searching methods are forwarded over the caller's own socket, so the daemon answers
 * trimmed to the OS user running this process; sources, crawls, rules, the crawl log and
 * credentials belong to the daemon's administrator and are refused here (FORBIDDEN), never
 * answered from a local index.
 */
import type { AppInfo, OpenResult, RequestOf, ResponseOf } from '../shared/contract.js';
import { EventHub } from '../shared/event-hub.js';
import { failure, TrawlError, type Handlers, type Result } from '../shared/rpc.js';
import type { BindingHooks, ServiceBinding } from '../shared/service-binding.js';
import { connectDaemon, type DaemonClient } from './daemon-client.js';
import { USER_METHODS } from './protocol.js';

type UserMethod = (typeof USER_METHODS)[number];

export interface DaemonConnectionOptions {
  /** Opens a connection (default `connectDaemon`, which asks `requests/` for a missing socket). */
  connect?: (socket: string) => Promise<DaemonClient>;
  /** A request unanswered this long fails with ENGINE_UNAVAILABLE and drops the connection (ms, default 30 000). */
  timeoutMs?: number;
}

/**
 * One connection to the daemon's socket for this OS user, opened on first use and re-opened when
 * it breaks (a daemon restart, a dropped socket).
 *
 * Contract: `call` never rejects. A request that fails because the connection died is retried
 * once on a fresh connection (every daemon user method is read-only, so a retry is harmless);
 * when the daemon cannot be reached the answer is ENGINE_UNAVAILABLE naming the socket and why.
 */
export class DaemonConnection {
  private current: Promise<DaemonClient> | null = null;
  private closed = false;

  constructor(
    /** The socket this connection talks to (`users/<own uid>/trawl.sock` of the daemon). */
    readonly socket: string,
    private readonly opts: DaemonConnectionOptions = {},
  ) {}

  /** Sends one user method; resolves with the daemon's envelope or ENGINE_UNAVAILABLE. */
  async call(method: UserMethod, params: unknown): Promise<Result<unknown>> {
    for (let attempt = 0; ; attempt++) {
      if (this.closed) return failure('ENGINE_UNAVAILABLE', 'The connection to the trawl daemon is closed');
      let client: DaemonClient;
      try {
        client = await this.client();
      } catch (error) {
        const why = (error as Error).message;
        const hint = /no such socket|ECONNREFUSED/.test(why) ? ' (is trawl daemon running?)' : '';
        return failure('ENGINE_UNAVAILABLE', `${why}${hint}`);
      }
      const answer = await this.withTimeout(client, client.call(method, params));
      if (answer.ok || answer.error.code !== 'ENGINE_UNAVAILABLE') return answer;
      this.drop(client);
      if (answer.error.message.startsWith('timeout:') || attempt > 0)
        return failure(
          'ENGINE_UNAVAILABLE',
          `The trawl daemon at ${this.socket} is not answering: ${answer.error.message.replace(/^timeout: /, '')}`,
        );
    }
  }

  /** Like {@link call}, typed; rejects with a TrawlError carrying the daemon's error code. */
  async request<M extends UserMethod>(method: M, params: RequestOf<M>): Promise<ResponseOf<M>> {
    const r = await this.call(method, params);
    if (!r.ok) throw new TrawlError(r.error.code, r.error.message);
    return r.value as ResponseOf<M>;
  }

  /** Closes the connection; later calls answer ENGINE_UNAVAILABLE. Idempotent. */
  close(): void {
    this.closed = true;
    const current = this.current;
    this.current = null;
    void current?.then(
      (c) => c.close(),
      () => {},
    );
  }

  private client(): Promise<DaemonClient> {
    if (!this.current) {
      const opening = (this.opts.connect ?? connectDaemon)(this.socket);
      this.current = opening;
      opening.catch(() => {
        if (this.current === opening) this.current = null;
      });
    }
    return this.current;
  }

  /** Forgets `client` if it is still the current connection, and closes it. */
  private drop(client: DaemonClient): void {
    void this.current?.then(
      (c) => {
        if (c === client) this.current = null;
      },
      () => {},
    );
    client.close();
  }

  private withTimeout(client: DaemonClient, answer: Promise<Result<unknown>>): Promise<Result<unknown>> {
    const ms = this.opts.timeoutMs ?? 30_000;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<Result<unknown>>((resolve) => {
      timer = setTimeout(() => {
        resolve(failure('ENGINE_UNAVAILABLE', `timeout: no answer within ${ms} ms`));
        client.close();
      }, ms);
    });
    return Promise.race([answer, late]).finally(() => clearTimeout(timer));
  }
}

/** What the UI is told about a daemon-backed transport (`AppInfo.daemon`). */
export function daemonAppInfo(info: AppInfo, socket: string): AppInfo {
  return { ...info, daemon: { socket } };
}

/**
 * Contract handlers over a daemon: the `bindService` shape, for the web shell and the Electron
 * engine process. `hooks.info` gains `daemon: { socket }` so the UI hides source management.
 *
 * Contract: `search`, `preview`, `suggest`, `whoami`, `status` and `openItem` are the daemon's
 * answers for this process's OS user (nothing in a request can name another user: the contract's
 * strict schemas reject extra fields, and the socket names the caller). `openItem` is re-checked
 * by the daemon, then opened locally with `hooks.openTarget`, as the user. `listSources` lists the
 * sources of the daemon's trimmed `status` (those with documents the user may read). Every method
 * that manages sources, crawls, rules, the log or credentials answers FORBIDDEN; `liveStatus`
 * answers null (no runner here). No events are pushed. `dispose` leaves `connection` open: its
 * creator closes it.
 */
export function bindDaemon(connection: DaemonConnection, hooks: BindingHooks): ServiceBinding {
  const events = new EventHub();
  const info = daemonAppInfo(hooks.info, connection.socket);
  const forward =
    <M extends UserMethod>(method: M) =>
    (request: RequestOf<M>): Promise<ResponseOf<M>> =>
      connection.request(method, request);
  const administered = (what: string) => (): never => {
    throw new TrawlError(
      'FORBIDDEN',
      `${what} are managed by the administrator of the trawl daemon (${connection.socket}); this app searches through it`,
    );
  };
  const sources = administered('Sources');
  const crawls = administered('Crawls');
  const desktopOnly = (): never => {
    throw new TrawlError('UNSUPPORTED', 'Desktop settings exist in the desktop app only');
  };

  const handlers: Handlers = {
    listSources: async () =>
      (await connection.request('status', {})).sources.map(({ stats: _stats, ...source }) => source),
    addSource: sources,
    updateSource: sources,
    removeSource: sources,
    testRules: sources,
    startCrawl: crawls,
    stopCrawl: crawls,
    pause: crawls,
    resume: crawls,
    search: forward('search'),
    preview: forward('preview'),
    suggest: forward('suggest'),
    status: forward('status'),
    liveStatus: () => null,
    log: administered('The crawl log and crawls'),
    whoami: forward('whoami'),
    openItem: async ({ id, action }) => {
      const resolved = await connection.request('openItem', { id, action });
      if (!resolved) return null;
      const opened = hooks.openTarget
        ? await hooks.openTarget(resolved.kind, resolved.target, action)
        : false;
      const result: OpenResult = { kind: resolved.kind, target: resolved.target, opened };
      return result;
    },
    setCredential: administered('Crawl credentials'),
    credentialIds: administered('Crawl credentials'),
    pickFolder: sources,
    hideWindow: () => {
      hooks.hideWindow?.();
      return null;
    },
    appInfo: () => info,
    desktopSettings: desktopOnly,
    updateDesktopSettings: desktopOnly,
  };
  return { handlers, events, dispose() {} };
}
