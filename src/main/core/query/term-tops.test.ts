import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../index/database.js';
import { addAcl, addDocs, addSource, type FixtureDoc } from './index-fixture.js';
import { search, type SearchContext } from './search.js';
import { refreshTermTops, refreshTermTopsInBackground, termTopFor } from './term-tops.js';
import { weightsSql } from './rank-sql.js';
import { DEFAULT_WEIGHTS } from './default-weights.js';
import { compileQuery } from './query-compiler.js';
import { parseQuery } from './query-parser.js';
import type { SearchRequest } from '../api-types.js';

/** Surface forms (several share a stem), so most tokens are frequent in a small index. */
const WORDS = [
  'report',
  'reports',
  'reporting',
  'release',
  'released',
  'agreed',
  'budget',
  'proxy',
  'café',
  'cafe',
  'meeting',
  'network',
  'storage',
  'backup',
  'design',
  'invoice',
  'quarter',
  'policy',
  'customer',
  'server',
  'contract',
  'zeldor',
  'ulnix',
  'vaarsol',
  '协议',
];
const EXTS = ['txt', 'pdf', 'md'];
const MIN_DOCS = 8;
const DEPTH = 12;

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function words(r: () => number, n: number): string {
  // Skewed: low indexes are common, so tokens span rare to almost-everywhere.
  return Array.from({ length: n }, () => WORDS[Math.floor(WORDS.length * r() * r())]).join(' ');
}

function makeDocs(seed: number, n: number, acls: number[]): FixtureDoc[] {
  const r = rng(seed);
  return Array.from({ length: n }, (_, i) => ({
    sourceId: 1 + (i % 2),
    path: `/docs/${words(r, 1)}/file-${seed}-${i}.${EXTS[i % EXTS.length]}`,
    title: r() < 0.8 ? words(r, 1 + Math.floor(r() * 3)) : null,
    keywords: r() < 0.3 ? words(r, 2) : null,
    description: r() < 0.3 ? words(r, 4) : null,
    text: words(r, Math.floor(r() * 40)),
    mtime: 1_700_000_000_000 + Math.floor(r() * 1000) * 86_400_000,
    aclId: r() < 0.3 ? null : acls[Math.floor(r() * acls.length)],
  }));
}

/** Two indexes written identically: `fast` gets term_tops, `slow` never does. */
let dirs: string[] = [];
let fast: Db;
let slow: Db;
let acls: number[];

function open(): Db {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-tops-'));
  dirs.push(dir);
  const db = openDatabase(dir);
  addSource(db, 'one', 1);
  addSource(db, 'two', 2);
  return db;
}

function both(f: (db: Db) => void): void {
  f(fast);
  f(slow);
}

beforeAll(() => {
  fast = open();
  slow = open();
  both((db) => {
    acls = [addAcl(db, 'a'), addAcl(db, 'b'), addAcl(db, 'c'), addAcl(db, 'd')];
    addDocs(db, makeDocs(1, 160, acls));
  });
});

afterAll(() => {
  fast.close();
  slow.close();
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  dirs = [];
});

const refresh = (): void => {
  const r = refreshTermTops(fast, { minDocs: MIN_DOCS, depth: DEPTH });
  expect(r.done).toBe(true);
};

const queryArb = fc.record({
  word: fc.constantFrom(...WORDS, 'Report', 'REPORTS', 'Café', 'nothing', 'e-mail'),
  filter: fc.constantFrom('', ' ext:pdf', ' modified:>2025-06-01', ' -budget'),
  limit: fc.constantFrom(0, 1, 3, 10, 25),
  offset: fc.constantFrom(0, 2, 5, 11, 30, 200),
  sort: fc.constantFrom(undefined, 'relevance', 'date') as fc.Arbitrary<SearchRequest['sort']>,
  types: fc.constantFrom(undefined, ['pdf'], ['txt', 'md']),
  sourceIds: fc.constantFrom(undefined, [2]),
  acl: fc.constantFrom<SearchContext['acl'] | 'sub'>({ mode: 'all' }, { mode: 'ids', aclIds: [] }, 'sub'),
  aclPick: fc.subarray([0, 1, 2, 3]),
  weights: fc.constantFrom('default', 'per-source', 'other-default'),
});

