/**
 * The client side of the daemon protocol (protocol.ts): what `trawl search`, `trawl status`,
 * `trawl whoami` and the desktop app use to ask a system-wide `trawl daemon`.
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { MethodName, RequestOf, ResponseOf } from '../shared/contract.js';
import { isResult, TrawlError, type RawCall, type Result } from '../shared/rpc.js';
import { DEFAULT_RUNTIME_DIR, requestDir, userSocketPath } from './user-sockets.js';

/** One connection to the daemon; requests may overlap, answers are matched by id. */
export class DaemonClient {
  private nextId = 1;
  private readonly waiting = new Map<number, (r: Result<unknown>) => void>();
  private buffered = '';
  private failure: Error | null = null;

  private constructor(private readonly socket: net.Socket) {
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      this.buffered += chunk;
      let nl: number;
      while ((nl = this.buffered.indexOf('\n')) >= 0) {
        const line = this.buffered.slice(0, nl);
        this.buffered = this.buffered.slice(nl + 1);
        let msg: unknown;
        try {
          msg = JSON.parse(line);
        } catch {
          continue;
        }
        const id = (msg as { id?: unknown }).id;
        const resolve = typeof id === 'number' ? this.waiting.get(id) : undefined;
        if (!resolve) continue;
        this.waiting.delete(id as number);
        resolve(
          isResult(msg)
            ? msg
            : { ok: false, error: { code: 'INTERNAL', message: 'malformed answer from the daemon' } },
        );
      }
    });
    const fail = (e: Error): void => {
      this.failure ??= e;
      for (const r of this.waiting.values())
        r({ ok: false, error: { code: 'ENGINE_UNAVAILABLE', message: e.message } });
      this.waiting.clear();
    };
    socket.on('error', fail);
    socket.on('close', () => fail(new Error('the daemon closed the connection')));
  }

  /** Connect to a socket. Rejects with a readable message (no such socket, permission denied…). */
  static connect(socketPath: string, timeoutMs = 5000): Promise<DaemonClient> {
    return new Promise((resolve, reject) => {
      const socket = net.createConnection(socketPath);
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new Error(`trawl daemon at ${socketPath}: no answer within ${timeoutMs} ms`));
      }, timeoutMs);
      socket.once('connect', () => {
        clearTimeout(timer);
        resolve(new DaemonClient(socket));
      });
      socket.once('error', (e: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        const why =
          e.code === 'EACCES'
            ? 'permission denied (a socket answers only its own user)'
            : e.code === 'ENOENT'
              ? 'no such socket'
              : e.message;
        reject(new Error(`cannot reach trawl daemon at ${socketPath}: ${why}`));
      });
    });
  }

  /** Send one request; resolves with the envelope (never rejects for daemon-side errors). */
  call(method: string, params: unknown = {}): Promise<Result<unknown>> {
    if (this.failure)
      return Promise.resolve({
        ok: false,
        error: { code: 'ENGINE_UNAVAILABLE', message: this.failure.message },
      });
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      this.socket.write(`${JSON.stringify({ id, method, params })}\n`);
    });
  }

  /** Send one request; resolves with the value or rejects with a TrawlError. */
  async request<M extends MethodName>(method: M, params: RequestOf<M>): Promise<ResponseOf<M>> {
    const r = await this.call(method, params);
    if (!r.ok) throw new TrawlError(r.error.code, r.error.message);
    return r.value as ResponseOf<M>;
  }

  /** A contract transport over this connection, for `createClient(rawCall, …)` (desktop app). */
  get rawCall(): RawCall {
    return (method, request) => this.call(method, request);
  }

  close(): void {
    this.socket.end();
    this.socket.destroy();
  }
}

/** Where `trawl` looks for a daemon: the runtime folder or socket named, or null for "local index". */
export interface DaemonLocationInput {
  /** `--daemon PATH`: a runtime folder (its `users/<uid>/trawl.sock` is used) or a socket. */
  flag?: string;
  env: NodeJS.ProcessEnv;
  /** The local data folder: with an index of its own there, the default daemon is not used. */
  dataDir: string;
  /** The caller's uid (default: this process's). */
  uid?: number;
  /** The system-wide runtime folder (default /run/trawl). */
  defaultRuntimeDir?: string;
}

/**
 * The socket `trawl` should talk to, or null to use the local index. `--daemon PATH` wins, then
 * `TRAWL_DAEMON` (`off` or `0` forces the local index); else the system daemon's socket for this
 * user when it exists and the local data folder holds no index. The uid is the process's own:
 * nothing here lets one user pick another user's socket (and the socket folder would refuse it).
 */
export function resolveDaemonSocket(input: DaemonLocationInput): string | null {
  const uid = input.uid ?? process.getuid?.() ?? -1;
  const named = input.flag ?? input.env.TRAWL_DAEMON;
  if (named !== undefined && named !== '') {
    if (/^(off|0|no|false)$/i.test(named)) return null;
    return toSocket(path.resolve(named), uid);
  }
  if (process.platform === 'win32' || uid < 0) return null;
  const sock = userSocketPath(input.defaultRuntimeDir ?? DEFAULT_RUNTIME_DIR, uid);
  if (fs.existsSync(path.join(input.dataDir, 'index.sqlite'))) return null;
  return fs.existsSync(sock) ? sock : null;
}

function toSocket(p: string, uid: number): string {
  try {
    if (fs.statSync(p).isDirectory()) return userSocketPath(p, uid);
  } catch {
    // not there (yet): treat as a socket path; connecting reports what is wrong
  }
  return p;
}

/**
 * Connect to the daemon, asking for a socket through `requests/` when this user has none yet
 * (users outside UID_MIN..UID_MAX, accounts added after the daemon started).
 */
export async function connectDaemon(socketPath: string, waitMs = 5000): Promise<DaemonClient> {
  if (!fs.existsSync(socketPath)) {
    const runtime = path.resolve(path.dirname(socketPath), '..', '..');
    const requests = requestDir(runtime);
    if (path.basename(path.dirname(path.dirname(socketPath))) === 'users' && fs.existsSync(requests)) {
      try {
        fs.writeFileSync(path.join(requests, `${process.pid}-${Date.now()}`), '', {
          flag: 'wx',
          mode: 0o600,
        });
        const until = Date.now() + waitMs;
        while (!fs.existsSync(socketPath) && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
      } catch {
        // fall through: connecting reports the problem
      }
    }
  }
  return DaemonClient.connect(socketPath);
}
