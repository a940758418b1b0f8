/**
 * Materialised rankings of frequent terms. For every index token found in at least
 * {@link TERM_TOPS_MIN_DOCS} documents, `term_tops` holds the first {@link TERM_TOPS_DEPTH} documents
 * of the exact relevance ranking of that one-word query (ids and bm25 scores, in `ORDER BY score,
 * id` order), its exact number of matches, and its number of matches per ACL id.
 *
 * Why: FTS5 scores every match of a query before it can return the best ten (about 1 µs a match),
 * so a word found in most documents costs 15–25 ms on 20,000 documents; the stored row costs one
 * lookup.
 *
 * Soundness — a row is used only while it is provably what the full path would return:
 * - `stamp` fingerprints the FTS5 averages record (rows and tokens) and structure record (every
 *   committed FTS5 write adds a segment or tombstones and moves its write counter), plus the
 *   ranking expression. Any committed change to the full-text index, or other weights, makes every
 *   row stale until {@link refreshTermTops} runs again.
 * - Per-ACL counts are used only while `acl_epoch` equals the epoch that triggers on `documents`
 *   move whenever a row's `acl_id` changes or a row comes or goes (schema migrations 3 and 4).
 * - Nothing is used on a connection inside a transaction: its uncommitted FTS5 writes are visible
 *   to its queries but not yet in the fingerprinted records.
 */
import crypto from 'node:crypto';
import Database from 'better-sqlite3';
import type { Db } from '../index/database.js';
import type { FieldWeights } from '../model.js';
import { DEFAULT_WEIGHTS } from './default-weights.js';
import { weightsSql } from './rank-sql.js';

/** Terms found in at least this many documents are materialised. */
export const TERM_TOPS_MIN_DOCS = 1000;
/** Documents stored per term (pages beyond them, or filters that hide too many, use FTS5). */
export const TERM_TOPS_DEPTH = 200;

/** One materialised term, decoded. */
export interface TermTop {
  /** Exact number of documents that match the term. */
  total: number;
  /** The first documents of the ranking, best first (ties by ascending id). */
  ids: Uint32Array;
  /** Their bm25 scores (negative; lower is better), as FTS5 computed them. */
  scores: Float64Array;
  /** Matches per ACL id (`null`: no descriptor); only documents that have a `documents` row. */
  aclCounts: ReadonlyMap<number | null, number>;
  /** Whether `aclCounts` is current (no document row changed its ACL, came or went since). */
  aclCurrent: boolean;
}

const statements = new WeakMap<Db, Map<string, Database.Statement>>();

function st(db: Db, sql: string): Database.Statement {
  let m = statements.get(db);
  if (!m) {
    m = new Map();
    statements.set(db, m);
  }
  let s = m.get(sql);
  if (!s) {
    s = db.prepare(sql);
    m.set(sql, s);
  }
  return s;
}

/** The fingerprint of the committed full-text index under one ranking expression. */
function fingerprint(db: Db, rank: string): string {
  const rows = st(db, 'SELECT id, block FROM fts_data WHERE id IN (1, 10) ORDER BY id').raw().all() as [
    number,
    Buffer,
  ][];
  const h = crypto.createHash('sha1');
  for (const [id, block] of rows) h.update(`${id}:${block.length}:`).update(block);
  return h.update(rank).digest('hex');
}

function aclEpoch(db: Db): number {
  const row = st(db, "SELECT n FROM index_epochs WHERE name = 'acl'").get() as { n: number } | undefined;
  return row?.n ?? -1;
}

/** The `fts` table's tokenizer, run apart (see {@link tokenizerFor}). */
export interface Tokenizer {
  tokens(text: string): string[];
  cache: Map<string, string | null>;
}

const tokenizers = new Map<string, Tokenizer>();
const tokenizerOf = new WeakMap<Db, Tokenizer | null>();

/**
 * The tokenizer of the `fts` table, run in a private in-memory database: the tokens FTS5 makes
 * of a phrase (the tokenizer does the same for documents and queries).
 */
