import http from 'node:http';
import net from 'node:net';
import https from 'node:https';
import tls from 'node:tls';
import zlib from 'node:zlib';
import type { Duplex, Transform } from 'node:stream';

/**
 * One HTTP GET with the crawler's guarantees: connect, idle-read and whole-fetch timeouts, an
 * optional plain HTTP proxy (absolute-URI requests for http, CONNECT tunnels for https), a cap on
 * bytes read from the wire and a separate cap on bytes a gzip/deflate/br body may inflate to.
 * Redirects are not followed (the crawl loop treats a target as a new candidate).
 */

/** Heritrix-style negative status codes for failures before an HTTP status was read. */
export const LocalStatus = {
  dns: -1,
  connect: -2,
  lost: -3,
  timeout: -4,
  robotsPrerequisite: -61,
  outOfScope: -5000,
  robotsBlocked: -9998,
  /** The fetch was stopped because the crawl was stopped. */
  stopped: -7,
} as const;

/** A fetch that produced no HTTP response: `status` is a negative local code. */
export class FetchError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'FetchError';
  }
}

/** What one fetch asks for. */
export interface FetchRequest {
  url: string;
  /** Extra request headers (conditional headers, Authorization). Never logged. */
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /** Override the fetcher's wire cap for this request (robots.txt: 500 KiB). */
  maxBytes?: number;
}

/** A response, read up to the caps. */
export interface FetchResult {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The body after content decoding, at most the caps. */
  body: Buffer;
  /** Bytes read from the wire. */
  wireBytes: number;
  /** Why the body is incomplete, when it is. */
  truncated: null | 'size' | 'decompressed';
  /** Body decoding failed (corrupt gzip): the body is empty. */
  decodeError: string | null;
  startedAt: number;
  durationMs: number;
}

/** Fetcher configuration (from the source's http settings). */
export interface FetcherOptions {
  userAgent: string;
  connectTimeoutMs: number;
  readTimeoutMs: number;
  fetchTimeoutMs: number;
  maxDocumentBytes: number;
  maxDecompressedBytes: number;
  perHostConnections: number;
  proxy: { host: string; port: number } | null;
}

function classify(err: NodeJS.ErrnoException): FetchError {
  const code = err.code ?? '';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_FAIL' || code === 'EAI_NONAME') {
    return new FetchError(LocalStatus.dns, `DNS lookup failed (${code})`);
  }
  if (['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL', 'EHOSTDOWN'].includes(code)) {
    return new FetchError(LocalStatus.connect, `connection failed (${code})`);
  }
  if (code.startsWith('ERR_TLS') || code.includes('CERT') || code === 'EPROTO') {
    return new FetchError(LocalStatus.connect, `TLS handshake failed (${code || err.message})`);
  }
  return new FetchError(LocalStatus.lost, `connection lost (${code || err.message})`);
}

function decoderFor(encoding: string | undefined, firstByte: number): Transform | null | 'identity' {
  const e = (encoding ?? '').trim().toLowerCase();
  if (!e || e === 'identity') return 'identity';
  const opts = { finishFlush: zlib.constants.Z_SYNC_FLUSH };
  if (e === 'gzip' || e === 'x-gzip') return zlib.createGunzip(opts);
  // Servers send both zlib-wrapped and raw deflate under this name.
  if (e === 'deflate')
    return (firstByte & 0x0f) === 8 ? zlib.createInflate(opts) : zlib.createInflateRaw(opts);
  if (e === 'br') return zlib.createBrotliDecompress();
  return null;
}

/**
 * Fetches over keep-alive connections (at most `perHostConnections` per origin). `close()`
 * releases every socket. Reject reasons are always {@link FetchError}.
 */
export class HttpFetcher {
  private readonly httpAgent: http.Agent;
  private readonly httpsAgent: https.Agent;

  constructor(private readonly opts: FetcherOptions) {
    const agentOpts = {
      keepAlive: true,
      maxSockets: opts.perHostConnections,
      maxFreeSockets: opts.perHostConnections,
      scheduling: 'lifo' as const,
    };
    this.httpAgent = new http.Agent(agentOpts);
    this.httpsAgent = new https.Agent(agentOpts);
  }

