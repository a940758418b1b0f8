/**
 * The web shell: the contract over HTTP on 127.0.0.1, for `trawl serve` and `npm start` where
 * Electron is absent.
 *
 * - `POST /api/<method>` with a JSON body → `{ ok: true, value }` (200) or `{ ok: false, error }` (4xx/5xx).
 * - `GET /api/events` → Server-Sent Events carrying the contract's events.
 * - Everything else: the built renderer (GET/HEAD), with a strict CSP.
 *
 * Every request must name this server in its Host header (DNS rebinding); API requests must carry
 * `Authorization: Bearer <token>` (a random per-launch token handed out in the printed URL's
 * fragment) and must not come from another origin. No CORS headers are ever sent.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Socket } from 'node:net';
import type { Background } from '../main/core/live/background.js';
import type { TrawlService } from '../main/core/service.js';
import { eventNames, type ErrorCode, type EventName } from '../shared/contract.js';
import { dispatch, type Result } from '../shared/rpc.js';
import { throttleEvents } from '../shared/progress-throttle.js';
import { bindService, type BindingHooks } from '../shared/service-binding.js';
import { bindDaemon, type DaemonConnection } from '../daemon/daemon-binding.js';
import { openLocalFile } from './open-target.js';
import { hostAllowed, newToken, originAllowed, tokenMatches } from './request-guard.js';
import { readStaticFile } from './static-files.js';
import { UI_CSP } from './csp.js';

export interface WebShellOptions {
  /** The engine to serve (a personal index)… */
  service?: TrawlService;
  /**
   * …or a system-wide `trawl daemon` reached over this OS user's socket: results are the daemon's,
   * trimmed to the user running the shell; sources and crawls are refused (src/daemon/daemon-binding.ts).
   * The caller owns the connection and closes it after `close()`.
   */
  daemon?: DaemonConnection;
  /** 0 or absent: a free port chosen by the OS. */
  port?: number;
  /** The built renderer (`out/renderer`). */
  staticDir: string;
  /** Let `openItem` start the desktop's opener for file results (the server runs as the user). */
  openFiles?: boolean;
  version?: string;
  /** The watching and scheduling runner started with the service, reported by `liveStatus`. */
  background?: Background;
}

export interface WebShell {
  /** The URL to open, token included (in the fragment, so it never reaches logs or Referer). */
  url: string;
  token: string;
  port: number;
  /** Ends every event stream and connection and stops listening. Idempotent. */
  close(): Promise<void>;
}

const MAX_BODY = 1024 * 1024;

export { UI_CSP };

const API_CSP = "default-src 'none'; frame-ancestors 'none'";

const STATUS: Record<ErrorCode, number> = {
  BAD_REQUEST: 400,
  QUERY_SYNTAX: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  UNKNOWN_METHOD: 404,
  NOT_FOUND: 404,
  CONFLICT: 409,
  INTERNAL: 500,
  UNSUPPORTED: 501,
  ENGINE_UNAVAILABLE: 503,
};

function baseHeaders(csp: string): Record<string, string> {
  return {
    'Content-Security-Policy': csp,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'X-Frame-Options': 'DENY',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Cross-Origin-Resource-Policy': 'same-origin',
  };
}

function sendJson(
  res: http.ServerResponse,
  status: number,
  body: Result<unknown>,
  extra: Record<string, string> = {},
): void {
  const json = JSON.stringify(body);
  res.writeHead(status, {
    ...baseHeaders(API_CSP),
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(json),
    'Cache-Control': 'no-store',
    ...extra,
  });
  res.end(json);
}

function sendError(
  res: http.ServerResponse,
  code: ErrorCode,
  message: string,
  status = STATUS[code],
  extra?: Record<string, string>,
): void {
  sendJson(res, status, { ok: false, error: { code, message } }, extra);
}

