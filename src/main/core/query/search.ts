/**
 * The query engine: search, preview and suggestions over the index, trimmed to what the caller may
 * read. Synchronous (better-sqlite3); one prepared statement per query shape, cached per database
 * handle.
 *
 * Security trimming happens inside the SQL of every statement (`acl_id IS NULL OR acl_id IN …`), so
 * totals, pagination, snippets, previews and suggestions never count or reveal a document the
 * caller cannot see; a hidden id behaves exactly like an id that does not exist.
 */
import zlib from 'node:zlib';
import type Database from 'better-sqlite3';
import type { Db } from '../index/database.js';
import { decodeBody, MAX_BODY_CHARS } from '../index/body-codec.js';
import { readTextAtSource } from '../filters/text-at-source.js';
import type { DocumentPreview, SearchHit, SearchRequest, SearchResponse } from '../api-types.js';
import type { FieldWeights } from '../model.js';
import { DEFAULT_WEIGHTS } from './default-weights.js';
import { HitMatcher, makeSnippet, markHits, escapeHtml, type Hit } from './highlight.js';
import { compileQuery, type CompiledQuery, type SqlCondition } from './query-compiler.js';
import { parseQuery, QuerySyntaxError } from './query-parser.js';
import { dataStamp } from './data-stamp.js';
import { weightsSql } from './rank-sql.js';
import { termTopFor } from './term-tops.js';
import { prefixExpander } from './prefix-expansion.js';

export { QuerySyntaxError } from './query-parser.js';
export { suggest } from './suggest.js';

/**
 * Which documents the caller may see: all of them (single-user index), or those without a
 * descriptor plus those whose `acl_id` is in `aclIds` (the descriptors the caller's principals
 * may read). An empty `aclIds` means only documents without a descriptor.
 */
export type AclFilter = { mode: 'all' } | { mode: 'ids'; aclIds: readonly number[] };

/** Per-call context the service supplies (never taken from the request). */
export interface SearchContext {
  acl: AclFilter;
  /** BM25 column weights of sources that override the defaults. */
  weightsBySource?: ReadonlyMap<number, FieldWeights>;
  /** Weights of every other source (default {@link DEFAULT_WEIGHTS}). */
  defaultWeights?: FieldWeights;
  /** Source names (any case) → ids, for `source:Name`. */
  sourceNames?: ReadonlyMap<string, number>;
  /** "Now" for relative dates such as `modified:week` (ms; default `Date.now()`). */
  now?: number;
  /** Bumped by the caller whenever the index changes; invalidates cached results and suggestions. */
  generation?: number;
  /** Build snippets (default true); evaluations that only need the ranking turn them off. */
  snippets?: boolean;
  /**
   * The connection's open transaction (if any) is a read snapshot begun with no writes pending
   * (the service's per-call snapshot), so stored frequent-word tops may answer inside it.
   */
  cleanSnapshot?: boolean;
}

/** When fewer documents than this match every term, documents matching some terms follow. */
export const RELAX_THRESHOLD = 10;
/** Largest page size a request may ask for. */
export const MAX_LIMIT = 1000;
const DEFAULT_LIMIT = 20;
/** Compressed body bytes read for a snippet before the whole text is considered. */
const SNIPPET_HEAD_BYTES = 12 * 1024;
/** Compressed body bytes read at most for a snippet. */
const SNIPPET_MAX_BYTES = 256 * 1024;

const statementCache = new WeakMap<Db, Map<string, Database.Statement>>();

/** Responses kept per database handle; all are dropped when the index changes. */
const RESULT_CACHE_SIZE = 200;
const resultCaches = new WeakMap<Db, { stamp: string; entries: Map<string, SearchResponse> }>();

function resultCacheFor(db: Db, stamp: string): Map<string, SearchResponse> {
  let c = resultCaches.get(db);
  if (!c || c.stamp !== stamp) {
    c = { stamp, entries: new Map() };
    resultCaches.set(db, c);
  }
  return c.entries;
}

