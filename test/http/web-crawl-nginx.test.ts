import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TrawlService } from '../../src/main/core/service.js';
import { startNginx, type NginxServer } from './nginx-server.js';
import { nginxForTests } from './nginx-required.js';
import { pageWord, rewritePage, writeSite, type SitePage } from './site-fixtures.js';
import { crawlLog, indexedUrls, makeWebService, tempDir } from './web-harness.js';

const NGINX = nginxForTests();
const PAGES = 60;

/** The URL a page is reached at (`…/index.html` is linked as its folder). */
function urlOf(origin: string, p: SitePage): string {
  return `${origin}/${p.rel.replace(/(^|\/)index\.html$/, '$1')}`;
}

describe.skipIf(!NGINX)('crawling a static site on a real nginx', () => {
  let siteRoot: string;
  let dataDir: string;
  let nginx: NginxServer;
  let service: TrawlService;
  let filtered: string[];
  let pages: SitePage[];
  let sourceId: number;

  const search = (q: string) => service.search({ query: q, limit: 100 }).hits.map((h) => h.url);

  beforeAll(async () => {
    siteRoot = tempDir('trawl-site-');
    dataDir = tempDir();
    pages = writeSite(siteRoot, PAGES);
    nginx = await startNginx(siteRoot);
    ({ service, filtered } = makeWebService(dataDir));
    sourceId = service.addSource({
      startAddresses: [`${nginx.origin}/`],
      settings: { http: { profile: 'fast' } },
    }).id;
  });

  afterAll(async () => {
    await service?.close();
    await nginx?.stop();
    fs.rmSync(siteRoot, { recursive: true, force: true });
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('a full crawl indexes every page, searchable by its words, title and description', async () => {
    const [record] = await service.crawl({ sourceId, mode: 'full' });
    expect(record.status).toBe('done');
    expect(record.counts).toMatchObject({ added: pages.length, updated: 0, failed: 0, deleted: 0 });
    expect(indexedUrls(service, sourceId)).toEqual(pages.map((p) => urlOf(nginx.origin, p)).sort());
    for (const p of [pages[0], pages[3], pages[pages.length - 1]]) {
      expect(search(p.word)).toEqual([urlOf(nginx.origin, p)]);
      expect(search(`title:"${p.title}"`)).toContain(urlOf(nginx.origin, p));
    }
    const row = service.db
      .prepare(
        'SELECT description, keywords, etag, last_modified, hops, outlinks FROM documents WHERE url = ?',
      )
      .get(urlOf(nginx.origin, pages[5])) as Record<string, string>;
    expect(row.description).toBe(`Description of ${pages[5].title}`);
    expect(row.keywords).toContain(pages[5].word);
    expect(row.etag).toMatch(/^"/);
    expect(row.last_modified).toMatch(/GMT$/);
    expect(row.hops).toBe('LL');
    expect(JSON.parse(row.outlinks)).toContain(`${nginx.origin}/`);
    expect(filtered).toHaveLength(pages.length);
  });

  it('an incremental crawl gets 304s for every page and re-indexes nothing', async () => {
    nginx.clearAccessLog();
    const before = filtered.length;
    const [record] = await service.crawl({ sourceId, mode: 'incremental' });
    expect(record.counts).toMatchObject({
      notModified: pages.length,
      added: 0,
      updated: 0,
      deleted: 0,
      failed: 0,
    });
    expect(filtered.length).toBe(before);
    const pageRequests = nginx.accessLog().filter((e) => e.path !== '/robots.txt');
    expect(pageRequests).toHaveLength(pages.length);
    for (const e of pageRequests) {
      expect(e.status).toBe(304);
      expect(e.ifNoneMatch).toMatch(/^"/);
      expect(e.ifModifiedSince).toMatch(/GMT$/);
    }
    const log = crawlLog(service, record.id);
    expect(log.filter((e) => e.annotations === 'not-modified')).toHaveLength(pages.length);
    expect(new Set(log.map((e) => e.status))).toEqual(new Set([304]));
  });

  it('a changed page is the only one fetched in full and re-indexed', async () => {
    const changed = pages[10];
    const newWord = pageWord(9999);
    rewritePage(siteRoot, changed, newWord);
    nginx.clearAccessLog();
    const before = filtered.length;
    const [record] = await service.crawl({ sourceId, mode: 'incremental' });
    expect(record.counts).toMatchObject({ updated: 1, notModified: pages.length - 1, added: 0, deleted: 0 });
    expect(filtered.slice(before)).toEqual([urlOf(nginx.origin, changed)]);
    expect(
      nginx
        .accessLog()
        .filter((e) => e.status === 200 && e.path !== '/robots.txt')
        .map((e) => e.path),
    ).toEqual([`/${changed.rel}`]);
    expect(search(newWord)).toEqual([urlOf(nginx.origin, changed)]);
    expect(search(changed.word)).toEqual([]);
  });

  it('a deleted page leaves the index', async () => {
    const gone = pages[20];
    fs.rmSync(path.join(siteRoot, gone.rel));
    const [record] = await service.crawl({ sourceId, mode: 'incremental' });
    expect(record.counts).toMatchObject({ deleted: 1, added: 0, updated: 0, notModified: pages.length - 1 });
    expect(indexedUrls(service, sourceId)).not.toContain(urlOf(nginx.origin, gone));
    expect(search(gone.word)).toEqual([]);
    expect(crawlLog(service, record.id).find((e) => e.url === urlOf(nginx.origin, gone))).toMatchObject({
      outcome: 'deleted',
      status: 404,
    });
  });

  it('a stopped crawl deletes nothing; the next completed crawl removes pages no longer linked', async () => {
    // Unlink section 1 from the home page: its index and pages are then reachable no more.
    const home = path.join(siteRoot, 'index.html');
    fs.writeFileSync(
      home,
      fs.readFileSync(home, 'utf8').replace(/<li><a href="\/section-1\/">[^<]*<\/a><\/li>/, ''),
    );
    const later = new Date(Date.now() + 10_000);
    fs.utimesSync(home, later, later);
    const unlinked = pages.filter((p) => p.rel.startsWith('section-1/')).map((p) => urlOf(nginx.origin, p));
    const count = indexedUrls(service, sourceId).length;
    service.updateSource(sourceId, {
      settings: { http: { profile: 'polite', minDelayMs: 100, maxDelayMs: 100 } },
    });
    const off = service.on('progress', (p) => {
      if (p.sourceId === sourceId && p.done >= 3) service.stopCrawl(sourceId);
    });
    const [stopped] = await service.crawl({ sourceId, mode: 'incremental' });
    off();
    expect(stopped.status).toBe('stopped');
    expect(stopped.counts.deleted).toBe(0);
    expect(indexedUrls(service, sourceId)).toHaveLength(count);

    service.updateSource(sourceId, { settings: { http: { profile: 'fast' } } });
    const [done] = await service.crawl({ sourceId, mode: 'incremental' });
    expect(done.status).toBe('done');
    expect(done.counts.deleted).toBe(unlinked.length);
    const left = indexedUrls(service, sourceId);
    expect(left).toHaveLength(count - unlinked.length);
    for (const u of unlinked) expect(left).not.toContain(u);
  });
});
