/**
 * Live index benchmark. On a generated mixed corpus (`BENCH_LIVE_FILES`, default 3,000 files):
 * - query latency while idle vs during a full crawl, without and with the crawl gate (user activity
 *   noted on every query, as the transports do) plus lowered thread priority; queries come in
 *   typing bursts (6 queries 80 ms apart, then 700 ms of reading) and latency counts from when the
 *   query was due, so time spent waiting for the event loop is included;
 * - save-to-searchable latency: a file created or modified in a watched source until a search finds it;
 * - what watching costs: watches, time to arm them, memory.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TrawlService } from '../src/main/core/service.js';
import type { ContentExtractor } from '../src/main/core/crawl/tree-crawler.js';
import { startBackground } from '../src/main/core/live/background.js';
import { CrawlGate, gateExtractor } from '../src/main/core/live/crawl-gate.js';
import { ThreadPriority } from '../src/main/core/live/process-priority.js';
import { generateCorpus, percentile, rng } from './corpus.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** An endless stream of distinct queries: single words (common to rare), AND pairs, prefixes. */
function queryStream(vocab: string[], seed: number): () => string {
  const r = rng(seed);
  const pick = (lo: number, hi: number) => vocab[lo + Math.floor(r() * (hi - lo))];
  return () => {
    const x = r();
    if (x < 0.15) return pick(10, 200);
    if (x < 0.55) return pick(200, 15_000);
    if (x < 0.85) return `${pick(10, 1000)} ${pick(100, 5000)}`;
    return `${pick(100, 3000).slice(0, 4)}*`;
  };
}

/**
 * Issue queries in typing bursts until `done()` (or `max` queries); returns each query's latency
 * in ms, measured from when it was due.
 */
async function typingLatencies(
  service: TrawlService,
  next: () => string,
  opts: { done: () => boolean; max: number; onQuery?: () => void },
): Promise<number[]> {
  const out: number[] = [];
  while (!opts.done() && out.length < opts.max) {
    for (let k = 0; k < 6 && out.length < opts.max; k++) {
      const due = performance.now() + 80;
      await sleep(80);
      opts.onQuery?.();
      service.search({ query: next(), limit: 20 });
      out.push(performance.now() - due);
    }
    await sleep(700);
  }
  return out;
}

/** Run a full crawl while querying; returns the latencies and how long the crawl took. */
async function duringCrawl(
  service: TrawlService,
  next: () => string,
  onQuery?: () => void,
): Promise<{ lat: number[]; secs: number }> {
  let finished = false;
  const t0 = performance.now();
  const crawl = service.crawl({ mode: 'full' }).finally(() => (finished = true));
  const lat = await typingLatencies(service, next, { done: () => finished, max: 5000, onQuery });
  const [rec] = await crawl;
  if (rec.status !== 'done') throw new Error(`full crawl ${rec.status}: ${rec.error}`);
  return { lat, secs: (performance.now() - t0) / 1000 };
}

async function untilFound(
  service: TrawlService,
  word: string,
  path: string,
  timeoutMs = 30_000,
): Promise<number> {
  const t0 = performance.now();
  for (;;) {
    if (service.search({ query: word, limit: 5 }).hits.some((h) => h.path === path))
      return performance.now() - t0;
    if (performance.now() - t0 > timeoutMs) return Infinity;
    await sleep(2);
  }
}