function prepared(db: Db, sql: string): Database.Statement {
  let cache = statementCache.get(db);
  if (!cache) {
    cache = new Map();
    statementCache.set(db, cache);
  }
  let st = cache.get(sql);
  if (!st) {
    if (cache.size >= 256) cache.delete(cache.keys().next().value!);
    st = db.prepare(sql);
    cache.set(sql, st);
  }
  return st;
}

/** The SQL visibility condition for `acl` over `documents d`. */
export function aclCondition(acl: AclFilter): SqlCondition | null {
  if (acl.mode === 'all') return null;
  if (acl.aclIds.length === 0) return { sql: 'd.acl_id IS NULL', params: [] };
  return {
    sql: '(d.acl_id IS NULL OR d.acl_id IN (SELECT value FROM json_each(?)))',
    params: [JSON.stringify(acl.aclIds.map((id) => Math.trunc(Number(id))))],
  };
}

/**
 * The ranking expression. Sources whose weights equal the defaults need no CASE branch; when no
 * source differs, ranking needs no join to `documents` at all.
 */
function rankSql(ctx: SearchContext): { sql: string; perSource: boolean } {
  const fallback = weightsSql(ctx.defaultWeights ?? DEFAULT_WEIGHTS);
  const whens = [...(ctx.weightsBySource ?? [])]
    .map(([id, w]) => [Math.trunc(Number(id)), weightsSql(w)] as const)
    .filter(([, sql]) => sql !== fallback)
    .sort((a, b) => a[0] - b[0])
    .map(([id, sql]) => `WHEN ${id} THEN ${sql}`);
  if (whens.length === 0) return { sql: fallback, perSource: false };
  return { sql: `CASE d.source_id ${whens.join(' ')} ELSE ${fallback} END`, perSource: true };
}

interface PageRow {
  id: number;
  score: number;
}

/**
 * Above this many full-text matches, SQL conditions (trimming, filters) are applied as a set of
 * document ids built from the small `documents` indexes rather than by joining every match to its
 * (large) `documents` row.
 */
const ID_SET_MIN_MATCHES = 1000;

/**
 * The number of full-text matches of `match` (`matches`) and of those that satisfy `where`
 * (`total`; exact, trimmed in SQL).
 */
function countMatches(
  db: Db,
  match: string,
  where: string,
  params: (string | number)[],
): { matches: number; total: number } {
  const matches = (
    prepared(db, 'SELECT count(*) AS n FROM fts WHERE fts MATCH ?').get(match) as { n: number }
  ).n;
  if (where === '' || matches === 0) return { matches, total: matches };
  const sql =
    matches > ID_SET_MIN_MATCHES
      ? `SELECT count(*) AS n FROM fts WHERE fts MATCH ? AND +fts.rowid IN (SELECT d.id FROM documents d WHERE ${where})`
      : `SELECT count(*) AS n FROM fts CROSS JOIN documents d ON d.id = fts.rowid WHERE fts MATCH ? AND ${where}`;
  return { matches, total: (prepared(db, sql).get(match, ...params) as { n: number }).n };
}

/**
 * A relevance-ranked pass answered from the term's materialised ranking (see term-tops.ts), or
 * null when that cannot prove the answer: no current row for the query, weights that differ per
 * source, or a page deeper than the visible part of the stored ranking. The stored ranking is an
 * exact prefix of `ORDER BY score, id` over all matches, so its visible members, in order, are
 * the visible ranking's prefix; totals are the stored exact counts (per ACL when the conditions
 * are the caller's trimming alone) or are counted in SQL.
 */
