import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TrawlService } from '../../src/main/core/service.js';
import { checkIntegrity } from '../../src/main/core/index/database.js';
import { startBackground, type Background } from '../../src/main/core/live/background.js';
import { CrawlGate, gateExtractor } from '../../src/main/core/live/crawl-gate.js';
import { LiveSettings } from '../../src/main/core/live/live-settings.js';
import { makeService } from '../helpers/engine.js';
import { sleep, until, SLACK_MS } from './live-env.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function tree(files: number, word: string, size = 400): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-sched-src-'));
  for (let i = 0; i < files; i++) {
    const dir = path.join(root, `d${i % 10}`);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, `f${i}.txt`), `${word} document${i} ${'filler text '.repeat(size / 12)}`);
  }
  cleanups.push(() => fs.rmSync(root, { recursive: true, force: true }));
  return root;
}

async function open(opts: { maxConcurrentCrawls?: number } = {}): Promise<TrawlService> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-sched-data-'));
  const service = await TrawlService.open({ dataDir, filterWorkers: 1, ...opts });
  cleanups.push(async () => {
    await service.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
  return service;
}

function total(service: TrawlService, word: string): number {
  return service.search({ query: word, limit: 1 }).total;
}

describe('scheduled crawls through a real service', () => {
  it('gives a source that was never crawled its first crawl, and records it as history', async () => {
    const service = await open();
    const root = tree(30, 'firstcrawl');
    const s = service.addSource({ startAddresses: [root] });
    const bg: Background = await startBackground(service, { priority: 'none' });
    cleanups.push(() => bg.stop());
    await until(() => total(service, 'firstcrawl') === 30, SLACK_MS, 'first crawl');
    await until(() => service.crawls(s.id).some((c) => c.status === 'done'), SLACK_MS, 'crawl recorded');
    const st = bg.status().sources[0];
    const first = service.crawls(s.id).find((c) => c.status === 'done')!;
    expect(st.nextIncrementalAt).toBe(first.startedAt + 60 * 60_000); // folder default: hourly
    expect(st.nextFullAt).toBe(first.startedAt + 7 * 24 * 60 * 60_000);
  });

  it('joins a second request for a source that is already crawling instead of starting another', async () => {
    const service = await open();
    const root = tree(200, 'joinword');
    const s = service.addSource({ startAddresses: [root] });
    const a = service.crawl({ sourceId: s.id, mode: 'full' });
    await until(() => service.runningCrawls().length === 1, SLACK_MS, 'crawl running');
    const b = service.crawl({ sourceId: s.id, mode: 'incremental' });
    const [[ra], [rb]] = await Promise.all([a, b]);
    expect(rb.id).toBe(ra.id);
    expect(ra.mode).toBe('full');
    expect(service.crawls(s.id)).toHaveLength(1);
    expect(total(service, 'joinword')).toBe(200);
  });

  it('runs crawls of different sources concurrently, never more than the global limit', async () => {
    const service = await open({ maxConcurrentCrawls: 2 });
    const ids = ['alpha', 'beta', 'gamma'].map(
      (w) => service.addSource({ startAddresses: [tree(150, `${w}word`)] }).id,
    );
    const running = new Set<number>();
    let most = 0;
    service.on('progress', (p) => {
      if (p.state === 'running') running.add(p.sourceId);
      else running.delete(p.sourceId);
      most = Math.max(most, running.size);
    });
    const records = await service.crawl({ mode: 'full' });
    expect(records.map((r) => r.status)).toEqual(['done', 'done', 'done']);
    expect(records.map((r) => r.sourceId).sort()).toEqual(ids.sort());
    expect(most).toBe(2);
  });

  // Overlapping crawls share the service's one IndexWriter (one transaction per connection).
  it('loses nothing when sources crawl concurrently', async () => {
    const service = await open({ maxConcurrentCrawls: 2 });
    for (const w of ['alpha', 'beta']) service.addSource({ startAddresses: [tree(300, `${w}word`)] });
    await service.crawl({ mode: 'full' });
    expect([total(service, 'alphaword'), total(service, 'betaword')]).toEqual([300, 300]);
  });

  it('stops a crawl cleanly: no half-written documents, and the next crawl completes it', async () => {
    const service = await open();
    const root = tree(600, 'stopword', 4000);
    const s = service.addSource({ startAddresses: [root] });
    const crawl = service.crawl({ sourceId: s.id, mode: 'full' });
    await until(() => (service.runningCrawls()[0]?.counts.added ?? 0) >= 50, SLACK_MS, 'crawl under way');
    service.stopCrawl(s.id);
    const [rec] = await crawl;
    expect(rec.status).toBe('stopped');
    const db = service.db;
    expect(checkIntegrity(db)).toEqual([]);
    const docs = (db.prepare('SELECT count(*) AS n FROM documents').get() as { n: number }).n;
    expect(docs).toBeGreaterThan(0);
    expect(docs).toBeLessThan(600);
    expect((db.prepare('SELECT count(*) AS n FROM fts').get() as { n: number }).n).toBe(docs);
    const withoutText = db
      .prepare(
        `SELECT count(*) AS n FROM documents d WHERE d.status = 'ok' AND d.text_at_source = 0 AND NOT EXISTS (SELECT 1 FROM bodies b WHERE b.id = d.id)`,
      )
      .get() as { n: number };
    expect(withoutText.n).toBe(0);
    expect(total(service, 'stopword')).toBe(docs);
    const [next] = await service.crawl({ sourceId: s.id, mode: 'incremental' });
    expect(next.status).toBe('done');
    expect(next.counts.notModified).toBe(docs);
    expect(total(service, 'stopword')).toBe(600);
  });

  it('keeps global and per-source pause in the database across a restart', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-sched-data-'));
    cleanups.push(() => fs.rmSync(dataDir, { recursive: true, force: true }));
    const rootA = tree(5, 'pausea');
    const rootB = tree(5, 'pauseb');
    let service = await TrawlService.open({ dataDir, filterWorkers: 1 });
    const a = service.addSource({ startAddresses: [rootA] });
    service.addSource({ startAddresses: [rootB] });
    let bg = await startBackground(service, { priority: 'none', schedule: false });
    bg.pause(a.id);
    bg.pause();
    await bg.stop();
    await service.close();

    service = await TrawlService.open({ dataDir, filterWorkers: 1 });
    bg = await startBackground(service, { priority: 'none' });
    expect(bg.isPaused()).toBe(true);
    expect(new LiveSettings(service.db).get('paused')).toBe(true);
    await sleep(500);
    expect(service.crawls()).toEqual([]); // nothing crawled while globally paused
    expect(bg.status().sources.map((s) => s.state)).toEqual(['paused', 'paused']);
    bg.resume();
    await until(() => total(service, 'pauseb') === 5, SLACK_MS, 'unpaused source crawled');
    expect(total(service, 'pausea')).toBe(0); // still paused on its own
    expect(service.sources.get(a.id)!.paused).toBe(true);
    await bg.stop();
    await service.close();
  });

  it('notices a global pause set by another process on the same data directory', async () => {
    const service = await open();
    service.addSource({ startAddresses: [tree(3, 'otherproc')] });
    const bg = await startBackground(service, { priority: 'none', schedule: false, refreshMs: 100 });
    cleanups.push(() => bg.stop());
    await until(() => bg.status().sources[0].state === 'watching', SLACK_MS, 'watching');
    const { openDatabase } = await import('../../src/main/core/index/database.js');
    const other = openDatabase(service.dataDir);
    new LiveSettings(other).set('paused', true);
    other.close();
    await until(() => bg.status().sources[0].state === 'paused', SLACK_MS, 'paused by the other process');
    await until(() => bg.status().watches === 0, SLACK_MS, 'watches closed');
  });
});

