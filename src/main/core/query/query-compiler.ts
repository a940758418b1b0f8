/**
 * Syntax tree → an FTS5 MATCH expression plus SQL conditions with bound parameters.
 *
 * Safety: every user word reaches FTS5 inside a double-quoted string (quotes doubled), so no user
 * text is ever read as FTS5 syntax; property values reach SQL only as bound parameters. The only
 * FTS5 syntax in the output is what this module writes: `AND OR NOT ( ) * {column} :`.
 *
 * Shape: the top-level conjunction is split into a MATCH part (positive text, with text negations
 * as `NOT`) that drives the query and is ranked by bm25, and SQL conditions on `documents d`
 * (filters, and text that cannot be expressed in one MATCH, such as `word OR ext:pdf`, as
 * `d.id IN (SELECT rowid FROM fts WHERE fts MATCH ?)`).
 */
import { splitRuns, toIndexText } from '../index/cjk.js';
import { urlTerms } from '../index/url-terms.js';
import { highlightTermsOf, type HighlightTerm } from './highlight.js';
import { QuerySyntaxError, type DateSpec, type FilterSpec, type QueryNode } from './query-parser.js';
import { isStopWord } from './stop-words.js';

/** A SQL condition over `documents d` and the parameters its `?` placeholders take, in order. */
export interface SqlCondition {
  sql: string;
  params: (string | number)[];
}

/** The compiled query. */
export interface CompiledQuery {
  /** FTS5 expression for `fts MATCH ?`, or null when the query has no positive text (filters only). */
  match: string | null;
  /**
   * The sentence-query fallback: documents matching some (non-stop-word) terms but not all of them,
   * with the same negations; null when the query is not a plain list of two or more terms.
   */
  relaxedMatch: string | null;
  /** Conditions ANDed with the match. */
  conditions: SqlCondition[];
  /** The positive words and phrases, as typed (for `SearchResponse.terms`). */
  terms: string[];
  /** What snippets and previews mark. */
  highlight: HighlightTerm[];
}

/** Inputs the compiler needs besides the tree. */
export interface CompileOptions {
  /** "Now" for relative dates (ms since epoch). */
  now: number;
  /** Source names (lowercase) → ids, for `source:Name`; unknown names are looked up in SQL. */
  sourceNames?: ReadonlyMap<string, number>;
  /**
   * Spells a prefix (`word*`) out as FTS5 phrases to OR (see prefix-expansion.ts); null keeps
   * FTS5's own prefix query. Without it, every prefix is FTS5's own.
   */
  expandPrefix?: (word: string) => string[] | null;
}

/** The expander of the compilation under way (compilation is synchronous). */
let activeExpandPrefix: CompileOptions['expandPrefix'] = undefined;

const FTS_SUBQUERY = 'SELECT rowid FROM fts WHERE fts MATCH ?';

/** Compile a parsed query (see {@link parseQuery}). Throws {@link QuerySyntaxError}. */
export function compileQuery(root: QueryNode, opts: CompileOptions): CompiledQuery {
  activeExpandPrefix = opts.expandPrefix;
  try {
    return compileWith(root, opts);
  } finally {
    activeExpandPrefix = undefined;
  }
}

function compileWith(root: QueryNode, opts: CompileOptions): CompiledQuery {
  const conj = root.type === 'and' ? root.children : [root];
  if (!conj.some(hasPositive)) {
    const pos = firstPos(root);
    throw new QuerySyntaxError(
      `The query at position ${pos + 1} only excludes: add a word or a filter to look for, e.g. 'report -draft' or 'ext:pdf -draft'.`,
      pos,
    );
  }
  const positives: QueryNode[] = [];
  const negatives: QueryNode[] = [];
  const conditions: SqlCondition[] = [];
  for (const c of conj) {
    if (isFtsPositive(c)) positives.push(c);
    else if (c.type === 'not' && isFtsAny(c.child)) negatives.push(c.child);
    else conditions.push(sqlOf(c, opts));
  }
  let match: string | null = null;
  let relaxedMatch: string | null = null;
  const negation = negatives.length > 0 ? ` NOT (${negatives.map(ftsOf).join(' OR ')})` : '';
  if (positives.length > 0) {
    const strict = positives.map(ftsOf).join(' AND ');
    match = negation ? `(${strict})${negation}` : strict;
    // Only free words are relaxed: a field-scoped one (`path:2024`, `title:budget`) is a
    // restriction the user asked for, and every relaxed match keeps it.
    const scoped = positives.filter(isScoped);
    const free = positives.filter((p) => !isScoped(p));
    if (free.length >= 2) {
      const content = free.filter((p) => !isStopTerm(p));
      const some = (content.length > 0 ? content : free).map(ftsOf).join(' OR ');
      const relaxed = scoped.length > 0 ? `${scoped.map(ftsOf).join(' AND ')} AND (${some})` : some;
      relaxedMatch = `((${relaxed}) NOT (${strict}))${negation}`;
    }
  } else if (negatives.length > 0) {
    conditions.push({ sql: `d.id NOT IN (${FTS_SUBQUERY})`, params: [negatives.map(ftsOf).join(' OR ')] });
  }
  const leaves: Leaf[] = [];
  collectPositiveLeaves(root, (leaf) => leaves.push(leaf));
  // Stop words are not marked in snippets when the query has other words to show.
  const marked = leaves.some((l) => !isStopTerm(l)) ? leaves.filter((l) => !isStopTerm(l)) : leaves;
  const terms = leaves.map((l) => l.text);
  const highlight: HighlightTerm[] = marked.flatMap((l) => highlightTermsOf(leafText(l), l.prefix));
  return { match, relaxedMatch, conditions, terms: [...new Set(terms)], highlight };
}