export async function run(): Promise<Record<string, number | string>> {
  const files = Number(process.env.BENCH_LIVE_FILES ?? 3000);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-bench-live-'));
  const corpus = path.join(work, 'corpus');
  const { vocab } = generateCorpus(corpus, { files, pdf: 0.05, docx: 0.05 });
  const service = await TrawlService.open({ dataDir: path.join(work, 'data') });
  const deps = (service as unknown as { deps: { extractor: ContentExtractor } }).deps;
  try {
    service.addSource({ startAddresses: [corpus] });
    const [first] = await service.crawl({ mode: 'full' });
    if (first.status !== 'done') throw new Error(`initial crawl ${first.status}: ${first.error}`);
    for (let i = 0; i < 30; i++) service.search({ query: vocab[300 + i] }); // warm statements and caches

    const idle = await typingLatencies(service, queryStream(vocab, 1), { done: () => false, max: 90 });
    const plain = await duringCrawl(service, queryStream(vocab, 2));

    // The gate as the lead wires it: in front of every filter run, activity noted per query.
    const gate = new CrawlGate({ quietMs: 400 });
    const inner = deps.extractor;
    deps.extractor = gateExtractor(inner, gate);
    const priority = new ThreadPriority('threads');
    priority.apply();
    const off = service.on('progress', () => priority.apply());
    let gated: { lat: number[]; secs: number };
    try {
      gated = await duringCrawl(service, queryStream(vocab, 3), () => gate.noteUserActivity());
    } finally {
      off();
      priority.restore();
      deps.extractor = inner;
    }

    // Live updates: arm the watches, then save files one at a time.
    const before = process.memoryUsage();
    let t0 = performance.now();
    const bg = await startBackground(service, { schedule: false, catchUp: false, priority: 'none' });
    const armMs = performance.now() - t0;
    const after = process.memoryUsage();
    const watches = bg.status().watches;
    const saves: number[] = [];
    const notes = fs
      .readdirSync(path.join(corpus, 'dept-0', 'project-0'))
      .filter((f) => f.endsWith('.txt'))
      .map((f) => path.join(corpus, 'dept-0', 'project-0', f));
    fs.mkdirSync(path.join(corpus, 'live'), { recursive: true });
    await sleep(300);
    for (let i = 0; i < 40; i++) {
      const word = `savetoken${i}q${Math.floor(Math.random() * 1e6)}`;
      let target: string;
      if (i % 2 === 0 || notes.length === 0) {
        target = path.join(corpus, 'live', `save-${i}.txt`);
        fs.writeFileSync(target, `A note written just now about ${word}.\n`);
      } else {
        target = notes[i % notes.length];
        fs.appendFileSync(target, `\nEdited: ${word}\n`);
      }
      t0 = performance.now();
      saves.push(await untilFound(service, word, target));
      await sleep(400);
    }
    await bg.stop();

    const idleP95 = percentile(idle, 95);
    const ratio = (xs: number[]) => percentile(xs, 95) / idleP95;
    const saveP95 = percentile(saves, 95);
    return {
      files,
      'idle query p50 ms': percentile(idle, 50),
      'idle query p95 ms': idleP95,
      'crawl query p95 ms (plain)': percentile(plain.lat, 95),
      'crawl/idle p95 (plain)': ratio(plain.lat),
      'crawl query p95 ms (gate+priority)': percentile(gated.lat, 95),
      'crawl/idle p95 (gate+priority)': ratio(gated.lat),
      'queries during crawl (plain/gated)': `${plain.lat.length}/${gated.lat.length}`,
      'full crawl s (plain)': plain.secs,
      'full crawl s (gate+priority)': gated.secs,
      'save-to-searchable p50 ms': percentile(saves, 50),
      'save-to-searchable p95 ms': saveP95,
      'save-to-searchable max ms': Math.max(...saves),
      watches,
      'watch arm ms': armMs,
      'rss delta MB (watching)': (after.rss - before.rss) / 1e6,
      'heap delta MB (watching)': (after.heapUsed - before.heapUsed) / 1e6,
      'target query p95 <= 2x idle': ratio(gated.lat) <= 2 ? 'met' : 'MISSED',
      'target save-to-searchable p95 <= 2 s': saveP95 <= 2000 ? 'met' : 'MISSED',
    };
  } finally {
    await service.close();
    fs.rmSync(work, { recursive: true, force: true });
  }
}
