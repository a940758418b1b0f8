import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FetchError, HttpFetcher, retryAfterMs, type FetcherOptions } from './http-fetcher.js';

const KB = 1024;
const servers: net.Server[] = [];
let origin = '';
let connections = 0;
const page = Buffer.from(
  '<html><head><title>Compressed</title></head><body>hello compressed world</body></html>',
);

const routes: Record<string, (req: http.IncomingMessage, res: http.ServerResponse) => void> = {
  '/gzip': (_q, r) => r.writeHead(200, { 'content-encoding': 'gzip' }).end(zlib.gzipSync(page)),
  '/deflate': (_q, r) => r.writeHead(200, { 'content-encoding': 'deflate' }).end(zlib.deflateSync(page)),
  '/deflate-raw': (_q, r) =>
    r.writeHead(200, { 'content-encoding': 'deflate' }).end(zlib.deflateRawSync(page)),
  '/br': (_q, r) => r.writeHead(200, { 'content-encoding': 'br' }).end(zlib.brotliCompressSync(page)),
  '/plain': (_q, r) => r.writeHead(200, { 'content-type': 'text/html' }).end(page),
  '/declared-huge': (_q, r) => {
    r.writeHead(200, { 'content-length': 5 * 1024 * KB });
    r.write(Buffer.alloc(64 * KB));
  },
  '/bomb': (_q, r) =>
    r.writeHead(200, { 'content-encoding': 'gzip' }).end(zlib.gzipSync(Buffer.alloc(8 * 1024 * KB))),
  '/corrupt-gzip': (_q, r) =>
    r
      .writeHead(200, { 'content-encoding': 'gzip' })
      .end(Buffer.from([0x1f, 0x8b, 8, 0, 1, 2, 3, 4, 5, 6, 7, 8])),
  '/silent': () => {},
  '/trickle': (_q, r) => {
    r.writeHead(200);
    const t = setInterval(() => (r.destroyed ? clearInterval(t) : r.write('x')), 100);
  },
  '/reset': (q) => q.socket.destroy(),
  '/headers': (q, r) =>
    r.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(q.headers)),
};

const OPTS: FetcherOptions = {
  userAgent: 'TrawlTest/1.0',
  connectTimeoutMs: 1000,
  readTimeoutMs: 400,
  fetchTimeoutMs: 1500,
  maxDocumentBytes: 1024 * KB,
  maxDecompressedBytes: 2 * 1024 * KB,
  perHostConnections: 1,
  proxy: null,
};

async function listen(server: net.Server): Promise<number> {
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return (server.address() as net.AddressInfo).port;
}

beforeAll(async () => {
  const server = http.createServer((req, res) =>
    (routes[req.url ?? ''] ?? ((_q, r) => r.writeHead(404).end()))(req, res),
  );
  server.on('connection', () => connections++);
  origin = `http://127.0.0.1:${await listen(server)}`;
});

afterAll(async () => {
  for (const s of servers) {
    (s as http.Server).closeAllConnections?.();
    await new Promise((r) => s.close(r));
  }
});

async function failure(p: Promise<unknown>): Promise<FetchError> {
  try {
    await p;
  } catch (e) {
    return e as FetchError;
  }
  throw new Error('expected the fetch to fail');
}

