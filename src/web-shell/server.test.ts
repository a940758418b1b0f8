/**
 * The web shell over the real engine: a real TrawlService on a temp data dir, a real HTTP server on
 * 127.0.0.1, real requests (node:http, so Host and Origin can be forged as an attacker would).
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBackground } from '../main/core/live/background.js';
import { TrawlService } from '../main/core/service.js';
import { createHttpClient } from '../renderer/src/api/http-client.js';
import { startWebShell, type WebShell } from './server.js';

interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  json(): { ok: boolean; value?: unknown; error?: { code: string; message: string } };
}

function request(
  shell: WebShell,
  opts: { method?: string; path: string; headers?: Record<string, string>; body?: string },
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port: shell.port,
        method: opts.method ?? 'POST',
        path: opts.path,
        headers: opts.headers,
        setHost: !opts.headers?.host && !opts.headers?.Host,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const body = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body, json: () => JSON.parse(body) });
        });
      },
    );
    req.on('error', reject);
    req.end(opts.body);
  });
}

const api = (shell: WebShell, method: string, body: unknown, headers: Record<string, string> = {}) =>
  request(shell, {
    path: `/api/${method}`,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${shell.token}`, ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

function expectNoCors(reply: Reply): void {
  for (const name of Object.keys(reply.headers)) expect(name.startsWith('access-control-'), name).toBe(false);
}

let tmp: string;
let corpus: string;
let staticDir: string;
let service: TrawlService;
let shell: WebShell;

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-webshell-'));
  corpus = path.join(tmp, 'corpus');
  staticDir = path.join(tmp, 'static');
  fs.mkdirSync(path.join(corpus, 'notes'), { recursive: true });
  fs.writeFileSync(
    path.join(corpus, 'notes', 'plan.md'),
    '# Release plan\n\nThe trawler indexes every harbour document.\n',
  );
  fs.writeFileSync(
    path.join(corpus, 'notes', 'evil.html'),
    '<title>Evil</title><p>harbour <script>alert(1)</script></p>',
  );
  fs.mkdirSync(path.join(staticDir, 'assets'), { recursive: true });
  fs.writeFileSync(
    path.join(staticDir, 'index.html'),
    '<!doctype html><title>Trawl</title><div id="root"></div>',
  );
  fs.writeFileSync(path.join(staticDir, 'assets', 'app-abc.js'), 'console.log("ui")');
  service = await TrawlService.open({ dataDir: path.join(tmp, 'data'), filterWorkers: 1 });
  shell = await startWebShell({ service, staticDir, version: 'test' });
});

afterAll(async () => {
  await shell?.close();
  await service?.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('listening and the URL', () => {
  it('listens on 127.0.0.1 only and hands out the token in the URL fragment', () => {
    expect(shell.url).toBe(`http://127.0.0.1:${shell.port}/#token=${shell.token}`);
    expect(shell.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('uses a fresh token per launch', async () => {
    const other = await startWebShell({ service, staticDir });
    try {
      expect(other.token).not.toBe(shell.token);
      const reply = await api(other, 'listSources', {}, { authorization: `Bearer ${shell.token}` });
      expect(reply.status).toBe(401);
    } finally {
      await other.close();
    }
  });
});

describe('token', () => {
  it('rejects a missing, wrong or malformed token with 401 JSON and no CORS headers', async () => {
    const cases: Record<string, string>[] = [
      {},
      { authorization: `Bearer ${shell.token.slice(0, -1)}x` },
      { authorization: `Bearer ${shell.token}${shell.token}` },
      { authorization: shell.token },
      { authorization: `Basic ${Buffer.from(`x:${shell.token}`).toString('base64')}` },
    ];
    for (const headers of cases) {
      const reply = await request(shell, {
        path: '/api/listSources',
        headers: { 'content-type': 'application/json', ...headers },
        body: '{}',
      });
      expect(reply.status, JSON.stringify(headers)).toBe(401);
      expect(reply.json()).toMatchObject({ ok: false, error: { code: 'UNAUTHORIZED' } });
      expectNoCors(reply);
    }
  });

  it('does not accept the token in the query string', async () => {
    const reply = await request(shell, {
      path: `/api/listSources?token=${shell.token}`,
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(reply.status).toBe(401);
  });

  it('guards the event stream with the same token', async () => {
    const reply = await request(shell, { method: 'GET', path: '/api/events' });
    expect(reply.status).toBe(401);
  });
});

describe('Host and Origin', () => {
  it('rejects foreign Host headers (DNS rebinding) on the API and the static UI', async () => {
    for (const host of [
      'evil.example',
      `evil.example:${shell.port}`,
      `127.0.0.1:${shell.port + 1}`,
      `127.0.0.1.nip.io:${shell.port}`,
      `[::1]:${shell.port}`,
    ]) {
      const apiReply = await api(shell, 'listSources', {}, { host });
      expect(apiReply.status, host).toBe(403);
      expect(apiReply.json().error?.code).toBe('FORBIDDEN');
      const page = await request(shell, { method: 'GET', path: '/', headers: { host } });
      expect(page.status, host).toBe(403);
      expect(page.body).not.toContain('<div id="root">');
    }
    const ok = await api(shell, 'listSources', {}, { host: `localhost:${shell.port}` });
    expect(ok.status).toBe(200);
  });

  it('rejects requests a browser marks as coming from another site, even with the token', async () => {
    const foreign: Record<string, string>[] = [
      { origin: 'https://evil.example' },
      { origin: 'null' },
      { 'sec-fetch-site': 'cross-site' },
      { origin: `http://127.0.0.1:${shell.port + 1}` },
    ];
    for (const headers of foreign) {
      const reply = await api(shell, 'listSources', {}, headers);
      expect(reply.status, JSON.stringify(headers)).toBe(403);
      expectNoCors(reply);
    }
    const same = await api(
      shell,
      'listSources',
      {},
      { origin: `http://127.0.0.1:${shell.port}`, 'sec-fetch-site': 'same-origin' },
    );
    expect(same.status).toBe(200);
  });

  it('answers a CORS preflight without any Access-Control header', async () => {
    const reply = await request(shell, {
      method: 'OPTIONS',
      path: '/api/search',
      headers: {
        origin: 'https://evil.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization,content-type',
      },
    });
    expect(reply.status).toBeGreaterThanOrEqual(400);
    expectNoCors(reply);
  });
});

describe('payloads', () => {
  it('rejects bad requests with 4xx JSON errors and never reaches the engine with them', async () => {
    const cases: [string, string, Record<string, string>, number, string][] = [
      ['search', '{"query": 5}', {}, 400, 'BAD_REQUEST'],
      ['search', '{"query": "x", "limit": 1e9}', {}, 400, 'BAD_REQUEST'],
      ['search', '{"query": "x", "acl": "all"}', {}, 400, 'BAD_REQUEST'],
      ['search', '{not json', {}, 400, 'BAD_REQUEST'],
      ['search', '[]', {}, 400, 'BAD_REQUEST'],
      ['preview', '{"id": "1 OR 1=1"}', {}, 400, 'BAD_REQUEST'],
      ['addSource', '{"startAddresses": ["relative"]}', {}, 400, 'BAD_REQUEST'],
      ['addSource', '{"startAddresses": ["/tmp"], "settings": {"maxFileSize": -1}}', {}, 400, 'BAD_REQUEST'],
      ['dropIndex', '{}', {}, 404, 'UNKNOWN_METHOD'],
      ['__proto__', '{}', {}, 404, 'UNKNOWN_METHOD'],
      ['search', '{"query": "x"}', { 'content-type': 'text/plain' }, 415, 'BAD_REQUEST'],
    ];
    for (const [method, body, headers, status, code] of cases) {
      const reply = await api(shell, method, body, headers);
      expect(reply.status, `${method} ${body}`).toBe(status);
      expect(reply.json(), `${method} ${body}`).toMatchObject({ ok: false, error: { code } });
      expect(reply.headers['content-type']).toBe('application/json; charset=utf-8');
      expectNoCors(reply);
    }
    expect(service.listSources()).toEqual([]);
  });

  it('rejects GET on methods and oversized bodies', async () => {
    const get = await request(shell, {
      method: 'GET',
      path: '/api/listSources',
      headers: { authorization: `Bearer ${shell.token}` },
    });
    expect(get.status).toBe(405);
    const big = await api(shell, 'search', JSON.stringify({ query: 'x'.repeat(2 * 1024 * 1024) }));
    expect(big.status).toBe(413);
  });

  it('reports malformed queries as QUERY_SYNTAX with the engine message, not a SQLite error', async () => {
    const reply = await api(shell, 'search', { query: 'plan )' });
    expect(reply.status).toBe(400);
    const body = reply.json();
    expect(body.error?.code).toBe('QUERY_SYNTAX');
    expect(body.error?.message).toContain("Unmatched ')'");
    expect(body.error?.message).not.toMatch(/sqlite|fts5/i);
  });
});

describe('the contract end to end', () => {
  it('adds a folder, streams crawl events, searches, previews and opens through the renderer client', async () => {
    const client = createHttpClient({ baseUrl: `http://127.0.0.1:${shell.port}`, token: shell.token });
    try {
      const seen: string[] = [];
      const finished = new Promise<{ status: string }>((resolve) => {
        client.on('crawl-finished', (record) => resolve(record));
      });
      client.on('progress', (p) => seen.push(p.state));
      const changed = new Promise<unknown>((resolve) => client.on('sources-changed', resolve));
      await new Promise((r) => setTimeout(r, 100));

      const source = await client.addSource({ startAddresses: [corpus], name: 'Corpus' });
      expect(source).toMatchObject({ name: 'Corpus', kind: 'file' });
      expect(await changed).toEqual(expect.arrayContaining([expect.objectContaining({ id: source.id })]));
      expect(await client.startCrawl({ sourceId: source.id, mode: 'full' })).toBe(null);
      expect((await finished).status).toBe('done');
      expect(seen.length).toBeGreaterThan(0);

      const res = await client.search({ query: 'harbour' });
      expect(res.total).toBe(2);
      const evil = res.hits.find((h) => h.path.endsWith('evil.html'));
      expect(evil?.snippet).toContain('<mark>');
      expect(evil?.snippet).not.toMatch(/<script/i);

      const plan = res.hits.find((h) => h.path.endsWith('plan.md'))!;
      const preview = await client.preview({ id: plan.id, query: 'harbour' });
      expect(preview?.text).toContain('harbour document');
      expect(preview?.hits.length).toBeGreaterThan(0);

      expect(await client.openItem({ id: plan.id, action: 'open' })).toEqual({
        kind: 'file',
        target: path.join(corpus, 'notes', 'plan.md'),
        opened: false,
      });
      expect(await client.openItem({ id: 999_999, action: 'open' })).toBe(null);
      await expect(client.pickFolder()).rejects.toMatchObject({ code: 'UNSUPPORTED' });
      await expect(client.startCrawl({ sourceId: 424242 })).rejects.toMatchObject({ code: 'NOT_FOUND' });
      expect((await client.appInfo()).transport).toBe('web');
      expect((await client.whoami()).principals.length).toBeGreaterThan(0);
    } finally {
      client.dispose();
    }
  });
});

describe('static UI', () => {
  it('serves the renderer with a strict CSP and hardening headers, and nothing outside it', async () => {
    const page = await request(shell, { method: 'GET', path: '/' });
    expect(page.status).toBe(200);
    expect(page.body).toContain('<div id="root">');
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).toContain("frame-ancestors 'none'");
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    expectNoCors(page);
    const asset = await request(shell, { method: 'GET', path: '/assets/app-abc.js' });
    expect(asset.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(asset.headers['cache-control']).toContain('immutable');
    for (const p of [
      '/../data/index.sqlite',
      '/%2e%2e/data/index.sqlite',
      '/assets/../../data/credentials.json',
    ]) {
      const reply = await request(shell, { method: 'GET', path: p });
      expect(reply.body, p).not.toMatch(/SQLite format|password/);
    }
    expect((await request(shell, { method: 'POST', path: '/' })).status).toBe(405);
  });

  it('stops serving and ends event streams on close', async () => {
    const other = await startWebShell({ service, staticDir });
    const client = createHttpClient({
      baseUrl: `http://127.0.0.1:${other.port}`,
      token: other.token,
      reconnectMs: 60_000,
    });
    client.on('progress', () => {});
    await new Promise((r) => setTimeout(r, 100));
    await other.close();
    await other.close();
    await expect(client.listSources()).rejects.toMatchObject({ code: 'ENGINE_UNAVAILABLE' });
    client.dispose();
  });
});

describe('live status', () => {
  it('answers null when no background runner is attached', async () => {
    const reply = await api(shell, 'liveStatus', {});
    expect(reply.status).toBe(200);
    expect(reply.json()).toEqual({ ok: true, value: null });
  });

  it("answers the attached runner's status and streams its changes as live-status events", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-webshell-live-'));
    const folder = path.join(dir, 'watched');
    fs.mkdirSync(folder);
    fs.writeFileSync(path.join(folder, 'a.txt'), 'alpha');
    const svc = await TrawlService.open({ dataDir: path.join(dir, 'data'), filterWorkers: 1 });
    const background = await startBackground(svc, { schedule: false, priority: 'none' });
    const live = await startWebShell({ service: svc, staticDir, background });
    const client = createHttpClient({ baseUrl: `http://127.0.0.1:${live.port}`, token: live.token });
    try {
      const empty = await client.liveStatus();
      expect(empty).toMatchObject({ running: true, sources: [] });

      const watching = new Promise<unknown>((resolve) =>
        client.on('live-status', (st) => {
          if (st.sources.some((s) => s.state === 'watching')) resolve(st);
        }),
      );
      await new Promise((r) => setTimeout(r, 100));
      const source = await svc.addSource({ startAddresses: [folder], name: 'Watched' });
      expect(await watching).toMatchObject({
        running: true,
        sources: [{ sourceId: source.id, name: 'Watched', state: 'watching', pollMinutes: null }],
      });
      await background.settle();
      const direct = background.status();
      const st = await client.liveStatus();
      expect(direct.sources[0].watches).toBeGreaterThan(0);
      expect(st).toMatchObject({
        running: true,
        paused: false,
        watches: direct.watches,
        watchBudget: direct.watchBudget,
        sources: [
          { sourceId: source.id, state: 'watching', reason: null, watches: direct.sources[0].watches },
        ],
      });
    } finally {
      client.dispose();
      await live.close();
      await background.stop();
      await svc.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
