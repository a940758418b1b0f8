import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TrawlService } from '../../src/main/core/service.js';
import { openDatabase } from '../../src/main/core/index/database.js';
import { HandlerRegistry } from '../../src/main/core/sources/registry.js';
import { createFileHandler } from '../../src/main/core/sources/file/file-handler.js';
import { FileCredentialStore } from '../../src/main/core/credential-store.js';
import { basicSecurity } from '../../src/main/core/security/basic-security.js';
import { createFilterRunner } from '../../src/main/core/filters/filter-runner.js';
import { createContentExtractor } from '../../src/main/core/filters/content-extractor.js';
import type { ContentExtractor } from '../../src/main/core/crawl/tree-crawler.js';
import type { SecurityProvider } from '../../src/main/core/security/security-provider.js';
import type { NewContentSource } from '../../src/main/core/model.js';
import type Database from 'better-sqlite3';

/** A fresh temp folder, removed by the returned cleanup. */
export function tempDir(prefix = 'trawl-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** Write files (relative path → content) under `root`, creating folders. */
export function writeTree(root: string, files: Record<string, string | Buffer>): void {
  for (const [rel, content] of Object.entries(files)) {
    const p = path.join(root, rel);
    fs.mkdirSync(path.dirname(p), { recursive: true });
    fs.writeFileSync(p, content);
  }
}

/**
 * A real service over a real SQLite file, real file handler and real filter workers, whose
 * extractor counts how often a filter ran and on which files (`filtered`), and whose file handler
 * records how many bytes it read of each file it opened (`opened`).
 */
export function makeService(dataDir: string, opts: { security?: SecurityProvider } = {}) {
  const inner = createContentExtractor(createFilterRunner({ workers: 1 }));
  const filtered: string[] = [];
  const opened: { url: string; bytes: number; truncated: boolean }[] = [];
  const extractor: ContentExtractor & { close(): Promise<void> } = {
    ...inner,
    run: (input) => {
      filtered.push(input.url);
      return inner.run(input);
    },
  };
  const security = opts.security ?? basicSecurity();
  const files = createFileHandler({ security: security.fileCapture });
  const counting: typeof files = {
    ...files,
    open: async (item, maxBytes, ctx, o) => {
      const r = await files.open(item, maxBytes, ctx, o);
      opened.push({ url: item.url, bytes: r.bytes.length, truncated: r.truncated });
      return r;
    },
  };
  const service = new TrawlService({
    dataDir,
    db: openDatabase(dataDir),
    handlers: new HandlerRegistry().register(counting),
    extractor,
    security,
    credentials: new FileCredentialStore(dataDir),
  });
  return { service, filtered, opened };
}

/**
 * A folder of `files`, added as a source to a fresh {@link makeService} and crawled in full.
 * `paths(q)` lists the hits of a query relative to the folder; `reopen()` closes the service and
 * opens a new one on the same index (migrations run); `close()` also removes both folders.
 */
export async function crawledFolder(
  prefix: string,
  files: Record<string, string | Buffer>,
  source: Omit<NewContentSource, 'startAddresses'> = {},
) {
  const root = tempDir(`${prefix}-`);
  const dataDir = tempDir(`${prefix}-data-`);
  writeTree(root, files);
  const folder = {
    ...makeService(dataDir),
    root,
    dataDir,
    paths(q: string): string[] {
      return folder.service
        .search({ query: q, limit: 50 })
        .hits.map((h) => path.relative(root, h.path))
        .sort();
    },
    async reopen(): Promise<void> {
      await folder.service.close();
      Object.assign(folder, makeService(dataDir));
    },
    async close(): Promise<void> {
      await folder.service.close();
      fs.rmSync(root, { recursive: true, force: true });
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
  folder.service.addSource({ startAddresses: [root], ...source });
  await folder.service.crawl({ mode: 'full' });
  return folder;
}

/**
 * What an older Trawl left: `files` crawled now, then `downgrade` undoes what newer filters wrote
 * and the schema version is set back to `version`; the index is reopened (the migrations since
 * run), with `filtered` and `opened` empty.
 */
export async function indexFromVersion(
  prefix: string,
  files: Record<string, string | Buffer>,
  version: number,
  downgrade: (db: Database.Database) => void,
) {
  const folder = await crawledFolder(prefix, files);
  downgrade(folder.service.db);
  folder.service.db.pragma(`user_version = ${version}`);
  await folder.reopen();
  return folder;
}