type Leaf = Extract<QueryNode, { type: 'term' | 'phrase' }>;

function hasPositive(n: QueryNode): boolean {
  switch (n.type) {
    case 'term':
    case 'phrase':
    case 'filter':
      return true;
    case 'not':
      return false;
    case 'and':
      return n.children.some(hasPositive);
    case 'or':
      return n.children.every(hasPositive);
  }
}

/** Expressible as one FTS5 expression that needs no left operand. */
function isFtsPositive(n: QueryNode): boolean {
  switch (n.type) {
    case 'term':
    case 'phrase':
      return true;
    case 'or':
      return n.children.every(isFtsPositive);
    case 'and':
      return (
        n.children.every((c) => isFtsPositive(c) || (c.type === 'not' && isFtsAny(c.child))) &&
        n.children.some(isFtsPositive)
      );
    default:
      return false;
  }
}

/** Pure text (any polarity): can appear inside an FTS5 expression as a NOT operand. */
/** A positive limited to a field (`title:`, `path:`…), or a group made only of such. */
function isScoped(n: QueryNode): boolean {
  switch (n.type) {
    case 'term':
    case 'phrase':
      return n.field !== null;
    case 'or':
    case 'and':
      return n.children.every((c) => (c.type === 'not' ? isScoped(c.child) : isScoped(c)));
    default:
      return false;
  }
}

function isFtsAny(n: QueryNode): boolean {
  return isFtsPositive(n);
}

function isStopTerm(n: QueryNode): boolean {
  return n.type === 'term' && !n.prefix && n.field === null && isStopWord(n.text);
}

/** The text the index would hold for a leaf: URLs reduced to their words, as urlTerms does. */
function leafText(leaf: Leaf): string {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(leaf.text) ? urlTerms(leaf.text) : leaf.text;
}

/** An FTS5 string. NUL would end the expression early inside SQLite (C strings): it becomes a space. */
function quote(s: string): string {
  return `"${s.replace(/"/g, '""').replace(/\0/g, ' ')}"`;
}

/** One leaf as an FTS5 phrase: CJK runs as bigrams, a trailing single CJK character as a prefix. */
function leafFts(leaf: Leaf): string {
  const text = leafText(leaf);
  const runs = splitRuns(text);
  const last = runs[runs.length - 1];
  const singleCjkTail = !!last && last.cjk && Array.from(last.text).length === 1;
  const spelled = leaf.prefix && !singleCjkTail ? activeExpandPrefix?.(text) : null;
  const phrase = spelled?.length
    ? spelled.length === 1
      ? spelled[0]
      : `(${spelled.join(' OR ')})`
    : `${quote(toIndexText(text).trim().replace(/\s+/g, ' '))}${leaf.prefix || singleCjkTail ? '*' : ''}`;
  return leaf.field ? `{${leaf.field}} : ${phrase}` : phrase;
}

function ftsOf(n: QueryNode): string {
  switch (n.type) {
    case 'term':
    case 'phrase':
      return leafFts(n);
    case 'or':
      return `(${n.children.map(ftsOf).join(' OR ')})`;
    case 'and': {
      const pos = n.children.filter(isFtsPositive).map(ftsOf).join(' AND ');
      const neg = n.children
        .filter((c) => c.type === 'not')
        .map((c) => ftsOf((c as { child: QueryNode }).child));
      return neg.length > 0 ? `((${pos}) NOT (${neg.join(' OR ')}))` : `(${pos})`;
    }
    default:
      throw new Error(`not a full-text node: ${n.type}`);
  }
}

function sqlOf(n: QueryNode, opts: CompileOptions): SqlCondition {
  if (isFtsPositive(n)) return { sql: `d.id IN (${FTS_SUBQUERY})`, params: [ftsOf(n)] };
  switch (n.type) {
    case 'not': {
      if (isFtsAny(n.child)) return { sql: `d.id NOT IN (${FTS_SUBQUERY})`, params: [ftsOf(n.child)] };
      const inner = sqlOf(n.child, opts);
      return { sql: `NOT (${inner.sql})`, params: inner.params };
    }
    case 'and':
    case 'or': {
      const parts = n.children.map((c) => sqlOf(c, opts));
      return {
        sql: `(${parts.map((p) => p.sql).join(n.type === 'and' ? ' AND ' : ' OR ')})`,
        params: parts.flatMap((p) => p.params),
      };
    }
    case 'filter':
      return filterSql(n.filter, opts);
    default:
      throw new Error(`unexpected node ${n.type}`);
  }
}