type Q = typeof queryArb extends fc.Arbitrary<infer T> ? T : never;

function runBoth(q: Q): { usedTop: boolean } {
  const ctx: SearchContext = {
    acl: q.acl === 'sub' ? { mode: 'ids', aclIds: q.aclPick.map((i) => acls[i]) } : q.acl,
    now: 1_760_000_000_000,
    weightsBySource:
      q.weights === 'per-source' ? new Map([[2, { ...DEFAULT_WEIGHTS, title: 3 }]]) : undefined,
    defaultWeights: q.weights === 'other-default' ? { ...DEFAULT_WEIGHTS, body: 2 } : undefined,
  };
  const req: SearchRequest = {
    query: q.word + q.filter,
    limit: q.limit,
    offset: q.offset,
    sort: q.sort,
    types: q.types ? [...q.types] : undefined,
    sourceIds: q.sourceIds ? [...q.sourceIds] : undefined,
  };
  const a = search(fast, req, ctx);
  const b = search(slow, req, ctx);
  expect(a.total).toBe(b.total);
  expect(a.hits.map((h) => [h.id, h.score, h.partial ?? false])).toEqual(
    b.hits.map((h) => [h.id, h.score, h.partial ?? false]),
  );
  expect(a.hits.map((h) => h.snippet)).toEqual(b.hits.map((h) => h.snippet));
  const quoted = `"${q.word}"`;
  return { usedTop: termTopFor(fast, quoted, weightsSql(DEFAULT_WEIGHTS)) !== null };
}

describe('term_tops answers exactly as the full FTS5 path', () => {
  it('random one-word queries (filters, trimming, pages, weights) give the same ids, order, scores and totals', () => {
    refresh();
    let used = 0;
    let runs = 0;
    fc.assert(
      fc.property(queryArb, (q) => {
        runs++;
        if (runBoth(q).usedTop) used++;
      }),
      { numRuns: 600 },
    );
    // The property must exercise the materialised path, not only the fallback.
    expect(used).toBeGreaterThan(runs / 3);
  });

  it('stays exact across index changes: stale rows are not used until refreshed, ACL moves are seen', () => {
    refresh();
    const r = rng(7);
    for (let round = 0; round < 6; round++) {
      const kind = round % 3;
      if (kind === 0) both((db) => addDocs(db, makeDocs(100 + round, 5, acls)));
      else if (kind === 1) {
        const id = 1 + Math.floor(r() * 150);
        both((db) => {
          db.prepare('DELETE FROM fts WHERE rowid = ?').run(id);
          db.prepare('DELETE FROM documents WHERE id = ?').run(id);
        });
      } else {
        const id = 1 + Math.floor(r() * 150);
        const acl = acls[Math.floor(r() * acls.length)];
        both((db) => db.prepare('UPDATE documents SET acl_id = ? WHERE id = ?').run(acl, id));
      }
      const rank = weightsSql(DEFAULT_WEIGHTS);
      const top = termTopFor(fast, '"report"', rank);
      if (kind === 2) {
        // The ranking is still current; the per-ACL counts are not.
        expect(top).not.toBeNull();
        expect(top!.aclCurrent).toBe(false);
      } else {
        expect(top).toBeNull();
      }
      fc.assert(
        fc.property(queryArb, (q) => void runBoth(q)),
        { numRuns: 60 },
      );
      refresh();
      expect(termTopFor(fast, '"report"', rank)?.aclCurrent).toBe(true);
      fc.assert(
        fc.property(queryArb, (q) => void runBoth(q)),
        { numRuns: 60 },
      );
    }
  });
});