export function tokenizerFor(db: Db): Tokenizer | null {
  if (tokenizerOf.has(db)) return tokenizerOf.get(db)!;
  const row = db.prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'fts'").get() as
    { sql: string } | undefined;
  const spec = row ? /tokenize\s*=\s*'((?:[^']|'')*)'/i.exec(row.sql)?.[1] : undefined;
  let t: Tokenizer | null = null;
  if (spec !== undefined) {
    t = tokenizers.get(spec) ?? null;
    if (!t) {
      const mem = new Database(':memory:');
      mem.exec(
        `CREATE VIRTUAL TABLE t USING fts5(x, tokenize = '${spec}');
         CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance');`,
      );
      const ins = mem.prepare('INSERT INTO t (rowid, x) VALUES (1, ?)');
      const sel = mem.prepare('SELECT term FROM v ORDER BY offset').pluck();
      class Rollback extends Error {
        constructor(readonly terms: string[]) {
          super('rollback');
        }
      }
      // Insert, read the tokens back, and roll back, so the table stays empty.
      const run = mem.transaction((text: string) => {
        ins.run(text);
        throw new Rollback(sel.all() as string[]);
      });
      const made: Tokenizer = {
        cache: new Map(),
        tokens(text) {
          try {
            run(text);
          } catch (e) {
            if (e instanceof Rollback) return e.terms;
            throw e;
          }
          return [];
        },
      };
      tokenizers.set(spec, made);
      t = made;
    }
  }
  tokenizerOf.set(db, t);
  return t;
}

/** The single index token `text` stands for, or null when it makes none or several. */
export function singleToken(t: Tokenizer, text: string): string | null {
  const hit = t.cache.get(text);
  if (hit !== undefined) return hit;
  const tokens = t.tokens(text);
  const token = tokens.length === 1 ? tokens[0] : null;
  if (t.cache.size >= 4096) t.cache.delete(t.cache.keys().next().value!);
  t.cache.set(text, token);
  return token;
}

/** A MATCH expression that is exactly one quoted phrase: its text, else null. */
function phraseText(match: string): string | null {
  const m = /^"((?:[^"]|"")*)"$/.exec(match);
  return m ? m[1].replace(/""/g, '"') : null;
}

const quote = (s: string): string => `"${s.replace(/"/g, '""')}"`;

/** Endings that Porter stemming removes, to find a word whose only token is a given stem. */
export const SURFACE_ENDINGS = [
  '',
  'e',
  's',
  'es',
  'ed',
  'ing',
  'y',
  'ion',
  'er',
  'al',
  'ate',
  'ness',
  'ment',
];

/**
 * A phrase whose one token is `term` (a stem need not stem to itself: `releas` is `relea` as a
 * query, `release` is `releas`), or null when no tried spelling gives exactly that token.
 */
export function phraseFor(tok: Tokenizer, term: string): string | null {
  for (const ending of SURFACE_ENDINGS) {
    if (singleToken(tok, term + ending) === term) return quote(term + ending);
  }
  return null;
}

interface TermRow {
  stamp: string;
  acl_epoch: number;
  total: number;
  ids: Buffer;
  scores: Buffer;
  acl_counts: string;
}

const decoded = new WeakMap<Db, Map<string, TermTop & { stamp: string; epoch: number }>>();

/**
 * The materialised ranking for `match` (an FTS5 expression as the query compiler writes it) under
 * the ranking expression `rank`, or null when there is none that is provably current: the
 * expression is not one phrase of one token, the term is not materialised, the index or the
 * weights changed since it was, or `db` is inside a transaction other than a clean read snapshot.
 */
