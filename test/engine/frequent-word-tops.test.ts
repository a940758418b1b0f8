/**
 * The stored tops of frequent words (query/term-tops.ts) are what the service answers common words
 * from once they are current: a crawl, then `refreshSearchShortcuts`, then searches through
 * `TrawlService`. Proven by marking the stored row (a total no scan would give) and reading it back
 * through the service; after the index changes, the row is not used until it is rebuilt.
 */
import fs from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TERM_TOPS_MIN_DOCS } from '../../src/main/core/query/term-tops.js';
import { makeService, tempDir, writeTree } from '../helpers/engine.js';

describe('frequent-word tops through the service', () => {
  let root: string;
  let dataDir: string;
  let svc: ReturnType<typeof makeService>['service'];

  beforeEach(() => {
    root = tempDir('trawl-fwt-root-');
    dataDir = tempDir('trawl-fwt-data-');
    const files: Record<string, string> = {};
    for (let i = 0; i < TERM_TOPS_MIN_DOCS + 20; i++) files[`d${i % 10}/n${i}.txt`] = `zqfrequent note ${i}`;
    writeTree(root, files);
    svc = makeService(dataDir).service;
  });
  afterEach(async () => {
    await svc.close();
    fs.rmSync(root, { recursive: true, force: true });
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers a common word from its stored top once refreshed, and never from a stale one', async () => {
    svc.addSource({ startAddresses: [root] });
    await svc.crawl({ mode: 'full' });
    const n = TERM_TOPS_MIN_DOCS + 20;
    expect(svc.search({ query: 'zqfrequent' }).total).toBe(n);
    const r = await svc.refreshSearchShortcuts();
    expect(r.done).toBe(true);
    // Mark the stored row: only an answer read from it can carry this total.
    svc.db.prepare("UPDATE term_tops SET total = total + 1000 WHERE term = 'zqfrequent'").run();
    expect(svc.search({ query: 'zqfrequent', limit: 5 }).total).toBe(n + 1000);

    // Any change to the index retires the row: the service scans again (the true total).
    writeTree(root, { 'extra.txt': 'zqfrequent once more' });
    await svc.crawl({ mode: 'incremental' });
    expect(svc.search({ query: 'zqfrequent', limit: 6 }).total).toBe(n + 1);
  });
});