describe('termTopFor', () => {
  it('maps a surface word to its stored token and refuses what it cannot prove', () => {
    refresh();
    const rank = weightsSql(DEFAULT_WEIGHTS);
    const a = termTopFor(fast, '"Reporting"', rank);
    const b = termTopFor(fast, '"report"', rank);
    expect(a).not.toBeNull();
    expect(Array.from(a!.ids)).toEqual(Array.from(b!.ids));
    expect(a!.ids.length).toBe(DEPTH);
    expect(a!.total).toBeGreaterThan(DEPTH);
    expect(termTopFor(fast, '"report"*', rank)).toBeNull();
    expect(termTopFor(fast, '{title} : "report"', rank)).toBeNull();
    expect(termTopFor(fast, '"report" AND "budget"', rank)).toBeNull();
    expect(termTopFor(fast, '"report budget"', rank)).toBeNull();
    expect(termTopFor(fast, '"report"', weightsSql({ ...DEFAULT_WEIGHTS, url: 9 }))).toBeNull();
    fast.exec('BEGIN');
    try {
      expect(termTopFor(fast, '"report"', rank)).toBeNull();
    } finally {
      fast.exec('ROLLBACK');
    }
  });

  it('stores the exact FTS5 ranking prefix and total', () => {
    refresh();
    const rank = weightsSql(DEFAULT_WEIGHTS);
    // `release` and `agreed` index as stems that are not their own stem (`releas` → `relea`).
    for (const w of ['report', 'release', 'agreed', 'café']) {
      const top = termTopFor(fast, `"${w}"`, rank);
      expect(top, w).not.toBeNull();
      if (!top) continue;
      const rows = fast
        .prepare(`SELECT rowid AS id, ${rank} AS s FROM fts WHERE fts MATCH ? ORDER BY s, id`)
        .all(`"${w}"`) as { id: number; s: number }[];
      expect(top.total).toBe(rows.length);
      expect(Array.from(top.ids)).toEqual(rows.slice(0, DEPTH).map((x) => x.id));
      expect(Array.from(top.scores)).toEqual(rows.slice(0, DEPTH).map((x) => x.s));
    }
    expect(termTopFor(fast, '"report"', rank)).not.toBeNull();
  });

  it('refresh is a no-op when nothing changed and refuses to run inside a transaction', () => {
    refresh();
    expect(refreshTermTops(fast, { minDocs: MIN_DOCS, depth: DEPTH }).built).toBe(0);
    fast.exec('BEGIN');
    try {
      expect(() => refreshTermTops(fast)).toThrow(/transaction/);
    } finally {
      fast.exec('ROLLBACK');
    }
  });

  it('with a budget, builds in slices and finishes on a later call', () => {
    both((db) => addDocs(db, makeDocs(500, 3, acls)));
    const first = refreshTermTops(fast, { minDocs: MIN_DOCS, depth: DEPTH, budgetMs: 0 });
    expect(first.done).toBe(false);
    let r = first;
    for (let i = 0; i < 1000 && !r.done; i++)
      r = refreshTermTops(fast, { minDocs: MIN_DOCS, depth: DEPTH, budgetMs: 0 });
    expect(r.done).toBe(true);
    expect(termTopFor(fast, '"report"', weightsSql(DEFAULT_WEIGHTS))).not.toBeNull();
  });
});