function rankedFromTermTop(
  db: Db,
  match: string,
  where: string,
  params: (string | number)[],
  aclOnly: AclFilter | null,
  ctx: SearchContext,
  limit: number,
  offset: number,
  wantRows: boolean,
): { total: number; rows: PageRow[] } | null {
  const { sql: rank, perSource } = rankSql(ctx);
  if (perSource) return null;
  const top = termTopFor(db, match, rank, { cleanSnapshot: ctx.cleanSnapshot === true });
  if (!top) return null;
  let total: number | null = null;
  if (where === '') total = top.total;
  else if (aclOnly?.mode === 'ids' && top.aclCurrent) {
    total = top.aclCounts.get(null) ?? 0;
    for (const id of new Set(aclOnly.aclIds.map((x) => Math.trunc(Number(x)))))
      total += top.aclCounts.get(id) ?? 0;
  }
  if (!wantRows) return { total: total ?? countMatches(db, match, where, params).total, rows: [] };
  const complete = top.ids.length >= top.total;
  const need = offset + limit;
  const rows: PageRow[] = [];
  if (where === '') {
    if (need > top.ids.length && !complete) return null;
    for (let i = offset; i < Math.min(need, top.ids.length); i++)
      rows.push({ id: top.ids[i], score: top.scores[i] });
  } else {
    const visible = new Set(
      prepared(db, `SELECT d.id FROM documents d WHERE d.id IN (SELECT value FROM json_each(?)) AND ${where}`)
        .pluck()
        .all(JSON.stringify(Array.from(top.ids)), ...params) as number[],
    );
    let seen = 0;
    for (let i = 0; i < top.ids.length && seen < need; i++) {
      if (!visible.has(top.ids[i])) continue;
      if (seen >= offset) rows.push({ id: top.ids[i], score: top.scores[i] });
      seen++;
    }
    if (seen < need && !complete) return null;
  }
  total ??= countMatches(db, match, where, params).total;
  return { total, rows: offset >= total ? [] : rows };
}

/** A MATCH expression that is one quoted token (counting its matches is cheaper than ranking them). */
const ONE_TERM = /^"(?:[^"\s]|"")*"$/;
/** Deepest page {@link countAndRank} keeps (insertion into a sorted array costs O(page) a row). */
const ONE_PASS_MAX_PAGE = 200;

interface TopState {
  n: number;
  ids: number[];
  scores: number[];
}

const topAggregates = new WeakSet<Db>();

/**
 * `trawl_rank_top(id, score, k)`: an aggregate that counts its rows and keeps the first `k` in
 * `ORDER BY score, id` order; returns JSON `[count, ids, scores]` (doubles survive JSON exactly).
 */
function ensureTopAggregate(db: Db): void {
  if (topAggregates.has(db)) return;
  const options = {
    start: (): TopState => ({ n: 0, ids: [], scores: [] }),
    step: (acc: TopState, id: number, score: number, k: number) => {
      acc.n++;
      const { ids, scores } = acc;
      const last = scores.length - 1;
      if (scores.length >= k && !(score < scores[last] || (score === scores[last] && id < ids[last]))) return;
      let i = scores.length;
      while (i > 0 && (score < scores[i - 1] || (score === scores[i - 1] && id < ids[i - 1]))) i--;
      scores.splice(i, 0, score);
      ids.splice(i, 0, id);
      if (scores.length > k) {
        scores.pop();
        ids.pop();
      }
    },
    result: (acc: TopState) => JSON.stringify([acc.n, acc.ids, acc.scores]),
  };
  // The typings model a step that takes one value; this one takes three SQL arguments.
  db.aggregate('trawl_rank_top', options as unknown as Parameters<Db['aggregate']>[1]);
  topAggregates.add(db);
}

/**
 * Count and rank in one FTS5 pass: every match is read once, counted, and kept when it belongs to
 * the page — in the order `ORDER BY score, id` gives, so the page and the total are those of the
 * count statement plus the ranked statement. Phrases, prefixes and several terms cost far more
 * to find than to read, so this saves the separate count's pass (about 30% of a phrase query).
 */
