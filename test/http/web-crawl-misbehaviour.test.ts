import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TrawlService } from '../../src/main/core/service.js';
import type { CrawlRecord } from '../../src/main/core/model.js';
import type { HttpSettingsInput } from '../../src/main/core/sources/http/http-settings.js';
import {
  calendar,
  failFirst,
  gbkPage,
  gzipBomb,
  gzipHtml,
  html,
  huge,
  pdfAs,
  raw,
  redirect,
  reset,
  slow,
  stallBody,
  startTestServer,
  text,
  unusedPort,
  type Route,
  type TestServer,
} from './misbehaving-server.js';
import { fixtureBytes } from '../fixtures/filters/support.js';
import { crawlLog, gaps, indexedUrls, lastLineByUrl, makeWebService, tempDir } from './web-harness.js';

const MB = 1024 * 1024;

/** Test settings: polite profile with short, measurable delays and small caps. */
const SETTINGS: HttpSettingsInput = {
  profile: 'polite',
  delayFactor: 0,
  minDelayMs: 120,
  maxDelayMs: 120,
  connectTimeoutMs: 1000,
  readTimeoutMs: 700,
  fetchTimeoutMs: 3000,
  retries: 1,
  retryBackoffMs: 50,
  maxRetryAfterSeconds: 5,
  maxNetErrors: 20,
  robotsRetryMs: 100,
  maxDocumentBytes: 1 * MB,
  maxDecompressedBytes: 2 * MB,
  maxHops: 4,
  maxRedirects: 3,
  complexUrls: false,
};

let dataDir: string;
let service: TrawlService;
let filtered: string[];
const servers: TestServer[] = [];

async function serve(routes: Record<string, Route>, fallback?: Route): Promise<TestServer> {
  const s = await startTestServer(routes, fallback);
  servers.push(s);
  return s;
}

async function crawlSource(
  startAddresses: string[],
  http: HttpSettingsInput,
  mode: 'full' | 'incremental' = 'full',
  rules = [],
) {
  const source = service.addSource({ startAddresses, settings: { http }, rules });
  const [record] = await service.crawl({ sourceId: source.id, mode });
  return { source, record };
}

beforeAll(() => {
  dataDir = tempDir();
  ({ service, filtered } = makeWebService(dataDir));
});

