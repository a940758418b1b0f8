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
