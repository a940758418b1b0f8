/**
 * Ranking evaluation: loads judged collections into real indexes through the index writer's
 * format (index-fixture), runs every query through `search()` exactly as a user's query runs
 * (sentence fallback included), and reports nDCG@10 and MAP for several BM25 field weightings;
 * then searches the weights by coordinate ascent on the tuning half of the queries and reports
 * the held-out half.
 *
 * `node bin/run-ts.mjs bench/ranking-eval.ts` prints the table; `run()` returns the figures.
 * A standard collection (SMART/Cranfield or BEIR format) is evaluated too when its directory is
 * given in TRAWL_EVAL_COLLECTION.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openDatabase, type Db } from '../src/main/core/index/database.js';
import type { FieldWeights } from '../src/main/core/model.js';
import { DEFAULT_WEIGHTS } from '../src/main/core/query/default-weights.js';
import { addDocs, addSource } from '../src/main/core/query/index-fixture.js';
import { QuerySyntaxError, search } from '../src/main/core/query/search.js';
import { loadManPages, loadSmallSet, loadStandard, type Collection } from './ranking-collections.js';
import { averagePrecision, mean, ndcgAt } from './ranking-metrics.js';

const W = (
  title: number,
  keywords: number,
  description: number,
  url: number,
  body: number,
): FieldWeights => ({
  title,
  keywords,
  description,
  url,
  body,
});

/** Named settings compared on every collection. */
export const NAMED: Record<string, FieldWeights> = {
  'uniform (1,1,1,1,1)': W(1, 1, 1, 1, 1),
  'body only (0,0,0,0,1)': W(0, 0, 0, 0, 1),
  'first guess (10,5,3,4,1)': W(10, 5, 3, 4, 1),
  'title-heavy (20,5,3,2,1)': W(20, 5, 3, 2, 1),
  'moderate (4,2,2,1,1)': W(4, 2, 2, 1, 1),
  'title 40 (40,5,3,2,1)': W(40, 5, 3, 2, 1),
  'title 20, url 4 (20,5,3,4,1)': W(20, 5, 3, 4, 1),
};

interface Loaded {
  c: Collection;
  db: Db;
  dir: string;
  ids: Map<number, string>;
}

function load(c: Collection): Loaded {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-rank-'));
  const db = openDatabase(dir);
  addSource(db, c.name, 1);
  const rowIds = addDocs(
    db,
    c.docs.map((d) => ({
      path: d.path,
      title: d.title || null,
      keywords: d.keywords,
      description: d.description,
      text: d.text,
    })),
  );
  const ids = new Map<number, string>();
  rowIds.forEach((rowId, i) => ids.set(rowId, c.docs[i].id));
  return { c, db, dir, ids };
}