function countAndRank(
  db: Db,
  match: string,
  where: string,
  params: (string | number)[],
  rank: string,
  limit: number,
  offset: number,
): { total: number; rows: PageRow[] } {
  ensureTopAggregate(db);
  const inner =
    where === ''
      ? `SELECT fts.rowid AS id, ${rank} AS s FROM fts WHERE fts MATCH ?`
      : `SELECT d.id AS id, ${rank} AS s FROM fts CROSS JOIN documents d ON d.id = fts.rowid WHERE fts MATCH ? AND ${where}`;
  // LIMIT -1 keeps the subquery a coroutine (bm25 cannot be an aggregate's argument directly).
  const sql = `SELECT trawl_rank_top(id, s, ?) FROM (${inner} LIMIT -1)`;
  const json = prepared(db, sql)
    .pluck()
    .get(offset + limit, match, ...params) as string;
  const [total, ids, scores] = JSON.parse(json) as [number, number[], number[]];
  const rows: PageRow[] = [];
  for (let i = offset; i < ids.length; i++) rows.push({ id: ids[i], score: scores[i] });
  return { total, rows };
}

/** One pass (strict or relaxed) of a query: its total and one page of ids. */
function runPass(
  db: Db,
  match: string | null,
  conditions: SqlCondition[],
  aclOnly: AclFilter | null,
  ctx: SearchContext,
  sort: SearchRequest['sort'],
  limit: number,
  offset: number,
  wantPage: boolean,
): { total: number; rows: PageRow[] } {
  const where = conditions.map((c) => c.sql).join(' AND ');
  const params = conditions.flatMap((c) => c.params);
  const wantRows = wantPage && limit > 0;
  if (match === null) {
    const cond = where ? `WHERE ${where}` : '';
    const total = (
      prepared(db, `SELECT count(*) AS n FROM documents d ${cond}`).get(...params) as { n: number }
    ).n;
    if (!wantRows || offset >= total) return { total, rows: [] };
    const sql = `SELECT d.id AS id, 0 AS score FROM documents d ${cond} ORDER BY ${orderSql(sort)} LIMIT ? OFFSET ?`;
    return { total, rows: prepared(db, sql).all(...params, limit, offset) as PageRow[] };
  }

  if (sort !== 'date' && sort !== 'name') {
    const fast = rankedFromTermTop(db, match, where, params, aclOnly, ctx, limit, offset, wantRows);
    if (fast) return fast;
    const { sql: rank, perSource } = rankSql(ctx);
    if (wantRows && offset + limit <= ONE_PASS_MAX_PAGE && !ONE_TERM.test(match) && !perSource) {
      return countAndRank(db, match, where, params, rank, limit, offset);
    }
  }
  const { matches, total } = countMatches(db, match, where, params);
  if (!wantRows || offset >= total) return { total, rows: [] };
  const idSet = where !== '' && matches > ID_SET_MIN_MATCHES;
  const setFilter = `+fts.rowid IN (SELECT d.id FROM documents d WHERE ${where})`;

  let sql: string;
  if (sort === 'date' || sort === 'name') {
    // Walk the date or name index and stop after one page, instead of ranking every match.
    const cond = where ? ` AND ${where}` : '';
    sql = `SELECT d.id AS id, 0 AS score FROM documents d WHERE +d.id IN (SELECT rowid FROM fts WHERE fts MATCH ?)${cond} ORDER BY ${orderSql(sort)} LIMIT ? OFFSET ?`;
  } else {
    const { sql: rank, perSource } = rankSql(ctx);
    if (perSource) {
      const cond = where ? ` AND ${where}` : '';
      sql = `SELECT d.id AS id, ${rank} AS score FROM fts CROSS JOIN documents d ON d.id = fts.rowid WHERE fts MATCH ?${cond} ORDER BY score, d.id LIMIT ? OFFSET ?`;
    } else if (where === '') {
      sql = `SELECT fts.rowid AS id, ${rank} AS score FROM fts WHERE fts MATCH ? ORDER BY score, id LIMIT ? OFFSET ?`;
    } else if (idSet) {
      sql = `SELECT fts.rowid AS id, ${rank} AS score FROM fts WHERE fts MATCH ? AND ${setFilter} ORDER BY score, id LIMIT ? OFFSET ?`;
    } else {
      sql = `SELECT d.id AS id, ${rank} AS score FROM fts CROSS JOIN documents d ON d.id = fts.rowid WHERE fts MATCH ? AND ${where} ORDER BY score, d.id LIMIT ? OFFSET ?`;
    }
  }
  return { total, rows: prepared(db, sql).all(match, ...params, limit, offset) as PageRow[] };
}

