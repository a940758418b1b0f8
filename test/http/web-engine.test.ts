import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TrawlService } from '../../src/main/core/service.js';
import { startNginx, type NginxServer } from './nginx-server.js';
import { nginxForTests } from './nginx-required.js';
import { writeSite, type SitePage } from './site-fixtures.js';
import { tempDir } from './web-harness.js';

const NGINX = nginxForTests();

/**
 * The website handler as the composition root wires it: `TrawlService.open` (engine.ts) with its
 * own filters, security and credential store — no test assembly.
 */
describe.skipIf(!NGINX)('a website source through TrawlService.open', () => {
  let siteRoot: string;
  let dataDir: string;
  let nginx: NginxServer;
  let service: TrawlService;
  let pages: SitePage[];

  beforeAll(async () => {
    siteRoot = tempDir('trawl-site-');
    dataDir = tempDir();
    pages = writeSite(siteRoot, 12);
    nginx = await startNginx(siteRoot);
    service = await TrawlService.open({ dataDir, filterWorkers: 1 });
  });

  afterAll(async () => {
    await service?.close();
    await nginx?.stop();
    fs.rmSync(siteRoot, { recursive: true, force: true });
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('adds, crawls, searches and revisits a site without rewriting a document', async () => {
    const source = service.addSource({
      startAddresses: [`${nginx.origin}/`],
      settings: { http: { profile: 'fast' } },
    });
    expect(source.kind).toBe('http');
    const [full] = await service.crawl({ sourceId: source.id, mode: 'full' });
    expect(full).toMatchObject({ status: 'done', counts: { added: pages.length, failed: 0 } });
    const hit = service.search({ query: pages[4].word }).hits;
    expect(hit).toHaveLength(1);
    expect(hit[0]).toMatchObject({ title: pages[4].title, type: 'text/html' });

    const before = service.db.prepare('SELECT id, crawl_time, content_hash FROM documents ORDER BY id').all();
    const [inc] = await service.crawl({ sourceId: source.id, mode: 'incremental' });
    expect(inc.counts).toMatchObject({ notModified: pages.length, added: 0, updated: 0, deleted: 0 });
    expect(
      service.db.prepare('SELECT id, crawl_time, content_hash FROM documents ORDER BY id').all(),
    ).toEqual(before);
    expect(
      service
        .log({ crawlId: inc.id, limit: 1000 })
        .every((e) => e.status === 304 && e.annotations === 'not-modified'),
    ).toBe(true);
  });
});