/** A collection query as a user would type it: operators and quotes are not meant as syntax. */
function asTyped(q: string): string {
  return q
    .replace(/["()]/g, ' ')
    .replace(/(^|\s)[-+]+/g, '$1')
    .replace(/\b(OR|AND|NOT)\b/g, (w) => w.toLowerCase());
}

interface Scores {
  ndcg10: number;
  map: number;
  errors: number;
  /** nDCG@10 per query, in query order (for paired comparisons). */
  perQuery: number[];
  /** nDCG@10 counting only documents that match every word (no sentence-query fallback). */
  strictNdcg10: number;
}

function evaluate(l: Loaded, weights: FieldWeights, queries = l.c.queries): Scores {
  const ndcg: number[] = [];
  const strict: number[] = [];
  const ap: number[] = [];
  let errors = 0;
  for (const q of queries) {
    let ranked: string[] = [];
    let full: string[] = [];
    try {
      const r = search(
        l.db,
        { query: asTyped(q.text), limit: 100 },
        { acl: { mode: 'all' }, defaultWeights: weights, snippets: false },
      );
      ranked = r.hits.map((h) => l.ids.get(h.id)!);
      full = r.hits.filter((h) => !h.partial).map((h) => l.ids.get(h.id)!);
    } catch (e) {
      if (!(e instanceof QuerySyntaxError)) throw e;
      errors++;
    }
    ndcg.push(ndcgAt(ranked, q.rel, 10));
    strict.push(ndcgAt(full, q.rel, 10));
    ap.push(averagePrecision(ranked, q.rel));
  }
  return { ndcg10: mean(ndcg), map: mean(ap), errors, perQuery: ndcg, strictNdcg10: mean(strict) };
}

/** Queries where `a` ranks better / worse than `b` (nDCG@10), for a sign test. */
function winsLosses(a: Scores, b: Scores): string {
  let wins = 0;
  let losses = 0;
  a.perQuery.forEach((x, i) => {
    if (x > b.perQuery[i] + 1e-12) wins++;
    else if (x < b.perQuery[i] - 1e-12) losses++;
  });
  return `${wins}+/${losses}-`;
}

const FIELDS: (keyof FieldWeights)[] = ['title', 'keywords', 'description', 'url'];
const STEPS = [0.5, 1, 2, 4, 8, 16];

/** Coordinate ascent on the mean nDCG@10 over collections (body weight fixed at 1). */
function tune(sets: { l: Loaded; queries: Collection['queries'] }[]): {
  weights: FieldWeights;
  score: number;
} {
  const objective = (w: FieldWeights): number => mean(sets.map((s) => evaluate(s.l, w, s.queries).ndcg10));
  let best = W(1, 1, 1, 1, 1);
  let bestScore = objective(best);
  for (let sweep = 0; sweep < 3; sweep++) {
    let improved = false;
    for (const f of FIELDS) {
      for (const v of STEPS) {
        if (v === best[f]) continue;
        const cand = { ...best, [f]: v };
        const s = objective(cand);
        if (s > bestScore + 1e-9) {
          best = cand;
          bestScore = s;
          improved = true;
        }
      }
    }
    if (!improved) break;
  }
  return { weights: best, score: bestScore };
}

const fmtW = (w: FieldWeights): string => `(${w.title},${w.keywords},${w.description},${w.url},${w.body})`;

export async function run(): Promise<Record<string, number | string>> {
  const collections: Collection[] = [loadSmallSet()];
  const man = loadManPages({
    maxDocs: Number(process.env.EVAL_MAN_DOCS ?? 4000),
    maxQueries: Number(process.env.EVAL_MAN_QUERIES ?? 300),
  });
  if (man) collections.push(man);
  const std = process.env.TRAWL_EVAL_COLLECTION ? loadStandard(process.env.TRAWL_EVAL_COLLECTION) : null;
  if (std) collections.push(std);
  const loaded = collections.map(load);
  const out: Record<string, number | string> = {};
  try {
    for (const l of loaded) {
      out[`${l.c.name}: documents / queries`] = `${l.c.docs.length} / ${l.c.queries.length}`;
      const base = evaluate(l, DEFAULT_WEIGHTS);
      const settings = { ...NAMED, [`DEFAULT_WEIGHTS ${fmtW(DEFAULT_WEIGHTS)}`]: DEFAULT_WEIGHTS };
      for (const [name, w] of Object.entries(settings)) {
        const s = evaluate(l, w);
        out[`${l.c.name}: ${name} nDCG@10 / MAP / vs default`] =
          `${s.ndcg10.toFixed(4)} / ${s.map.toFixed(4)} / ${winsLosses(s, base)}${s.errors ? ` (${s.errors} errors)` : ''}`;
      }
      out[`${l.c.name}: DEFAULT_WEIGHTS nDCG@10 without / with the sentence fallback`] =
        `${base.strictNdcg10.toFixed(4)} / ${base.ndcg10.toFixed(4)}`;
    }
    // Tune on half of each collection's queries, report the other half.
    const halves = loaded.map((l) => {
      const tuneQ = l.c.queries.filter((_, i) => i % 2 === 0);
      const testQ = l.c.queries.filter((_, i) => i % 2 === 1);
      return { l, tuneQ, testQ };
    });
    const tuned = tune(halves.map((h) => ({ l: h.l, queries: h.tuneQ })));
    out['tuned weights (title,keywords,description,url,body)'] = fmtW(tuned.weights);
    for (const h of halves) {
      const t = evaluate(h.l, tuned.weights, h.testQ);
      const u = evaluate(h.l, NAMED['uniform (1,1,1,1,1)'], h.testQ);
      const d = evaluate(h.l, DEFAULT_WEIGHTS, h.testQ);
      out[`${h.l.c.name}: held-out nDCG@10 uniform / tuned / DEFAULT_WEIGHTS`] =
        `${u.ndcg10.toFixed(4)} / ${t.ndcg10.toFixed(4)} / ${d.ndcg10.toFixed(4)}`;
    }
  } finally {
    for (const l of loaded) {
      l.db.close();
      fs.rmSync(l.dir, { recursive: true, force: true });
    }
  }
  return out;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const res = await run();
  for (const [k, v] of Object.entries(res)) console.log(`${k.padEnd(90)} ${v}`);
}