afterAll(async () => {
  await service.close();
  await Promise.all(servers.map((s) => s.close()));
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('a misbehaving site', () => {
  let site: TestServer;
  let offsite: TestServer;
  let record: CrawlRecord;
  let sourceId: number;
  const links = [
    '/slow-headers',
    '/flaky',
    '/stall',
    '/gzipped',
    '/reset',
    '/always-500',
    '/busy',
    '/overloaded',
    '/loop-a',
    '/chain/0',
    '/moved',
    '/calendar/2024/1/',
    '/trap/a/b/',
    '/huge',
    '/bomb',
    '/html-as-binary',
    '/pdf-as-html',
    '/video.mp4',
    '/photo',
    '/gbk-header',
    '/gbk-meta',
    '/private/secret',
    '/missing',
    'mailto:nobody@example.invalid',
  ];

  beforeAll(async () => {
    offsite = await serve({ '/': html('Elsewhere', 'offsiteword') });
    const chain: Record<string, Route> = {};
    for (let i = 0; i < 10; i++) chain[`/chain/${i}`] = redirect(`/chain/${i + 1}`, 302);
    site = await serve(
      {
        '/robots.txt': text(200, 'User-agent: *\nDisallow: /private/\n'),
        '/': html('Home', 'homeword', [...links, `${offsite.origin}/`]),
        '/slow-headers': slow(2500, html('Slow', 'slowword')),
        '/stall': stallBody(),
        '/flaky': failFirst(1, 500, {}, html('Flaky', 'flakyword')),
        '/always-500': failFirst(99, 500, {}, html('Never', 'neverword')),
        '/busy': failFirst(1, 429, { 'retry-after': '1' }, html('Busy', 'busyword')),
        '/overloaded': failFirst(99, 503, { 'retry-after': '30' }, html('Overloaded', 'overloadedword')),
        '/loop-a': redirect('/loop-b'),
        '/loop-b': redirect('/loop-a'),
        ...chain,
        '/moved': redirect('/new-home'),
        '/new-home': html('New home', 'newhomeword'),
        '/huge': huge(50 * MB),
        '/bomb': gzipBomb(64 * MB),
        '/gzipped': gzipHtml('Gzipped', 'gzipword'),
        '/html-as-binary': raw(
          'application/octet-stream',
          '<!doctype html><html><head><title>Octet page</title></head><body>octetword</body></html>',
        ),
        '/pdf-as-html': pdfAs('text/html', 'pdfword inside a mislabelled document'),
        // A camera JPEG served as octet-stream: known by its bytes, read from its head.
        '/photo': raw(
          'application/octet-stream',
          Buffer.concat([fixtureBytes('sample-photo.jpg'), Buffer.alloc(700 * 1024, 0x5a)]),
        ),
        '/video.mp4': raw('video/mp4', Buffer.from('\0\0\0\x18ftypmp42\0\0\0\0mp42isom', 'latin1')),
        '/gbk-header': gbkPage('中文标题', '企业级搜索协议处理程序', 'header'),
        '/gbk-meta': gbkPage('简体页面', '这是协议处理程序的说明', 'meta'),
        '/private/secret': html('Secret', 'secretword'),
        '/reset': reset(),
      },
      (req, res, hit) => {
        const url = req.url ?? '';
        if (url.startsWith('/calendar/')) return calendar()(req, res, hit);
        if (url.startsWith('/trap/')) return html('Trap', 'trapword', ['a/b/'])(req, res, hit);
        res.writeHead(404).end();
      },
    );
    const r = await crawlSource([`${site.origin}/`], SETTINGS);
    record = r.record;
    sourceId = r.source.id;
  }, 60_000);

  it('finishes', () => {
    expect(record.status).toBe('done');
    expect(record.error).toBeNull();
  });

  it('indexes exactly the expected pages', () => {
    const o = site.origin;
    expect(indexedUrls(service, sourceId)).toEqual(
      [
        `${o}/`,
        `${o}/flaky`,
        `${o}/gzipped`,
        `${o}/busy`,
        `${o}/new-home`,
        `${o}/calendar/2024/1/`,
        `${o}/calendar/2024/2/`,
        `${o}/calendar/2024/3/`,
        `${o}/calendar/2024/4/`,
        `${o}/trap/a/b/`,
        `${o}/trap/a/b/a/b/`,
        `${o}/huge`,
        `${o}/bomb`,
        `${o}/html-as-binary`,
        `${o}/pdf-as-html`,
        `${o}/video.mp4`,
        `${o}/photo`,
        `${o}/gbk-header`,
        `${o}/gbk-meta`,
      ].sort(),
    );
  });

  it('stays in scope: never asks for robots-blocked, off-site, too-deep or query URLs', () => {
    expect(site.hits('/private/secret')).toHaveLength(0);
    expect(offsite.requests).toHaveLength(0);
    expect(site.hits('/calendar/2024/5/')).toHaveLength(0);
    expect(site.requests.some((r) => r.path.includes('?'))).toBe(false);
    expect(site.hits('/trap/a/b/a/b/a/b/')).toHaveLength(0);
    const log = lastLineByUrl(service, record.id);
    const o = site.origin;
    expect(log.get(`${o}/private/secret`)).toMatchObject({
      outcome: 'excluded',
      status: -9998,
      annotations: 'robots-blocked',
    });
    expect(log.get(`${offsite.origin}/`)).toMatchObject({
      outcome: 'excluded',
      status: -5000,
      annotations: 'out-of-scope',
    });
    expect(log.get(`${o}/calendar/2024/5/`)?.reason).toMatch(/more than 4 hops/);
    expect(log.get(`${o}/calendar/view?month=2024-1`)?.reason).toMatch(/query string/);
    expect(log.get(`${o}/trap/a/b/a/b/a/b/`)?.reason).toMatch(/repeats/);
  });

  it('keeps the per-host delay between every two requests', () => {
    const times = site.requests.map((r) => r.at);
    expect(times.length).toBeGreaterThan(25);
    for (const g of gaps(times)) expect(g).toBeGreaterThanOrEqual(119);
  });

  it('honours Retry-After on 429 and gives up on a Retry-After beyond the cap', () => {
    const busy = site.hits('/busy').map((r) => r.at);
    expect(busy).toHaveLength(2);
    expect(busy[1] - busy[0]).toBeGreaterThanOrEqual(1000);
    expect(lastLineByUrl(service, record.id).get(`${site.origin}/busy`)).toMatchObject({
      outcome: 'added',
      status: 200,
      annotations: '2t',
    });
    expect(site.hits('/overloaded')).toHaveLength(1);
    expect(lastLineByUrl(service, record.id).get(`${site.origin}/overloaded`)).toMatchObject({
      outcome: 'failed',
      status: 503,
    });
  });

  it('retries server errors and network failures, with Heritrix status codes', () => {
    const log = lastLineByUrl(service, record.id);
    const o = site.origin;
    expect(site.hits('/flaky')).toHaveLength(2);
    expect(log.get(`${o}/flaky`)).toMatchObject({ outcome: 'added', annotations: '2t' });
    expect(site.hits('/always-500')).toHaveLength(2);
    expect(log.get(`${o}/always-500`)).toMatchObject({ outcome: 'failed', status: 500 });
    expect(log.get(`${o}/slow-headers`)).toMatchObject({ outcome: 'failed', status: -4 });
    expect(log.get(`${o}/stall`)).toMatchObject({ outcome: 'failed', status: -4 });
    expect(log.get(`${o}/reset`)).toMatchObject({ outcome: 'failed', status: -3 });
    expect(site.hits('/reset')).toHaveLength(2);
    expect(log.get(`${o}/missing`)).toMatchObject({ outcome: 'failed', status: 404 });
  });

  it('follows redirects as new candidates, caps chains and detects loops', () => {
    const log = lastLineByUrl(service, record.id);
    const o = site.origin;
    expect(log.get(`${o}/moved`)).toMatchObject({
      outcome: 'excluded',
      status: 301,
      annotations: 'redirect',
    });
    expect(log.get(`${o}/new-home`)).toMatchObject({ outcome: 'added', hops: 'LR', via: `${o}/moved` });
    expect(log.get(`${o}/loop-b`)).toMatchObject({ outcome: 'failed', annotations: 'redirect-loop' });
    expect(site.hits('/loop-a')).toHaveLength(1);
    expect(log.get(`${o}/chain/3`)).toMatchObject({ outcome: 'failed', annotations: 'too-many-redirects' });
    expect(site.hits('/chain/4')).toHaveLength(0);
  });

  it('caps huge responses and gzip bombs, indexing them by URL only', () => {
    const rows = service.db
      .prepare(
        'SELECT d.url, d.status, d.error, b.body_z FROM documents d LEFT JOIN bodies b ON b.id = d.id WHERE d.source_id = ? AND d.url LIKE ?',
      )
      .all(sourceId, '%/huge') as {
      status: string;
      error: string;
      body_z: Buffer | null;
    }[];
    expect(rows[0]).toMatchObject({ status: 'metadata', body_z: null });
    expect(rows[0].error).toMatch(/max document size/);
    const bomb = service.db
      .prepare('SELECT status, error FROM documents WHERE source_id = ? AND url LIKE ?')
      .get(sourceId, '%/bomb') as { status: string; error: string };
    expect(bomb.status).toBe('metadata');
    expect(bomb.error).toMatch(/inflates to more than/);
    const log = lastLineByUrl(service, record.id);
    expect(log.get(`${site.origin}/huge`)?.size).toBeLessThanOrEqual(1 * MB + 64 * 1024);
    expect(log.get(`${site.origin}/bomb`)?.annotations).toBe('decompressed-cap');
    expect(filtered).not.toContain(`${site.origin}/huge`);
    expect(filtered).not.toContain(`${site.origin}/bomb`);
  });

  it('reads wrong content types by their bytes and decodes GBK pages', () => {
    const type = (p: string) =>
      (service.db.prepare('SELECT mime, title FROM documents WHERE url = ?').get(`${site.origin}${p}`) as {
        mime: string;
        title: string | null;
      }) ?? null;
    expect(type('/html-as-binary')).toMatchObject({ mime: 'text/html', title: 'Octet page' });
    expect(type('/pdf-as-html').mime).toBe('application/pdf');
    expect(type('/video.mp4').mime).toBe('video/mp4');
    expect(filtered).not.toContain(`${site.origin}/video.mp4`);
    expect(type('/photo')).toMatchObject({ mime: 'image/jpeg', title: 'Lighthouse over Skeppsholmen' });
    expect(type('/gbk-header').title).toBe('中文标题');
    expect(type('/gbk-meta').title).toBe('简体页面');
  });

  it('makes the pages searchable, GBK ones included', () => {
    const urls = (q: string) =>
      service
        .search({ query: q, limit: 50 })
        .hits.map((h) => h.url)
        .sort();
    expect(urls('协议处理程序')).toEqual([`${site.origin}/gbk-header`, `${site.origin}/gbk-meta`]);
    expect(urls('gzipword')).toEqual([`${site.origin}/gzipped`]);
    expect(urls('pdfword')).toEqual([`${site.origin}/pdf-as-html`]);
    expect(urls('octetword')).toEqual([`${site.origin}/html-as-binary`]);
    expect(urls('secretword')).toEqual([]);
  });

  it('counts what it logs', () => {
    const c = record.counts;
    expect(c.added).toBe(19);
    expect(c.failed).toBe(crawlLog(service, record.id).filter((e) => e.outcome === 'failed').length);
    expect(c.excluded).toBe(crawlLog(service, record.id).filter((e) => e.outcome === 'excluded').length);
  });
});

describe('robots.txt availability', () => {
  const settings: HttpSettingsInput = {
    ...SETTINGS,
    minDelayMs: 0,
    maxDelayMs: 0,
    retries: 1,
    robotsRetryMs: 100,
  };

  it('404 means no restrictions', async () => {
    const s = await serve({ '/': html('Open', 'openword', ['/a']), '/a': html('A', 'aword') });
    const { source, record } = await crawlSource([`${s.origin}/`], settings);
    expect(record.status).toBe('done');
    expect(s.hits('/robots.txt')).toHaveLength(1);
    expect(indexedUrls(service, source.id)).toEqual([`${s.origin}/`, `${s.origin}/a`]);
  });

  it('5xx means disallow all: retried later, then the pages fail with -61 and nothing is fetched', async () => {
    const s = await serve({ '/robots.txt': text(500, 'oops'), '/': html('Closed', 'closedword', ['/a']) });
    const { source, record } = await crawlSource([`${s.origin}/`, `${s.origin}/other`], settings);
    expect(record.status).toBe('done');
    const robots = s.hits('/robots.txt').map((r) => r.at);
    expect(robots).toHaveLength(2);
    expect(robots[1] - robots[0]).toBeGreaterThanOrEqual(100);
    expect(s.requests.filter((r) => r.path !== '/robots.txt')).toHaveLength(0);
    expect(indexedUrls(service, source.id)).toEqual([]);
    const log = lastLineByUrl(service, record.id);
    expect(log.get(`${s.origin}/`)).toMatchObject({
      outcome: 'failed',
      status: -61,
      annotations: 'robots-unavailable',
    });
    expect(log.get(`${s.origin}/other`)?.reason).toMatch(/HTTP 500.*disallowed/);
  });

  it('an unreachable server fails its pages with -61 and the crawl still finishes', async () => {
    const port = await unusedPort();
    const { record } = await crawlSource([`http://127.0.0.1:${port}/`], settings);
    expect(record.status).toBe('done');
    expect(record.counts.failed).toBe(1);
    expect(lastLineByUrl(service, record.id).get(`http://127.0.0.1:${port}/`)).toMatchObject({
      status: -61,
      annotations: 'robots-unavailable',
    });
  });

  it('Crawl-delay spaces the fetches even when the profile has no delay', async () => {
    const s = await serve({
      '/robots.txt': text(200, 'User-agent: *\nCrawl-delay: 0.4\n'),
      '/': html('Delayed', 'delayword', ['/1', '/2', '/3']),
      '/1': html('One', 'x'),
      '/2': html('Two', 'x'),
      '/3': html('Three', 'x'),
    });
    const { record } = await crawlSource([`${s.origin}/`], { ...settings, maxCrawlDelaySeconds: 1 });
    expect(record.counts.added).toBe(4);
    const times = s.requests.map((r) => r.at);
    expect(times).toHaveLength(5);
    for (const g of gaps(times)) expect(g).toBeGreaterThanOrEqual(399);
  });
});

describe('a dead server', () => {
  it('is parked after maxNetErrors consecutive network errors; its remaining URLs fail without a request', async () => {
    const s = await serve({}, reset());
    const seeds = ['/a', '/b', '/c', '/d', '/e', '/f'].map((p) => `${s.origin}${p}`);
    const { record } = await crawlSource(seeds, {
      ...SETTINGS,
      obeyRobots: false,
      retries: 0,
      maxNetErrors: 3,
      minDelayMs: 0,
      maxDelayMs: 0,
    });
    expect(record.status).toBe('done');
    expect(s.requests).toHaveLength(3);
    const log = crawlLog(service, record.id);
    expect(log.filter((e) => e.outcome === 'failed')).toHaveLength(6);
    const parked = log.filter((e) => e.annotations === 'host-parked');
    expect(parked).toHaveLength(4);
    expect(parked[0].reason).toMatch(/parked after 3 consecutive network errors/);
  });
});