export function termTopFor(
  db: Db,
  match: string,
  rank: string,
  opts: { cleanSnapshot?: boolean } = {},
): TermTop | null {
  // Inside a writer's transaction FTS5 may hold pending rows its structure record does not show
  // yet; a read snapshot begun with nothing pending (the caller says so) sees committed data only.
  if (db.inTransaction && !opts.cleanSnapshot) return null;
  const text = phraseText(match);
  if (text === null) return null;
  const tok = tokenizerFor(db);
  if (!tok) return null;
  const token = singleToken(tok, text);
  if (token === null) return null;
  let row: TermRow | undefined;
  try {
    row = st(db, 'SELECT stamp, acl_epoch, total, ids, scores, acl_counts FROM term_tops WHERE term = ?').get(
      token,
    ) as TermRow | undefined;
  } catch {
    return null; // an index without migration 3 (opened read-only)
  }
  if (!row || row.stamp !== fingerprint(db, rank)) return null;
  const epoch = aclEpoch(db);
  let cache = decoded.get(db);
  if (!cache) {
    cache = new Map();
    decoded.set(db, cache);
  }
  const key = `${token}\u0000${row.stamp}\u0000${row.acl_epoch}`;
  let top = cache.get(key);
  if (!top) {
    const ids = new Uint32Array(row.ids.byteLength / 4);
    const scores = new Float64Array(row.scores.byteLength / 8);
    Buffer.from(ids.buffer).set(row.ids);
    Buffer.from(scores.buffer).set(row.scores);
    const aclCounts = new Map(
      (JSON.parse(row.acl_counts) as [number | null, number][]).map(([a, n]) => [a, n]),
    );
    top = {
      total: row.total,
      ids,
      scores,
      aclCounts,
      aclCurrent: false,
      stamp: row.stamp,
      epoch: row.acl_epoch,
    };
    if (cache.size >= 256) cache.delete(cache.keys().next().value!);
    cache.set(key, top);
  }
  return { ...top, aclCurrent: top.epoch === epoch };
}

/** Options for {@link refreshTermTops}. */
export interface RefreshTermTopsOptions {
  /** The weights queries rank with when no source overrides them (default DEFAULT_WEIGHTS). */
  weights?: FieldWeights;
  /** Stop after about this long and report `done: false`; call again to go on (default: no limit). */
  budgetMs?: number;
  /** Default {@link TERM_TOPS_MIN_DOCS}. */
  minDocs?: number;
  /** Default {@link TERM_TOPS_DEPTH}. */
  depth?: number;
}

/** What {@link refreshTermTops} did. */
export interface RefreshTermTopsResult {
  /** Every frequent term is current (false: the budget ran out first). */
  done: boolean;
  /** Terms (re)built by this call. */
  built: number;
  /** Frequent terms already current. */
  current: number;
}

/** Per database: the frequent terms of one index state, each with a phrase that queries it. */
const frequentTerms = new WeakMap<Db, { key: string; terms: [string, string][] }>();

/**
 * Bring `term_tops` up to date with the committed index: (re)build the row of every term found in
 * at least `minDocs` documents whose row is missing or stale, then drop rows of other states.
 *
 * Call after a crawl (or a batch of live updates) has committed, on a writable connection that is
 * not inside a transaction (throws otherwise). Idempotent; a no-op when nothing changed since the
 * last complete refresh. Each slice runs in one IMMEDIATE transaction, so it reads one consistent
 * snapshot; with `budgetMs`, returns early with `done: false` and the caller calls again later
 * (rows already built stay valid while the index does not change). Costs about 1 µs per match of
 * every frequent term (about 4 s for the 20,000-document bench index).
 */