  /** Release pooled connections. */
  close(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }

  /** GET `req.url`. Resolves with any HTTP status; rejects with FetchError for local failures. */
  async fetch(req: FetchRequest): Promise<FetchResult> {
    const target = new URL(req.url);
    const hostname = target.hostname.replace(/^\[|\]$/g, '');
    const servername = net.isIP(hostname) ? undefined : hostname;
    const startedAt = Date.now();
    const headers: Record<string, string> = {
      'user-agent': this.opts.userAgent,
      accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,text/plain;q=0.8,*/*;q=0.5',
      'accept-encoding': 'gzip, deflate, br',
      ...(req.headers ?? {}),
    };
    const tunnel =
      this.opts.proxy && target.protocol === 'https:' ? await this.openTunnel(target, req.signal) : null;
    return new Promise<FetchResult>((resolve, reject) => {
      let settled = false;
      let connectTimer: NodeJS.Timeout | undefined;
      const chunks: Buffer[] = [];
      let wireBytes = 0;
      let bodyBytes = 0;
      let truncated: FetchResult['truncated'] = null;
      let decodeError: string | null = null;
      let status = 0;
      let resHeaders: http.IncomingHttpHeaders = {};
      const maxWire = req.maxBytes ?? this.opts.maxDocumentBytes;
      const maxBody = req.maxBytes ?? this.opts.maxDecompressedBytes;

      const cleanup = (): void => {
        clearTimeout(connectTimer);
        clearTimeout(totalTimer);
        req.signal?.removeEventListener('abort', onAbort);
      };
      const fail = (e: FetchError): void => {
        if (settled) return;
        settled = true;
        cleanup();
        request.destroy();
        tunnel?.destroy();
        reject(e);
      };
      const finish = (): void => {
        if (settled) return;
        settled = true;
        cleanup();
        resolve({
          status,
          headers: resHeaders,
          body: Buffer.concat(chunks),
          wireBytes,
          truncated,
          decodeError,
          startedAt,
          durationMs: Date.now() - startedAt,
        });
      };
      const onAbort = (): void => fail(new FetchError(LocalStatus.stopped, 'stopped'));

      const viaProxy = this.opts.proxy && target.protocol === 'http:';
      const options: https.RequestOptions = {
        method: 'GET',
        headers: viaProxy ? { ...headers, host: target.host } : headers,
        host: viaProxy ? this.opts.proxy!.host : hostname,
        port: viaProxy
          ? this.opts.proxy!.port
          : Number(target.port) || (target.protocol === 'https:' ? 443 : 80),
        path: viaProxy ? target.href : `${target.pathname}${target.search}`,
        servername,
      };
      if (tunnel) {
        options.agent = false;
        options.createConnection = () => tls.connect({ socket: tunnel, servername });
      } else {
        options.agent = target.protocol === 'https:' && !viaProxy ? this.httpsAgent : this.httpAgent;
      }
      const request = (target.protocol === 'https:' && !viaProxy ? https : http).request(options);
      const totalTimer = setTimeout(
        () =>
          fail(new FetchError(LocalStatus.timeout, `fetch took longer than ${this.opts.fetchTimeoutMs} ms`)),
        this.opts.fetchTimeoutMs,
      );
      if (req.signal?.aborted) return onAbort();
      req.signal?.addEventListener('abort', onAbort, { once: true });

      request.on('socket', (socket) => {
        if ((socket as Duplex & { connecting?: boolean }).connecting) {
          connectTimer = setTimeout(
            () =>
              fail(
                new FetchError(LocalStatus.connect, `connect timeout after ${this.opts.connectTimeoutMs} ms`),
              ),
            this.opts.connectTimeoutMs,
          );
          socket.once(tunnel ? 'secureConnect' : 'connect', () => clearTimeout(connectTimer));
        }
      });
      request.setTimeout(this.opts.readTimeoutMs, () =>
        fail(new FetchError(LocalStatus.timeout, `no data for ${this.opts.readTimeoutMs} ms (read timeout)`)),
      );
      request.on('error', (e) => fail(classify(e as NodeJS.ErrnoException)));
      request.on('response', (res) => {
        clearTimeout(connectTimer);
        status = res.statusCode ?? 0;
        resHeaders = res.headers;
        const declared = Number(res.headers['content-length']);
        if (Number.isFinite(declared) && declared > maxWire) {
          truncated = 'size';
          finish();
          res.destroy();
          request.destroy();
          return;
        }
        let decoder: Transform | 'identity' | undefined;
        const stopAt = (why: 'size' | 'decompressed'): void => {
          truncated = why;
          finish();
          res.destroy();
          request.destroy();
          if (decoder && decoder !== 'identity') decoder.destroy();
        };
        const take = (chunk: Buffer): void => {
          if (settled) return;
          const room = maxBody - bodyBytes;
          if (chunk.length >= room) {
            if (room > 0) chunks.push(chunk.subarray(0, room));
            bodyBytes = maxBody;
            stopAt(decoder === 'identity' ? 'size' : 'decompressed');
            return;
          }
          chunks.push(chunk);
          bodyBytes += chunk.length;
        };
        let decoderDone: Promise<void> = Promise.resolve();
        res.on('data', (chunk: Buffer) => {
          if (settled) return;
          wireBytes += chunk.length;
          if (decoder === undefined) {
            decoder =
              decoderFor(res.headers['content-encoding'] as string | undefined, chunk[0]) ?? 'identity';
            if (decoder !== 'identity') {
              const d = decoder;
              d.on('data', take);
              decoderDone = new Promise<void>((ok) => {
                d.on('end', ok);
                d.on('error', (e) => {
                  decodeError = `corrupt ${String(res.headers['content-encoding'])} body (${e.message})`;
                  chunks.length = 0;
                  ok();
                });
              });
            }
          }
          if (wireBytes > maxWire) {
            stopAt('size');
            return;
          }
          if (decoder === 'identity') take(chunk);
          else decoder.write(chunk);
        });
        res.on('end', () => {
          if (settled) return;
          if (decoder && decoder !== 'identity') {
            decoder.end();
            void decoderDone.then(finish);
          } else finish();
        });
        res.on('aborted', () =>
          fail(new FetchError(LocalStatus.lost, 'connection lost during the response')),
        );
        res.on('error', (e) => fail(classify(e as NodeJS.ErrnoException)));
      });
      request.end();
    });
  }

  /** Open a CONNECT tunnel through the proxy to an https origin. */
  private openTunnel(target: URL, signal?: AbortSignal): Promise<Duplex> {
    const proxy = this.opts.proxy!;
    const authority = `${target.hostname}:${target.port || 443}`;
    return new Promise((resolve, reject) => {
      const req = http.request({
        host: proxy.host,
        port: proxy.port,
        method: 'CONNECT',
        path: authority,
        headers: { host: authority },
        agent: false,
      });
      const timer = setTimeout(() => {
        req.destroy();
        reject(
          new FetchError(LocalStatus.connect, `proxy CONNECT timeout after ${this.opts.connectTimeoutMs} ms`),
        );
      }, this.opts.connectTimeoutMs);
      signal?.addEventListener('abort', () => req.destroy(), { once: true });
      req.on('connect', (res, socket) => {
        clearTimeout(timer);
        if (res.statusCode !== 200) {
          socket.destroy();
          reject(new FetchError(LocalStatus.connect, `proxy refused CONNECT (${res.statusCode})`));
        } else resolve(socket);
      });
      req.on('error', (e) => {
        clearTimeout(timer);
        reject(classify(e as NodeJS.ErrnoException));
      });
      req.end();
    });
  }
}

/** First value of a header. */
export function header(h: http.IncomingHttpHeaders, name: string): string | undefined {
  const v = h[name];
  return Array.isArray(v) ? v[0] : v;
}

/** `Retry-After` in ms (delta-seconds or an HTTP date), or undefined. */
export function retryAfterMs(value: string | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  return Number.isFinite(at) ? Math.max(0, at - now) : undefined;
}