describe('staying out of the way', () => {
  it('holds a crawl while the user keeps searching, and lets it finish once they stop', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-gate-data-'));
    const { service } = makeService(dataDir);
    // The composition the lead wires into engine.ts: the extractor behind the background's gate.
    const gate = new CrawlGate({ quietMs: 300 });
    const gated = gateExtractor((service as unknown as { deps: { extractor: never } }).deps.extractor, gate);
    (service as unknown as { deps: { extractor: unknown } }).deps.extractor = gated;
    cleanups.push(async () => {
      await service.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    });
    const s = service.addSource({ startAddresses: [tree(100, 'typingword')] });
    gate.noteUserActivity();
    const crawl = service.crawl({ sourceId: s.id, mode: 'full' });
    for (let i = 0; i < 10; i++) {
      gate.noteUserActivity(); // a search every 100 ms for a second
      service.search({ query: 'typingword' });
      await sleep(100);
    }
    expect(service.runningCrawls()).toHaveLength(1);
    // same connection: even rows not yet committed would show
    expect((service.db.prepare('SELECT count(*) AS n FROM documents').get() as { n: number }).n).toBe(0);
    const [rec] = await crawl;
    expect(rec.counts.added).toBe(100);
    expect(gate.stats().heldMs).toBeGreaterThanOrEqual(1000);
  });
});