class BodyError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length'] ?? '0');
    if (declared > MAX_BODY) {
      reject(new BodyError(413, `Request body over ${MAX_BODY} bytes`));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY) {
        reject(new BodyError(413, `Request body over ${MAX_BODY} bytes`));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** Starts the web shell on 127.0.0.1. Resolves once it is listening. */
export async function startWebShell(opts: WebShellOptions): Promise<WebShell> {
  const token = newToken();
  const hooks: BindingHooks = {
    info: {
      transport: 'web',
      version: opts.version ?? '0.0.0',
      platform: process.platform,
      canPickFolder: false,
      canOpenFiles: opts.openFiles === true,
    },
    openTarget: async (kind, target, action) =>
      kind === 'file' && opts.openFiles === true ? openLocalFile(target, action) : false,
  };
  if (opts.service && opts.daemon) throw new Error('startWebShell serves a service or a daemon, not both');
  if (!opts.service && !opts.daemon) throw new Error('startWebShell needs a service or a daemon');
  const binding = opts.service
    ? bindService(opts.service, { ...hooks, background: opts.background })
    : bindDaemon(opts.daemon as DaemonConnection, hooks);
  const streams = new Set<http.ServerResponse>();
  const sockets = new Set<Socket>();
  let port = 0;

  const serveEvents = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    res.writeHead(200, {
      ...baseHeaders(API_CSP),
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
    });
    res.write('retry: 2000\n: connected\n\n');
    const throttle = throttleEvents((event: EventName, payload: unknown) => {
      res.write(`event: ${event}\ndata: ${JSON.stringify(payload ?? null)}\n\n`);
    });
    const off = binding.events.onAny((event, payload) => throttle.push(event, payload), eventNames);
    const heartbeat = setInterval(() => res.write(': ping\n\n'), 15_000);
    streams.add(res);
    const end = (): void => {
      clearInterval(heartbeat);
      off();
      throttle.dispose();
      streams.delete(res);
    };
    req.on('close', end);
    res.on('close', end);
  };

  const serveApi = async (
    req: http.IncomingMessage,
    res: http.ServerResponse,
    pathname: string,
  ): Promise<void> => {
    if (!originAllowed(req.headers, port))
      return sendError(res, 'FORBIDDEN', 'Cross-origin requests are not allowed');
    if (!tokenMatches(req.headers, token)) {
      return sendError(
        res,
        'UNAUTHORIZED',
        'Missing or wrong token: open the URL printed by `trawl serve`',
        401,
        {
          'WWW-Authenticate': 'Bearer realm="trawl"',
        },
      );
    }
    const method = pathname.slice('/api/'.length);
    if (method === 'events') {
      if (req.method !== 'GET')
        return sendError(res, 'BAD_REQUEST', 'Use GET for the event stream', 405, { Allow: 'GET' });
      return serveEvents(req, res);
    }
    if (req.method !== 'POST')
      return sendError(res, 'BAD_REQUEST', 'Use POST with a JSON body', 405, { Allow: 'POST' });
    const contentType = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
    if (contentType !== 'application/json')
      return sendError(res, 'BAD_REQUEST', 'Content-Type must be application/json', 415);
    let payload: unknown;
    try {
      const text = await readBody(req);
      payload = text.trim() === '' ? {} : JSON.parse(text);
    } catch (error) {
      if (error instanceof BodyError) return sendError(res, 'BAD_REQUEST', error.message, error.status);
      return sendError(res, 'BAD_REQUEST', 'Body is not valid JSON');
    }
    const result = await dispatch(binding.handlers, method, payload);
    sendJson(res, result.ok ? 200 : STATUS[result.error.code], result);
  };

  const serveStatic = async (
    req: http.IncomingMessage,
    res: http.ServerResponse,
    pathname: string,
  ): Promise<void> => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      return sendError(res, 'BAD_REQUEST', 'Method not allowed', 405, { Allow: 'GET, HEAD' });
    }
    const file = await readStaticFile(opts.staticDir, pathname);
    if (!file) {
      res.writeHead(404, { ...baseHeaders(UI_CSP), 'Content-Type': 'text/plain; charset=utf-8' });
      res.end(
        pathname === '/' ? 'The UI is not built: run `npm run build` (or `npm start`).\n' : 'Not found\n',
      );
      return;
    }
    res.writeHead(200, {
      ...baseHeaders(UI_CSP),
      'Content-Type': file.contentType,
      'Content-Length': file.body.length,
      'Cache-Control': file.immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
    });
    res.end(req.method === 'HEAD' ? undefined : file.body);
  };

  const server = http.createServer((req, res) => {
    void (async () => {
      if (!hostAllowed(req.headers, port)) {
        return sendError(res, 'FORBIDDEN', 'Host not allowed: use http://127.0.0.1:' + port);
      }
      const pathname = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
      if (pathname === '/api' || pathname.startsWith('/api/')) return serveApi(req, res, pathname);
      return serveStatic(req, res, pathname);
    })().catch(() => {
      if (!res.headersSent) sendError(res, 'INTERNAL', 'Internal error');
      else res.destroy();
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.headersTimeout = 20_000;

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  port = (server.address() as AddressInfo).port;

  let closing: Promise<void> | null = null;
  return {
    url: `http://127.0.0.1:${port}/#token=${token}`,
    token,
    port,
    close() {
      closing ??= new Promise<void>((resolve) => {
        binding.dispose();
        for (const res of streams) res.end();
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      });
      return closing;
    },
  };
}