describe('HttpFetcher', () => {
  it('decodes gzip, deflate (zlib and raw) and br bodies', async () => {
    const f = new HttpFetcher(OPTS);
    for (const p of ['/gzip', '/deflate', '/deflate-raw', '/br', '/plain']) {
      const res = await f.fetch({ url: `${origin}${p}` });
      expect(res.status).toBe(200);
      expect(res.body.equals(page)).toBe(true);
      expect(res.truncated).toBeNull();
    }
    f.close();
  });

  it('reuses one keep-alive connection per host for sequential fetches', async () => {
    const f = new HttpFetcher(OPTS);
    const before = connections;
    for (let i = 0; i < 5; i++) await f.fetch({ url: `${origin}/plain` });
    expect(connections - before).toBe(1);
    f.close();
  });

  it('does not read a body whose Content-Length is over the cap, and stops a bomb at the decompressed cap', async () => {
    const f = new HttpFetcher(OPTS);
    const big = await f.fetch({ url: `${origin}/declared-huge` });
    expect(big).toMatchObject({ status: 200, truncated: 'size' });
    expect(big.body.length).toBe(0);
    const bomb = await f.fetch({ url: `${origin}/bomb` });
    expect(bomb.truncated).toBe('decompressed');
    expect(bomb.body.length).toBe(OPTS.maxDecompressedBytes);
    expect(bomb.wireBytes).toBeLessThan(64 * KB);
    f.close();
  });

  it('reports a corrupt compressed body instead of garbage', async () => {
    const f = new HttpFetcher(OPTS);
    const res = await f.fetch({ url: `${origin}/corrupt-gzip` });
    expect(res.decodeError).toMatch(/corrupt gzip/);
    expect(res.body.length).toBe(0);
    f.close();
  });

  it('fails with Heritrix codes: -4 read and whole-fetch timeouts, -3 lost, -2 refused, -7 stopped', async () => {
    const f = new HttpFetcher(OPTS);
    expect(await failure(f.fetch({ url: `${origin}/silent` }))).toMatchObject({
      status: -4,
      message: expect.stringMatching(/read timeout/),
    });
    expect(await failure(f.fetch({ url: `${origin}/trickle` }))).toMatchObject({
      status: -4,
      message: expect.stringMatching(/longer than 1500/),
    });
    expect((await failure(f.fetch({ url: `${origin}/reset` }))).status).toBe(-3);
    const closed = net.createServer();
    const port = await listen(closed);
    await new Promise((r) => closed.close(r));
    servers.pop();
    expect((await failure(f.fetch({ url: `http://127.0.0.1:${port}/` }))).status).toBe(-2);
    const ac = new AbortController();
    const p = f.fetch({ url: `${origin}/silent`, signal: ac.signal });
    setTimeout(() => ac.abort(), 50);
    expect((await failure(p)).status).toBe(-7);
    f.close();
  });

  it('sends the user agent, compression preference and extra headers', async () => {
    const f = new HttpFetcher(OPTS);
    const res = await f.fetch({ url: `${origin}/headers`, headers: { 'if-none-match': '"abc"' } });
    const seen = JSON.parse(res.body.toString()) as Record<string, string>;
    expect(seen).toMatchObject({ 'user-agent': 'TrawlTest/1.0', 'if-none-match': '"abc"' });
    expect(seen['accept-encoding']).toMatch(/gzip.*br/);
    f.close();
  });

  it('sends http requests through a plain HTTP proxy as absolute URIs', async () => {
    const seen: string[] = [];
    const proxy = http.createServer((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      const up = http.request(req.url!, { method: req.method, headers: req.headers }, (ur) => {
        res.writeHead(ur.statusCode ?? 502, ur.headers);
        ur.pipe(res);
      });
      up.on('error', () => res.writeHead(502).end());
      req.pipe(up);
    });
    const port = await listen(proxy);
    const f = new HttpFetcher({ ...OPTS, proxy: { host: '127.0.0.1', port } });
    const res = await f.fetch({ url: `${origin}/plain` });
    expect(res.body.equals(page)).toBe(true);
    expect(seen).toEqual([`GET ${origin}/plain`]);
    f.close();
  });

  it('tunnels https through the proxy with CONNECT', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-tls-'));
    try {
      execFileSync(
        'openssl',
        [
          'req',
          '-x509',
          '-newkey',
          'rsa:2048',
          '-nodes',
          '-days',
          '1',
          '-subj',
          '/CN=127.0.0.1',
          '-keyout',
          path.join(dir, 'k.pem'),
          '-out',
          path.join(dir, 'c.pem'),
        ],
        { stdio: 'ignore' },
      );
    } catch {
      return void console.warn('openssl is missing: the CONNECT tunnel test is skipped');
    }
    const tlsServer = https.createServer(
      { key: fs.readFileSync(path.join(dir, 'k.pem')), cert: fs.readFileSync(path.join(dir, 'c.pem')) },
      (_q, r) => r.end('secure'),
    );
    const tlsPort = await listen(tlsServer);
    const tunnels: string[] = [];
    const proxy = http.createServer();
    proxy.on('connect', (req: http.IncomingMessage, client: net.Socket) => {
      tunnels.push(req.url!);
      const [host, port] = req.url!.split(':');
      const up = net.connect(Number(port), host, () => {
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        up.pipe(client);
        client.pipe(up);
      });
      up.on('error', () => client.destroy());
      client.on('error', () => up.destroy());
    });
    const proxyPort = await listen(proxy);
    const f = new HttpFetcher({ ...OPTS, proxy: { host: '127.0.0.1', port: proxyPort } });
    // The self-signed certificate is (rightly) refused: the tunnel was used and TLS ran through it.
    const err = await failure(f.fetch({ url: `https://127.0.0.1:${tlsPort}/` }));
    expect(err.status).toBe(-2);
    expect(err.message).toMatch(/TLS|CERT|certificate/i);
    expect(tunnels).toEqual([`127.0.0.1:${tlsPort}`]);
    f.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
});

describe('retryAfterMs', () => {
  it('reads delta-seconds and HTTP dates', () => {
    expect(retryAfterMs('120')).toBe(120_000);
    const now = Date.parse('Wed, 21 Oct 2015 07:28:00 GMT');
    expect(retryAfterMs('Wed, 21 Oct 2015 07:28:30 GMT', now)).toBe(30_000);
    expect(retryAfterMs('soon')).toBeUndefined();
    expect(retryAfterMs(undefined)).toBeUndefined();
  });
});
