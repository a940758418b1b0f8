/**
 * Hosts the engine in a separate process (Electron `utilityProcess` in the app; anything with the
 * same message interface in tests): forwards contract calls, relays events, answers the engine's
 * credential requests from the vault, and restarts the engine if it dies. Calls pending when it
 * dies resolve with ENGINE_UNAVAILABLE.
 */
import {
  isEventName,
  methodNames,
  type AppInfo,
  type EventName,
  type MethodName,
} from '../shared/contract.js';
import { failure, TrawlError, type Handlers, type Result } from '../shared/rpc.js';
import { resolveDaemonSocket } from '../daemon/daemon-client.js';
import type { CredentialVault } from './credential-vault.js';
import type { FromEngine, ToEngine } from './engine-protocol.js';

/** The engine process as the host sees it (Electron's UtilityProcess has this shape). */
export interface EngineChild {
  postMessage(message: ToEngine): void;
  on(event: 'message', listener: (message: FromEngine) => void): unknown;
  on(event: 'exit', listener: (code: number) => void): unknown;
  kill(): boolean;
}

export interface EngineHostOptions {
  fork(): EngineChild;
  dataDir: string;
  /** A `trawl daemon` socket: the engine searches through it instead of opening `dataDir` ({@link desktopDaemonSocket}). */
  daemon?: string | null;
  info: AppInfo;
  vault: Pick<CredentialVault, 'get' | 'ids'>;
  onEvent(event: EventName, payload: unknown): void;
  /** Called when the engine fails to start or dies; the host restarts it after `restartDelayMs`. */
  onProblem?(message: string): void;
  restartDelayMs?: number;
}

export interface EngineHost {
  call(method: MethodName, request: unknown): Promise<Result<unknown>>;
  /** Contract handlers that forward to the engine; `local` replaces the ones main serves itself. */
  handlers(local: Partial<Handlers>): Handlers;
  /** Asks the engine to close the index cleanly, then ends the process. Idempotent. */
  close(timeoutMs?: number): Promise<void>;
}

/** Methods main serves itself for a local index only; with a daemon they go to the engine, which refuses them. */
export const LOCAL_INDEX_ONLY = [
  'setCredential',
  'credentialIds',
  'pickFolder',
] as const satisfies readonly MethodName[];

/**
 * The `trawl daemon` socket the desktop app searches through, or null for its own index in
 * `dataDir`. The rule of `trawl search`: `--daemon PATH` on the app's command line, else
 * `TRAWL_DAEMON` (`off` forces the own index), else the system daemon's socket for this OS user
 * when it exists and `dataDir` holds no index of its own.
 */
export function desktopDaemonSocket(input: {
  argv: readonly string[];
  env: NodeJS.ProcessEnv;
  dataDir: string;
  uid?: number;
  defaultRuntimeDir?: string;
}): string | null {
  const i = input.argv.indexOf('--daemon');
  const flag =
    i !== -1
      ? input.argv[i + 1]
      : input.argv.find((a) => a.startsWith('--daemon='))?.slice('--daemon='.length);
  return resolveDaemonSocket({ ...input, flag });
}

export function createEngineHost(opts: EngineHostOptions): EngineHost {
  let child: EngineChild | null = null;
  let ready: Promise<boolean> = Promise.resolve(false);
  let nextId = 1;
  const pending = new Map<number, (r: Result<unknown>) => void>();
  let closing: Promise<void> | null = null;
  let closedResolve: (() => void) | null = null;
  let restartTimer: ReturnType<typeof setTimeout> | null = null;

  const failPending = (message: string) => {
    for (const resolve of pending.values()) resolve(failure('ENGINE_UNAVAILABLE', message));
    pending.clear();
  };

  const start = () => {
    const c = opts.fork();
    child = c;
    let markReady: (ok: boolean) => void = () => {};
    ready = new Promise((resolve) => (markReady = resolve));
    c.on('message', (msg: FromEngine) => {
      switch (msg.type) {
        case 'ready':
          markReady(true);
          return;
        case 'fatal':
          markReady(false);
          opts.onProblem?.(`The search engine could not start: ${msg.message}`);
          failPending(msg.message);
          return;
        case 'result':
          pending.get(msg.id)?.(msg.result);
          pending.delete(msg.id);
          return;
        case 'event':
          if (isEventName(msg.event)) opts.onEvent(msg.event, msg.payload);
          return;
        case 'credential-get':
          void (async () => {
            try {
              if (msg.id === null)
                c.postMessage({
                  type: 'credential',
                  reqId: msg.reqId,
                  secret: null,
                  ids: await opts.vault.ids(),
                });
              else
                c.postMessage({ type: 'credential', reqId: msg.reqId, secret: await opts.vault.get(msg.id) });
            } catch {
              c.postMessage({ type: 'credential', reqId: msg.reqId, secret: null });
            }
          })();
          return;
        case 'closed':
          closedResolve?.();
          return;
      }
    });
    c.on('exit', (code: number) => {
      if (child !== c) return;
      child = null;
      markReady(false);
      failPending(`The search engine stopped (exit code ${code})`);
      closedResolve?.();
      if (!closing) {
        opts.onProblem?.(`The search engine stopped (exit code ${code}); restarting`);
        restartTimer = setTimeout(start, opts.restartDelayMs ?? 1000);
      }
    });
    c.postMessage({
      type: 'init',
      dataDir: opts.dataDir,
      info: opts.info,
      ...(opts.daemon ? { daemon: opts.daemon } : {}),
    });
  };

  start();

  const call = async (method: MethodName, request: unknown): Promise<Result<unknown>> => {
    if (closing) return failure('ENGINE_UNAVAILABLE', 'The app is quitting');
    const ok = await ready;
    const c = child;
    if (!ok || !c) return failure('ENGINE_UNAVAILABLE', 'The search engine is not running');
    const id = nextId++;
    return new Promise((resolve) => {
      pending.set(id, resolve);
      c.postMessage({ type: 'call', id, method, request });
    });
  };

  return {
    call,
    handlers(local) {
      const forwarded = Object.fromEntries(
        methodNames.map((m) => [
          m,
          async (request: unknown) => {
            const result = await call(m, request);
            if (!result.ok) throw new TrawlError(result.error.code, result.error.message);
            return result.value;
          },
        ]),
      ) as unknown as Handlers;
      // With a daemon, credentials and folder picking are source management: the engine refuses them.
      const own = opts.daemon
        ? Object.fromEntries(
            Object.entries(local).filter(([m]) => !(LOCAL_INDEX_ONLY as readonly string[]).includes(m)),
          )
        : local;
      return { ...forwarded, ...own } as Handlers;
    },
    close(timeoutMs = 5000) {
      closing ??= (async () => {
        if (restartTimer) clearTimeout(restartTimer);
        const c = child;
        if (!c) return;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, timeoutMs);
          closedResolve = () => {
            clearTimeout(timer);
            resolve();
          };
          c.postMessage({ type: 'shutdown' });
        });
        child = null;
        c.kill();
        failPending('The app is quitting');
      })();
      return closing;
    },
  };
}
