/**
 * The engine's utility process (entry point): opens the TrawlService for the data directory the
 * main process names (or, when main names a `trawl daemon` socket, searches through that daemon
 * instead: src/daemon/daemon-binding.ts), serves contract calls, and forwards the service's events. Crawls and queries
 * run here, so the window never waits on them. Plain Node: no electron import (Electron provides
 * `process.parentPort`).
 */
import type { Credential, CredentialStore } from './core/credential-store.js';
import { TrawlService } from './core/service.js';
import { startBackground, type Background } from './core/live/background.js';
import { eventNames } from '../shared/contract.js';
import { throttleEvents } from '../shared/progress-throttle.js';
import { dispatch, failure } from '../shared/rpc.js';
import { bindService, type ServiceBinding } from '../shared/service-binding.js';
import { bindDaemon, DaemonConnection } from '../daemon/daemon-binding.js';
import type { FromEngine, ToEngine } from './engine-protocol.js';

/** The side of a message port the engine talks through (Electron's `process.parentPort`). */
export interface EnginePort {
  postMessage(message: FromEngine): void;
  on(event: 'message', listener: (e: { data: ToEngine }) => void): void;
}

export type OpenService = (opts: { dataDir: string; credentials: CredentialStore }) => Promise<TrawlService>;

/** Credentials live in the main process (safeStorage); the engine asks for one when it needs it. */
class RemoteCredentialStore implements CredentialStore {
  private next = 1;
  private readonly pending = new Map<
    number,
    (answer: { secret: Credential | null; ids?: string[] }) => void
  >();

  constructor(private readonly port: EnginePort) {}

  answer(reqId: number, secret: Credential | null, ids?: string[]): void {
    this.pending.get(reqId)?.({ secret, ids });
    this.pending.delete(reqId);
  }

  private ask(id: string | null): Promise<{ secret: Credential | null; ids?: string[] }> {
    const reqId = this.next++;
    return new Promise((resolve) => {
      this.pending.set(reqId, resolve);
      this.port.postMessage({ type: 'credential-get', reqId, id });
    });
  }

  async get(id: string): Promise<Credential | null> {
    return (await this.ask(id)).secret;
  }

  async ids(): Promise<string[]> {
    return (await this.ask(null)).ids ?? [];
  }

  async set(): Promise<void> {
    throw new Error('credentials are stored by the app, not the engine');
  }

  async delete(): Promise<void> {
    throw new Error('credentials are stored by the app, not the engine');
  }
}

/** Serves the engine over `port`. Resolves when the service is closed after a `shutdown`. */
export function runEngine(
  port: EnginePort,
  open: OpenService = (o) => TrawlService.open(o),
  opts: { live?: boolean } = {},
): Promise<void> {
  const credentials = new RemoteCredentialStore(port);
  let service: TrawlService | null = null;
  let background: Background | null = null;
  let binding: ServiceBinding | null = null;
  let daemon: DaemonConnection | null = null;
  let starting: Promise<void> | null = null;
  let done: () => void = () => {};
  const finished = new Promise<void>((resolve) => (done = resolve));
  const throttle = throttleEvents((event, payload) => port.postMessage({ type: 'event', event, payload }));

  port.on('message', ({ data: msg }) => {
    switch (msg.type) {
      case 'init':
        if (msg.daemon !== undefined) {
          // A system-wide daemon answers, trimmed to this OS user; no local index is opened.
          daemon ??= new DaemonConnection(msg.daemon);
          binding ??= bindDaemon(daemon, { info: msg.info });
          starting ??= Promise.resolve();
          port.postMessage({ type: 'ready' });
          return;
        }
        starting ??= open({ dataDir: msg.dataDir, credentials }).then(
          async (s) => {
            service = s;
            if (opts.live) {
              // Watching and schedules while the app runs; crawls step aside while the user types.
              background = await startBackground(s);
              const bg = background;
              s.setActivityListener(() => bg.noteUserActivity());
            }
            binding = bindService(s, { info: msg.info, background: background ?? undefined });
            binding.events.onAny((event, payload) => throttle.push(event, payload), eventNames);
            port.postMessage({ type: 'ready' });
          },
          (error: unknown) => port.postMessage({ type: 'fatal', message: (error as Error).message }),
        );
        return;
      case 'call': {
        const id = msg.id;
        const run = async () => {
          await starting;
          if (!binding) return failure('ENGINE_UNAVAILABLE', 'The engine did not start');
          return dispatch(binding.handlers, msg.method, msg.request);
        };
        void run().then((result) => port.postMessage({ type: 'result', id, result }));
        return;
      }
      case 'credential':
        credentials.answer(msg.reqId, msg.secret, msg.ids);
        return;
      case 'shutdown':
        void (async () => {
          await starting?.catch(() => {});
          throttle.dispose();
          binding?.dispose();
          daemon?.close();
          await background?.stop();
          await service?.close();
          port.postMessage({ type: 'closed' });
          done();
        })();
        return;
    }
  });
  return finished;
}

const parentPort = (process as unknown as { parentPort?: EnginePort }).parentPort;
if (parentPort) {
  void runEngine(parentPort, undefined, { live: true }).then(() => process.exit(0));
}