function orderSql(sort: SearchRequest['sort']): string {
  if (sort === 'name') return 'd.name COLLATE NOCASE, d.id';
  return 'd.mtime DESC, d.id DESC';
}

function requestConditions(req: SearchRequest): SqlCondition[] {
  const out: SqlCondition[] = [];
  const ints = (xs: readonly number[]): number[] =>
    xs.map((x) => Math.trunc(Number(x))).filter(Number.isFinite);
  if (req.sourceIds && req.sourceIds.length > 0) {
    out.push({
      sql: 'd.source_id IN (SELECT value FROM json_each(?))',
      params: [JSON.stringify(ints(req.sourceIds))],
    });
  }
  if (req.types && req.types.length > 0) {
    const types = req.types.map((t) => String(t).toLowerCase().replace(/^\./, ''));
    out.push({ sql: 'd.ext IN (SELECT value FROM json_each(?))', params: [JSON.stringify(types)] });
  }
  if (req.modifiedFrom !== undefined && Number.isFinite(req.modifiedFrom)) {
    out.push({ sql: 'd.mtime >= ?', params: [Math.trunc(req.modifiedFrom)] });
  }
  if (req.modifiedTo !== undefined && Number.isFinite(req.modifiedTo)) {
    out.push({ sql: 'd.mtime < ?', params: [Math.trunc(req.modifiedTo)] });
  }
  return out;
}

function hasRequestFilters(req: SearchRequest): boolean {
  return (
    (req.sourceIds?.length ?? 0) > 0 ||
    (req.types?.length ?? 0) > 0 ||
    req.modifiedFrom !== undefined ||
    req.modifiedTo !== undefined
  );
}

const EMPTY: CompiledQuery = { match: null, relaxedMatch: null, conditions: [], terms: [], highlight: [] };

function clampInt(x: number | undefined, fallback: number, lo: number, hi: number): number {
  const n = Math.trunc(Number(x ?? fallback));
  return Number.isFinite(n) ? Math.max(lo, Math.min(hi, n)) : fallback;
}

/** Parse and compile; `null` for a blank query. Throws QuerySyntaxError. */
function compile(query: string, ctx: SearchContext, db?: Db): CompiledQuery | null {
  const text = query.trim();
  if (text === '') return null;
  const ast = parseQuery(text);
  if (!ast) {
    throw new QuerySyntaxError(
      `Nothing to search for in '${text.length > 40 ? `${text.slice(0, 40)}…` : text}': type a word, a "phrase", or a filter such as ext:pdf.`,
      0,
    );
  }
  return compileQuery(ast, {
    now: ctx.now ?? Date.now(),
    sourceNames: lowerKeys(ctx.sourceNames),
    expandPrefix: db ? prefixExpander(db) : undefined,
  });
}

function lowerKeys(m: ReadonlyMap<string, number> | undefined): Map<string, number> | undefined {
  if (!m) return undefined;
  return new Map([...m].map(([k, v]) => [k.toLowerCase(), v]));
}

interface DocRow {
  id: number;
  source_id: number;
  url: string;
  path: string;
  name: string;
  title: string | null;
  description: string | null;
  mime: string | null;
  ext: string;
  size: number;
  mtime: number;
  content_hash: string | null;
  text_at_source: number;
  body_z: Buffer | null;
}

const DOC_COLUMNS =
  'd.id, d.source_id, d.url, d.path, d.name, d.title, d.description, d.mime, d.ext, d.size, d.mtime, d.content_hash, d.text_at_source, b.body_z';
