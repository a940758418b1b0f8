/**
 * Web crawl benchmark: a generated ~1,000-page static site on a local nginx, crawled through the
 * engine's composition root (`TrawlService.open`) with the `fast` profile (no politeness delays),
 * indexing included — then re-crawled incrementally (all 304s). `BENCH_WEB_PAGES` overrides the
 * page count.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TrawlService } from '../src/main/core/service.js';
import { findNginx, startNginx } from '../test/http/nginx-server.js';
import { writeSite } from '../test/http/site-fixtures.js';

/** Crawl the site fully, then incrementally; figures per crawl. */
export async function run(): Promise<Record<string, number | string>> {
  if (!findNginx()) throw new Error('nginx is not installed (apt-get install -y nginx)');
  const pagesWanted = Number(process.env.BENCH_WEB_PAGES ?? 1000);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-bench-web-'));
  const siteRoot = path.join(work, 'site');
  const pages = writeSite(siteRoot, pagesWanted);
  const nginx = await startNginx(siteRoot);
  const service = await TrawlService.open({ dataDir: path.join(work, 'data') });
  try {
    const source = service.addSource({
      startAddresses: [`${nginx.origin}/`],
      settings: { http: { profile: 'fast' } },
    });
    let t0 = performance.now();
    const [full] = await service.crawl({ sourceId: source.id, mode: 'full' });
    const fullSecs = (performance.now() - t0) / 1000;
    if (full.status !== 'done' || full.counts.added !== pages.length) {
      throw new Error(
        `full crawl ${full.status}: ${JSON.stringify(full.counts)} (expected ${pages.length} added)`,
      );
    }
    t0 = performance.now();
    const [inc] = await service.crawl({ sourceId: source.id, mode: 'incremental' });
    const incSecs = (performance.now() - t0) / 1000;
    const hits = service.search({ query: 'quarterly planning', limit: 1 }).total;
    return {
      pages: pages.length,
      'full crawl s': fullSecs,
      pagesPerSec: pages.length / fullSecs,
      'incremental (304) s': incSecs,
      'incremental pages/s': inc.counts.notModified / incSecs,
      'incremental not modified': inc.counts.notModified,
      'search hits (every page)': hits,
      target: pages.length / fullSecs >= 300 ? 'met (>= 300 pages/s)' : 'MISSED (< 300 pages/s)',
    };
  } finally {
    await service.close();
    await nginx.stop();
    fs.rmSync(work, { recursive: true, force: true });
  }
}