describe('phrases, prefixes and several terms ranked and counted in one pass', () => {
  it('give the ids, order, scores and totals of ORDER BY score, id with a separate count', () => {
    const rank = weightsSql(DEFAULT_WEIGHTS);
    const arb = fc.record({
      a: fc.constantFrom(...WORDS),
      b: fc.constantFrom(...WORDS),
      shape: fc.constantFrom('phrase', 'and', 'prefix', 'or'),
      extra: fc.constantFrom('', ' report', ' -budget', ' "proxy meeting"'),
      limit: fc.constantFrom(1, 3, 10, 25),
      offset: fc.constantFrom(0, 2, 11, 40),
      acl: fc.constantFrom('all', 'none', 'some'),
    });
    let nonEmpty = 0;
    fc.assert(
      fc.property(arb, (q) => {
        const aclIds = q.acl === 'none' ? [] : [acls[0], acls[2]];
        const ctx: SearchContext = { acl: q.acl === 'all' ? { mode: 'all' } : { mode: 'ids', aclIds } };
        const head = {
          phrase: `"${q.a} ${q.b}"`,
          and: `${q.a} ${q.b}`,
          prefix: `${q.a.slice(0, 3)}*`,
          or: `${q.a} OR ${q.b}`,
        }[q.shape];
        const query = head + q.extra;
        const res = search(slow, { query, limit: q.limit, offset: q.offset }, ctx);
        if (res.relaxed) return; // fewer than RELAX_THRESHOLD full matches: a second pass follows
        // The model: the textbook count and ranked statements over the compiler's MATCH.
        const m = compileQuery(parseQuery(query)!, { now: 0 }).match!;
        const acl =
          q.acl === 'all'
            ? ''
            : ` AND (d.acl_id IS NULL OR d.acl_id IN (SELECT value FROM json_each('${JSON.stringify(aclIds)}')))`;
        const from = `FROM fts CROSS JOIN documents d ON d.id = fts.rowid WHERE fts MATCH ?${acl}`;
        const total =
          q.acl === 'all'
            ? (slow.prepare('SELECT count(*) FROM fts WHERE fts MATCH ?').pluck().get(m) as number)
            : (slow.prepare(`SELECT count(*) ${from}`).pluck().get(m) as number);
        const rows = slow
          .prepare(`SELECT fts.rowid AS id, ${rank} AS s ${from} ORDER BY s, id LIMIT ? OFFSET ?`)
          .all(m, q.limit, q.offset) as { id: number; s: number }[];
        expect(res.total).toBe(total);
        expect(res.hits.map((h) => [h.id, -h.score])).toEqual(rows.map((r) => [r.id, r.s]));
        if (rows.length > 0) nonEmpty++;
      }),
      { numRuns: 500 },
    );
    expect(nonEmpty).toBeGreaterThan(100);
  });
});

describe('per-ACL totals', () => {
  it('are not used once a document row comes or goes, even without a full-text change', () => {
    refresh();
    const rank = weightsSql(DEFAULT_WEIGHTS);
    expect(termTopFor(fast, '"report"', rank)?.aclCurrent).toBe(true);
    const top = termTopFor(fast, '"report"', rank)!;
    const orphan = top.ids[0];
    const row = fast.prepare('SELECT * FROM documents WHERE id = ?').get(orphan) as Record<string, unknown>;
    fast.prepare('DELETE FROM documents WHERE id = ?').run(orphan);
    expect(termTopFor(fast, '"report"', rank)?.aclCurrent).toBe(false);
    const cols = Object.keys(row);
    fast
      .prepare(`INSERT INTO documents (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`)
      .run(...cols.map((c) => row[c]));
    expect(termTopFor(fast, '"report"', rank)?.aclCurrent).toBe(false);
    refresh();
    expect(termTopFor(fast, '"report"', rank)?.aclCurrent).toBe(true);
  });
});

describe('refreshTermTopsInBackground', () => {
  it('finishes in slices while the event loop keeps running, and waits out an open transaction', async () => {
    both((db) => addDocs(db, makeDocs(900, 4, acls)));
    expect(termTopFor(fast, '"report"', weightsSql(DEFAULT_WEIGHTS))).toBeNull();
    let ticks = 0;
    const timer = setInterval(() => ticks++, 0);
    fast.exec('BEGIN');
    setTimeout(() => fast.exec('COMMIT'), 150);
    try {
      const r = await refreshTermTopsInBackground(fast, { minDocs: MIN_DOCS, depth: DEPTH, sliceMs: 0 });
      expect(r.done).toBe(true);
      expect(r.built).toBeGreaterThan(1);
    } finally {
      clearInterval(timer);
    }
    expect(ticks).toBeGreaterThan(1);
    expect(termTopFor(fast, '"report"', weightsSql(DEFAULT_WEIGHTS))).not.toBeNull();
  });

  it('stops when aborted', async () => {
    both((db) => addDocs(db, makeDocs(901, 4, acls)));
    const ac = new AbortController();
    ac.abort();
    const r = await refreshTermTopsInBackground(fast, { minDocs: MIN_DOCS, depth: DEPTH, signal: ac.signal });
    expect(r.done).toBe(false);
    expect(termTopFor(fast, '"report"', weightsSql(DEFAULT_WEIGHTS))).toBeNull();
  });
});