export function refreshTermTops(db: Db, opts: RefreshTermTopsOptions = {}): RefreshTermTopsResult {
  if (db.inTransaction) throw new Error('refreshTermTops: the connection is inside a transaction');
  const rank = weightsSql(opts.weights ?? DEFAULT_WEIGHTS);
  const minDocs = Math.max(1, Math.trunc(opts.minDocs ?? TERM_TOPS_MIN_DOCS));
  const depth = Math.max(1, Math.trunc(opts.depth ?? TERM_TOPS_DEPTH));
  const deadline = opts.budgetMs === undefined ? Infinity : performance.now() + opts.budgetMs;
  const tok = tokenizerFor(db);
  const result: RefreshTermTopsResult = { done: false, built: 0, current: 0 };
  if (!tok) return { ...result, done: true };

  const slice = (): void => {
    const stamp = fingerprint(db, rank);
    const epoch = aclEpoch(db);
    const listKey = `${stamp}|${minDocs}`;
    let list = frequentTerms.get(db);
    if (!list || list.key !== listKey) {
      const terms: [string, string][] = [];
      for (const term of db
        .prepare('SELECT term FROM fts_vocab WHERE doc >= ? ORDER BY doc DESC, term')
        .pluck()
        .all(minDocs) as string[]) {
        const phrase = phraseFor(tok, term);
        if (phrase) terms.push([term, phrase]);
      }
      list = { key: listKey, terms };
      frequentTerms.set(db, list);
    }
    const have = new Map(
      (
        db.prepare('SELECT term, stamp, acl_epoch FROM term_tops').raw().all() as [string, string, number][]
      ).map(([t, s, e]) => [t, `${s}|${e}`]),
    );
    const want = `${stamp}|${epoch}`;
    const topSql = db
      .prepare(`SELECT rowid, ${rank} AS s FROM fts WHERE fts MATCH ? ORDER BY s, rowid LIMIT ?`)
      .raw();
    const allSql = db.prepare('SELECT rowid FROM fts WHERE fts MATCH ?').pluck();
    const put = db.prepare(
      'INSERT OR REPLACE INTO term_tops (term, stamp, acl_epoch, total, ids, scores, acl_counts) VALUES (?, ?, ?, ?, ?, ?, ?)',
    );
    let aclOf: Map<number, number | null> | null = null;
    let finished = true;
    result.current = 0;
    for (const [term, expr] of list.terms) {
      if (have.get(term) === want) {
        result.current++;
        continue;
      }
      if (result.built > 0 && performance.now() >= deadline) {
        finished = false;
        break;
      }
      aclOf ??= new Map(
        (db.prepare('SELECT id, acl_id FROM documents').raw().all() as [number, number | null][]).map(
          ([i, a]) => [i, a],
        ),
      );
      const top = topSql.all(expr, depth) as [number, number][];
      if (top.some(([id]) => id < 0 || id > 0xffffffff)) continue;
      const all = allSql.all(expr) as number[];
      const counts = new Map<number | null, number>();
      for (const id of all) {
        const acl = aclOf.get(id);
        if (acl !== undefined) counts.set(acl, (counts.get(acl) ?? 0) + 1);
      }
      put.run(
        term,
        stamp,
        epoch,
        all.length,
        Buffer.from(Uint32Array.from(top, ([id]) => id).buffer),
        Buffer.from(Float64Array.from(top, ([, s]) => s).buffer),
        JSON.stringify([...counts]),
      );
      result.built++;
    }
    if (finished) {
      db.prepare('DELETE FROM term_tops WHERE stamp <> ?').run(stamp);
      result.done = true;
    }
  };
  db.transaction(slice).immediate();
  return result;
}

/** Options for {@link refreshTermTopsInBackground}. */
export interface BackgroundRefreshOptions extends Omit<RefreshTermTopsOptions, 'budgetMs'> {
  /** Work per slice before yielding to the event loop (default 50 ms). */
  sliceMs?: number;
  /** Stops between slices (rows built so far stay valid). */
  signal?: AbortSignal;
  /** Asked before each slice: while true, the refresh waits (a crawl runs, a person types). */
  hold?: () => boolean;
}

/**
 * {@link refreshTermTops} in slices of about `sliceMs`, yielding to the event loop between them so
 * searches and progress events go on meanwhile, and waiting while `hold()` says so. A slice that
 * finds the database locked by a writer
 * (SQLITE_BUSY) or the connection inside a transaction is retried after a short wait. Resolves when
 * every frequent term is current or `signal` aborts (then `done` is false). If the index changes
 * meanwhile, the next slices rebuild against the new state, so the result is always current.
 */
export async function refreshTermTopsInBackground(
  db: Db,
  opts: BackgroundRefreshOptions = {},
): Promise<RefreshTermTopsResult> {
  const { sliceMs = 50, signal, hold, ...rest } = opts;
  const total: RefreshTermTopsResult = { done: false, built: 0, current: 0 };
  while (!signal?.aborted) {
    if (hold?.()) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      continue;
    }
    let r: RefreshTermTopsResult | null = null;
    try {
      if (!db.inTransaction) r = refreshTermTops(db, { ...rest, budgetMs: sliceMs });
    } catch (e) {
      if ((e as { code?: string }).code !== 'SQLITE_BUSY') throw e;
    }
    if (r) {
      total.built += r.built;
      total.current = r.current;
      if (r.done) return { ...total, done: true };
    }
    await new Promise((resolve) => setTimeout(resolve, r ? 0 : 100));
  }
  return total;
}
