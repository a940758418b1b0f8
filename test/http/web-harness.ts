import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TrawlService } from '../../src/main/core/service.js';
import { openDatabase } from '../../src/main/core/index/database.js';
import { HandlerRegistry } from '../../src/main/core/sources/registry.js';
import { FileCredentialStore, type CredentialStore } from '../../src/main/core/credential-store.js';
import { basicSecurity } from '../../src/main/core/security/basic-security.js';
import { createFilterRunner } from '../../src/main/core/filters/filter-runner.js';
import { createContentExtractor } from '../../src/main/core/filters/content-extractor.js';
import type { ContentExtractor } from '../../src/main/core/crawl/tree-crawler.js';
import type { CrawlLogEntry } from '../../src/main/core/model.js';
import { createHttpHandler } from '../../src/main/core/sources/http/http-handler.js';
import { RobotsCache } from '../../src/main/core/sources/http/robots-cache.js';

/** A fresh temp folder. */
export function tempDir(prefix = 'trawl-web-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/**
 * A real service (real SQLite file, the engine's content extractor over real filter workers, the
 * real http handler) whose extractor records every URL it filtered, so tests can prove what was
 * (not) re-indexed. `TrawlService.open` composes the same parts (see web-engine.test.ts).
 */
export function makeWebService(
  dataDir: string,
  opts: { credentials?: CredentialStore; workers?: number } = {},
) {
  const inner = createContentExtractor(createFilterRunner({ workers: opts.workers ?? 1 }));
  const filtered: string[] = [];
  const extractor: ContentExtractor & { close(): Promise<void> } = {
    pick: (ext, mime) => inner.pick(ext, mime),
    run: (input) => {
      filtered.push(input.url);
      return inner.run(input);
    },
    close: () => inner.close(),
  };
  const robots = new RobotsCache();
  const service = new TrawlService({
    dataDir,
    db: openDatabase(dataDir),
    handlers: new HandlerRegistry().register(createHttpHandler({ robots })),
    extractor,
    security: basicSecurity(),
    credentials: opts.credentials ?? new FileCredentialStore(dataDir),
  });
  return { service, filtered, robots };
}

/** Every log line of a crawl, oldest first. */
export function crawlLog(service: TrawlService, crawlId: number): CrawlLogEntry[] {
  return service.log({ crawlId, limit: 10_000 }).reverse();
}

/** The last log line for each URL of a crawl. */
export function lastLineByUrl(service: TrawlService, crawlId: number): Map<string, CrawlLogEntry> {
  const m = new Map<string, CrawlLogEntry>();
  for (const e of crawlLog(service, crawlId)) m.set(e.url, e);
  return m;
}

/** URLs of a source's documents, sorted. */
export function indexedUrls(service: TrawlService, sourceId: number): string[] {
  return (
    service.db.prepare('SELECT url FROM documents WHERE source_id = ? ORDER BY url').all(sourceId) as {
      url: string;
    }[]
  ).map((r) => r.url);
}

/** Gaps in ms between consecutive arrival times. */
export function gaps(times: number[]): number[] {
  return times.slice(1).map((t, i) => t - times[i]);
}
