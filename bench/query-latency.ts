/**
 * In-process query latency of the query engine on a 20,000-document index (same word distribution
 * as the engine bench's corpus), snippets included: without trimming, and trimmed to a user who
 * may read 10 of 50 ACLs. `run()` returns the figures; run directly to print them:
 * `node bin/run-ts.mjs bench/query-latency.ts`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { rng, textOf, vocabulary, percentile, querySet } from './corpus.js';
import { openDatabase } from '../src/main/core/index/database.js';
import { addAcl, addSource, addDocs, type FixtureDoc } from '../src/main/core/query/index-fixture.js';
import { search, suggest, type SearchContext } from '../src/main/core/query/search.js';
import { refreshTermTops } from '../src/main/core/query/term-tops.js';

const round = (x: number): number => Number(x.toFixed(3));

/** The engine bench's query shapes: common, mid and rare words, AND pairs, phrases, prefixes. */

/**
 * Latencies of the query set. `cold`: every run misses the result cache (a new generation each
 * time, as after any index change); warm: repeated queries are served from it.
 */
function time(queries: string[], ctx: SearchContext, rounds: number, cold: boolean): number[] {
  const db = current!;
  let generation = 0;
  for (const q of queries) search(db, { query: q, limit: 10 }, { ...ctx, generation });
  const times: number[] = [];
  for (let round = 0; round < rounds; round++) {
    for (const q of queries) {
      if (cold) generation++;
      const c = { ...ctx, generation };
      const t = performance.now();
      search(db, { query: q, limit: 10 }, c);
      times.push(performance.now() - t);
    }
  }
  return times;
}

let current: ReturnType<typeof openDatabase> | null = null;

export async function run(): Promise<Record<string, number | string>> {
  const docs = Number(process.env.BENCH_QUERY_DOCS ?? 20_000);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-qbench-'));
  const db = openDatabase(dir);
  current = db;
  try {
    const vocab = vocabulary(20_000);
    const r = rng(42);
    addSource(db, 'bench', 1);
    const acls = Array.from({ length: 50 }, (_, i) => addAcl(db, `acl-${i}`));
    const batch: FixtureDoc[] = [];
    const t0 = performance.now();
    for (let i = 0; i < docs; i++) {
      const body = textOf(r, vocab, 150 + Math.floor(r() * 900));
      const title = textOf(r, vocab, 4)
        .replace(/\s*\.\n?/g, ' ')
        .trim();
      batch.push({
        path: `/corpus/dept-${i % 20}/project-${Math.floor(i / 20) % 50}/note-${i}.txt`,
        title,
        text: `${title}\n\n${body}`,
        mtime: 1_700_000_000_000 + i * 60_000,
        aclId: acls[Math.floor(r() * acls.length)],
      });
      if (batch.length === 1000) addDocs(db, batch.splice(0));
    }
    addDocs(db, batch.splice(0));
    db.pragma('wal_checkpoint(TRUNCATE)');
    const buildMs = performance.now() - t0;
    // What a crawl's end does; BENCH_TERM_TOPS=0 measures the full FTS5 path alone.
    const tTops = performance.now();
    if (process.env.BENCH_TERM_TOPS !== '0') refreshTermTops(db);
    const topsMs = performance.now() - tTops;
    const queries = querySet(vocab);
    const allCtx: SearchContext = { acl: { mode: 'all' } };
    const trimmedCtx: SearchContext = { acl: { mode: 'ids', aclIds: acls.slice(0, 10) } };
    const cold = time(queries, allCtx, 3, true);
    const coldTrimmed = time(queries, trimmedCtx, 3, true);
    const warm = time(queries, allCtx, 3, false);
    const warmTrimmed = time(queries, trimmedCtx, 3, false);
    const tSuggest0 = performance.now();
    suggest(db, 'ka', trimmedCtx);
    const suggestBuildMs = performance.now() - tSuggest0;
    const sTimes: number[] = [];
    for (const q of queries) {
      const prefix = q.replace(/[^a-z ]/g, '').slice(0, 4);
      const t = performance.now();
      suggest(db, prefix, trimmedCtx);
      sTimes.push(performance.now() - t);
    }
    return {
      documents: docs,
      'index build s (fixture writer)': Number((buildMs / 1000).toFixed(1)),
      'term tops refresh s': Number((topsMs / 1000).toFixed(1)),
      'cold query p50 ms (10 hits + snippets, all visible)': round(percentile(cold, 50)),
      'cold query p95 ms (10 hits + snippets, all visible)': round(percentile(cold, 95)),
      'cold query p50 ms (trimmed to 10 of 50 ACLs)': round(percentile(coldTrimmed, 50)),
      'cold query p95 ms (trimmed to 10 of 50 ACLs)': round(percentile(coldTrimmed, 95)),
      'cold trimming overhead at p95': `${(((percentile(coldTrimmed, 95) - percentile(cold, 95)) / percentile(cold, 95)) * 100).toFixed(0)}%`,
      'repeated query p95 ms (result cache, all visible)': round(percentile(warm, 95)),
      'repeated query p95 ms (result cache, trimmed)': round(percentile(warmTrimmed, 95)),
      'suggest index build ms': Number(suggestBuildMs.toFixed(0)),
      'suggest p95 ms': round(percentile(sTimes, 95)),
    };
  } finally {
    db.close();
    current = null;
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  console.log(JSON.stringify(await run(), null, 2));
}
