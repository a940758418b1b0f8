import http from 'node:http';
import net from 'node:net';
import zlib from 'node:zlib';
import iconv from 'iconv-lite';
import { minimalPdf } from './site-fixtures.js';

/**
 * A real HTTP server on 127.0.0.1 that misbehaves on purpose, for web crawl tests. Every request
 * is recorded (arrival time, path, headers) so tests can assert what was (not) fetched and the
 * gaps between fetches.
 */

/** One request as the server saw it. */
export interface SeenRequest {
  at: number;
  path: string;
  headers: http.IncomingHttpHeaders;
}

export type Route = (req: http.IncomingMessage, res: http.ServerResponse, hit: number) => unknown;

/** A running test server. */
export interface TestServer {
  port: number;
  origin: string;
  requests: SeenRequest[];
  /** Requests for one path, in arrival order. */
  hits(path: string): SeenRequest[];
  close(): Promise<void>;
}

/**
 * Start a server for `routes` (exact path incl. query → handler; `fallback` or 404 otherwise) on
 * `host` (127.0.0.1 by default; `::1` for IPv6 loopback).
 */
export async function startTestServer(
  routes: Record<string, Route>,
  fallback?: Route,
  host = '127.0.0.1',
): Promise<TestServer> {
  const requests: SeenRequest[] = [];
  const counts = new Map<string, number>();
  const sockets = new Set<net.Socket>();
  const server = http.createServer((req, res) => {
    const path = req.url ?? '/';
    requests.push({ at: Date.now(), path, headers: req.headers });
    const hit = (counts.get(path) ?? 0) + 1;
    counts.set(path, hit);
    const route = routes[path] ?? fallback;
    if (!route) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    void Promise.resolve(route(req, res, hit)).catch(() => res.destroy());
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, resolve);
  });
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    origin: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    requests,
    hits: (p) => requests.filter((r) => r.path === p),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A port nothing listens on (bound, then released). */
export async function unusedPort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

// ---- route builders ----

export function html(
  title: string,
  body: string,
  links: string[] = [],
  headers: http.OutgoingHttpHeaders = {},
): Route {
  return (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', ...headers });
    res.end(
      `<!doctype html><html><head><title>${title}</title></head><body><p>${body}</p>${links.map((l) => `<a href="${l}">${l}</a>`).join(' ')}</body></html>`,
    );
  };
}

export function text(status: number, body: string, headers: http.OutgoingHttpHeaders = {}): Route {
  return (_req, res) => {
    res.writeHead(status, { 'content-type': 'text/plain', ...headers });
    res.end(body);
  };
}

export function redirect(to: string, status = 301): Route {
  return (_req, res) => {
    res.writeHead(status, { location: to });
    res.end();
  };
}

/** Answers after `ms` (past the crawler's read timeout). */
export function slow(ms: number, then: Route): Route {
  return (req, res, hit) =>
    new Promise<void>((resolve) => {
      const t = setTimeout(() => {
        if (!res.destroyed) void then(req, res, hit);
        resolve();
      }, ms);
      res.on('close', () => {
        clearTimeout(t);
        resolve();
      });
    });
}

/** Sends headers and a first chunk, then stalls. */
export function stallBody(): Route {
  return (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.write('<html><head><title>stalled</title></head><body>');
  };
}

/** Fails with `status` for the first `failures` hits (with `headers`), then serves `then`. */
export function failFirst(
  failures: number,
  status: number,
  headers: http.OutgoingHttpHeaders,
  then: Route,
): Route {
  return (req, res, hit) => {
    if (hit <= failures) {
      res.writeHead(status, { 'content-type': 'text/plain', ...headers });
      res.end(`failure ${hit}`);
      return;
    }
    return then(req, res, hit);
  };
}

/** Streams `bytes` of filler (far past the crawler's document cap). */
export function huge(bytes: number): Route {
  return (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    const chunk = Buffer.alloc(64 * 1024, 'a');
    let sent = 0;
    const pump = (): void => {
      while (sent < bytes) {
        sent += chunk.length;
        if (!res.write(chunk)) {
          res.once('drain', pump);
          return;
        }
      }
      res.end();
    };
    res.on('error', () => {});
    pump();
  };
}

/** A small gzip body that inflates to `inflated` bytes of zeros, labelled as HTML. */
export function gzipBomb(inflated: number): Route {
  const body = zlib.gzipSync(Buffer.alloc(inflated, 0), { level: 9 });
  return (_req, res) => {
    res.writeHead(200, {
      'content-type': 'text/html',
      'content-encoding': 'gzip',
      'content-length': body.length,
    });
    res.end(body);
  };
}

/** A gzip-compressed page (a well-behaved compressed response). */
export function gzipHtml(title: string, body: string): Route {
  const payload = zlib.gzipSync(
    Buffer.from(`<html><head><title>${title}</title></head><body>${body}</body></html>`),
  );
  return (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-encoding': 'gzip' });
    res.end(payload);
  };
}

/** A GBK-encoded HTML page; the charset comes from the header or only from `<meta>`. */
export function gbkPage(title: string, body: string, charsetIn: 'header' | 'meta'): Route {
  const meta =
    charsetIn === 'meta' ? '<meta http-equiv="Content-Type" content="text/html; charset=gbk">' : '';
  const bytes = iconv.encode(
    `<html><head>${meta}<title>${title}</title></head><body><p>${body}</p></body></html>`,
    'gbk',
  );
  return (_req, res) => {
    res.writeHead(200, { 'content-type': charsetIn === 'header' ? 'text/html; charset=GBK' : 'text/html' });
    res.end(bytes);
  };
}

/** A PDF served under a wrong Content-Type. */
export function pdfAs(contentType: string, text: string): Route {
  const bytes = minimalPdf(text);
  return (_req, res) => {
    res.writeHead(200, { 'content-type': contentType });
    res.end(bytes);
  };
}

/** Bytes under an explicit Content-Type. */
export function raw(contentType: string, body: Buffer | string): Route {
  return (_req, res) => {
    res.writeHead(200, { 'content-type': contentType });
    res.end(body);
  };
}

/** Closes the connection without an answer. */
export function reset(): Route {
  return (req) => {
    req.socket.destroy();
  };
}

/**
 * An infinite calendar: `/calendar/Y/M/` links to the next month, forever (the classic crawler
 * trap), with no query string so only the hop limit stops it.
 */
export function calendar(): Route {
  return (req, res) => {
    const m = /^\/calendar\/(\d+)\/(\d+)\/$/.exec(req.url ?? '');
    if (!m) {
      res.writeHead(404).end();
      return;
    }
    const y = Number(m[1]);
    const mo = Number(m[2]);
    const next = mo === 12 ? `/calendar/${y + 1}/1/` : `/calendar/${y}/${mo + 1}/`;
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(
      `<html><head><title>Calendar ${y}-${mo}</title></head><body>calendarword <a href="${next}">next month</a> <a href="/calendar/view?month=${y}-${mo}">list view</a></body></html>`,
    );
  };
}