const DOC_SQL = `SELECT ${DOC_COLUMNS} FROM documents d LEFT JOIN bodies b ON b.id = d.id WHERE d.id = ?`;

/**
 * Run a query.
 *
 * Contract: results are limited to documents visible under `ctx.acl`, in SQL (totals and pages
 * never include hidden documents). `total` is exact. A blank query returns no hits (unless request
 * filters are given, which then list matching documents). When fewer than {@link RELAX_THRESHOLD}
 * documents match every term of a multi-word query, documents matching some of its non-stop-words
 * follow the full matches, flagged `partial`, and `relaxed` is set; `total` counts both groups.
 * Snippets are HTML-escaped with hits in `<mark>`. Throws {@link QuerySyntaxError} for malformed
 * queries — never a SQLite error caused by query text.
 */
export function search(db: Db, req: SearchRequest, ctx: SearchContext): SearchResponse {
  const t0 = performance.now();
  const limit = clampInt(req.limit, DEFAULT_LIMIT, 0, MAX_LIMIT);
  const offset = clampInt(req.offset, 0, 0, Number.MAX_SAFE_INTEGER);
  let q = compile(req.query ?? '', ctx, db);
  if (!q) {
    if (!hasRequestFilters(req)) return { total: 0, hits: [], tookMs: performance.now() - t0, terms: [] };
    q = EMPTY;
  }
  const conditions = [...q.conditions, ...requestConditions(req)];
  const aclOnly = conditions.length === 0 ? ctx.acl : null;
  const acl = aclCondition(ctx.acl);
  if (acl) conditions.push(acl);

  const cacheKey = JSON.stringify([
    q.match,
    q.relaxedMatch,
    conditions,
    q.highlight,
    q.terms,
    req.sort ?? 'relevance',
    ctx.snippets !== false,
    limit,
    offset,
    rankSql(ctx).sql,
  ]);
  const cache = resultCacheFor(db, dataStamp(db, ctx.generation));
  const cached = cache.get(cacheKey);
  if (cached) {
    cache.delete(cacheKey);
    cache.set(cacheKey, cached);
    return { ...structuredClone(cached), tookMs: performance.now() - t0 };
  }

  const strict = runPass(db, q.match, conditions, aclOnly, ctx, req.sort, limit, offset, true);
  let total = strict.total;
  const pages: { rows: PageRow[]; partial: boolean }[] = [{ rows: strict.rows, partial: false }];
  let relaxed = false;
  if (q.relaxedMatch && strict.total < RELAX_THRESHOLD) {
    const room = limit - strict.rows.length;
    const relaxedOffset = Math.max(0, offset - strict.total);
    const more = runPass(
      db,
      q.relaxedMatch,
      conditions,
      aclOnly,
      ctx,
      req.sort,
      room,
      relaxedOffset,
      room > 0,
    );
    if (more.total > 0) {
      relaxed = true;
      total += more.total;
      pages.push({ rows: more.rows, partial: true });
    }
  }

  const matcher = new HitMatcher(q.highlight);
  const getDoc = prepared(db, DOC_SQL);
  const hits: SearchHit[] = [];
  for (const page of pages) {
    for (const row of page.rows) {
      const d = getDoc.get(row.id) as DocRow | undefined;
      if (!d) continue;
      const hit: SearchHit = {
        id: d.id,
        sourceId: d.source_id,
        url: d.url,
        path: d.path,
        title: d.title || d.name,
        snippet: ctx.snippets === false ? '' : snippetFor(d, matcher),
        score: row.score === 0 ? 0 : -row.score,
        mtime: d.mtime,
        size: d.size,
        type: d.mime ?? '',
        ext: d.ext,
      };
      if (page.partial) hit.partial = true;
      hits.push(hit);
    }
  }
  const res: SearchResponse = { total, hits, tookMs: 0, terms: q.terms };
  if (relaxed) res.relaxed = true;
  if (cache.size >= RESULT_CACHE_SIZE) cache.delete(cache.keys().next().value!);
  cache.set(cacheKey, structuredClone(res));
  res.tookMs = performance.now() - t0;
  return res;
}

