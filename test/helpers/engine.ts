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
 * extractor counts how often a filter ran and on which files.
 */
export function makeService(dataDir: string, opts: { security?: SecurityProvider } = {}) {
  const inner = createContentExtractor(createFilterRunner({ workers: 1 }));
  const filtered: string[] = [];
  const extractor: ContentExtractor & { close(): Promise<void> } = {
    ...inner,
    run: (input) => {
      filtered.push(input.url);
      return inner.run(input);
    },
  };
  const security = opts.security ?? basicSecurity();
  const service = new TrawlService({
    dataDir,
    db: openDatabase(dataDir),
    handlers: new HandlerRegistry().register(createFileHandler({ security: security.fileCapture })),
    extractor,
    security,
    credentials: new FileCredentialStore(dataDir),
  });
  return { service, filtered };
}