function filterSql(f: FilterSpec, opts: CompileOptions): SqlCondition {
  switch (f.field) {
    case 'ext':
      return inList('d.ext', f.values);
    case 'mime': {
      const parts = f.values.map((v) =>
        v.endsWith('/*')
          ? { sql: 'd.mime LIKE ?', params: [`${v.slice(0, -1)}%`] }
          : { sql: 'd.mime = ?', params: [v] },
      );
      return { sql: `(${parts.map((p) => p.sql).join(' OR ')})`, params: parts.flatMap((p) => p.params) };
    }
    case 'author':
      return { sql: `d.author LIKE ? ESCAPE '\\'`, params: [`%${f.text.replace(/[\\%_]/g, '\\$&')}%`] };
    case 'source': {
      const id = /^\d+$/.test(f.value) ? Number(f.value) : opts.sourceNames?.get(f.value.toLowerCase());
      if (id !== undefined) return { sql: 'd.source_id = ?', params: [id] };
      return {
        sql: 'd.source_id IN (SELECT id FROM sources WHERE name = ? COLLATE NOCASE)',
        params: [f.value],
      };
    }
    case 'size': {
      const parts: SqlCondition[] = [];
      if (f.min !== null) parts.push({ sql: 'd.size >= ?', params: [f.min] });
      if (f.max !== null) parts.push({ sql: 'd.size <= ?', params: [f.max] });
      return joinAnd(parts);
    }
    case 'modified': {
      const { from, to } = resolveModified(f, opts.now);
      const parts: SqlCondition[] = [];
      if (from !== null) parts.push({ sql: 'd.mtime >= ?', params: [from] });
      if (to !== null) parts.push({ sql: 'd.mtime < ?', params: [to] });
      return joinAnd(parts);
    }
  }
}

function inList(column: string, values: string[]): SqlCondition {
  if (values.length === 1) return { sql: `${column} = ?`, params: values };
  return { sql: `${column} IN (${values.map(() => '?').join(', ')})`, params: values };
}

function joinAnd(parts: SqlCondition[]): SqlCondition {
  if (parts.length === 0) return { sql: '1', params: [] };
  return { sql: `(${parts.map((p) => p.sql).join(' AND ')})`, params: parts.flatMap((p) => p.params) };
}

/** `[start, end)` in ms of a date spec, in local time. */
export function dateRange(d: DateSpec, now: number): { start: number; end: number } {
  if (d.kind === 'date') {
    if (d.m === undefined)
      return { start: new Date(d.y, 0, 1).getTime(), end: new Date(d.y + 1, 0, 1).getTime() };
    if (d.d === undefined)
      return { start: new Date(d.y, d.m - 1, 1).getTime(), end: new Date(d.y, d.m, 1).getTime() };
    return { start: new Date(d.y, d.m - 1, d.d).getTime(), end: new Date(d.y, d.m - 1, d.d + 1).getTime() };
  }
  const t = new Date(now);
  const y = t.getFullYear();
  const m = t.getMonth();
  const day = t.getDate();
  const tomorrow = new Date(y, m, day + 1).getTime();
  switch (d.name) {
    case 'today':
      return { start: new Date(y, m, day).getTime(), end: tomorrow };
    case 'yesterday':
      return { start: new Date(y, m, day - 1).getTime(), end: new Date(y, m, day).getTime() };
    case 'week':
      return { start: new Date(y, m, day - 6).getTime(), end: tomorrow };
    case 'month':
      return { start: new Date(y, m - 1, day).getTime(), end: tomorrow };
    case 'year':
      return { start: new Date(y - 1, m, day).getTime(), end: tomorrow };
  }
}

function resolveModified(
  f: Extract<FilterSpec, { field: 'modified' }>,
  now: number,
): { from: number | null; to: number | null } {
  const a = dateRange(f.a, now);
  switch (f.op) {
    case 'range':
      return { from: a.start, to: dateRange(f.b!, now).end };
    case '>':
      return { from: a.end, to: null };
    case '>=':
      return { from: a.start, to: null };
    case '<':
      return { from: null, to: a.start };
    case '<=':
      return { from: null, to: a.end };
    case '=':
      // A period ("week") means "within it, or later"; a date means that day (month, year).
      return f.a.kind === 'relative' ? { from: a.start, to: null } : { from: a.start, to: a.end };
  }
}

function collectPositiveLeaves(n: QueryNode, visit: (leaf: Leaf) => void): void {
  switch (n.type) {
    case 'term':
    case 'phrase':
      visit(n);
      return;
    case 'and':
    case 'or':
      for (const c of n.children) collectPositiveLeaves(c, visit);
      return;
    default:
      return;
  }
}

function firstPos(n: QueryNode): number {
  switch (n.type) {
    case 'term':
    case 'phrase':
    case 'filter':
      return n.pos;
    case 'not':
      return firstPos(n.child);
    case 'and':
    case 'or':
      return n.children.length > 0 ? firstPos(n.children[0]) : 0;
  }
}