/** Decompress at most `maxBytes` of a body; a cut multi-byte character at the end is dropped. */
function decodeHead(blob: Buffer, maxBytes: number): { text: string; complete: boolean } {
  if (blob.length <= maxBytes) return { text: decodeBody(blob), complete: true };
  const out = zlib.inflateRawSync(blob.subarray(0, maxBytes), { finishFlush: zlib.constants.Z_SYNC_FLUSH });
  return { text: out.toString('utf8').replace(/\ufffd$/, ''), complete: false };
}

function snippetFor(d: DocRow, matcher: HitMatcher): string {
  const desc = d.description ?? '';
  let text = '';
  let hits: Hit[] = [];
  if (d.text_at_source) {
    text = readTextAtSource(d) ?? '';
    hits = matcher.find(text, 64);
  } else if (d.body_z && d.body_z.length > 0) {
    const head = decodeHead(d.body_z, SNIPPET_HEAD_BYTES);
    text = head.text;
    hits = matcher.find(text, 64);
    if (hits.length === 0 && !head.complete && matcher.size > 0) {
      text = decodeHead(d.body_z, SNIPPET_MAX_BYTES).text;
      hits = matcher.find(text, 64);
    }
  }
  if (text && (hits.length > 0 || !desc)) return makeSnippet(text, hits);
  if (desc) return makeSnippet(desc, matcher.find(desc, 64));
  return '';
}

interface PreviewRow extends DocRow {
  author: string | null;
  keywords: string | null;
}

/**
 * A document's full text and properties, with the character ranges of the query's hits.
 *
 * Returns null when the id does not exist or is not visible under `ctx.acl` (the two cases are
 * indistinguishable). Hit ranges are `[start, end)` UTF-16 offsets into `text` (JavaScript string
 * indices), at most 10,000 of them. A malformed query yields no hits rather than an error.
 */
export function preview(
  db: Db,
  id: number,
  query: string | undefined,
  ctx: SearchContext,
): DocumentPreview | null {
  const acl = aclCondition(ctx.acl);
  const sql = `SELECT ${DOC_COLUMNS}, d.keywords, d.author FROM documents d LEFT JOIN bodies b ON b.id = d.id WHERE d.id = ?${acl ? ` AND ${acl.sql}` : ''}`;
  const row = prepared(db, sql).get(Math.trunc(Number(id)), ...(acl?.params ?? [])) as PreviewRow | undefined;
  if (!row) return null;
  const atSource = row.text_at_source ? readTextAtSource(row) : undefined;
  const text = atSource === undefined ? decodeBody(row.body_z) : (atSource ?? '');
  let hits: [number, number][] = [];
  if (query) {
    try {
      const q = compile(query, ctx);
      if (q) hits = new HitMatcher(q.highlight).find(text, 10_000).map((h) => [h.start, h.end]);
    } catch (e) {
      if (!(e instanceof QuerySyntaxError)) throw e;
    }
  }
  return {
    id: row.id,
    url: row.url,
    path: row.path,
    title: row.title || row.name,
    author: row.author,
    description: row.description,
    keywords: row.keywords,
    type: row.mime ?? '',
    size: row.size,
    mtime: row.mtime,
    text,
    hits,
    truncated: text.length >= MAX_BODY_CHARS,
    ...(atSource === null ? { changedSinceIndexed: true } : {}),
  };
}

/** HTML for a title with the query's hits marked (escaped like snippets). */
export function highlightTitle(title: string, query: string, ctx: SearchContext): string {
  try {
    const q = compile(query, ctx);
    if (!q) return escapeHtml(title);
    return markHits(title, new HitMatcher(q.highlight).find(title));
  } catch (e) {
    if (e instanceof QuerySyntaxError) return escapeHtml(title);
    throw e;
  }
}
