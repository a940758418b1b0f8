/**
 * Query suggestions as the user types: typo-tolerant completion of the last word over the
 * vocabulary of document titles, names, keywords, descriptions and authors, plus whole titles that
 * match every word typed.
 *
 * Trimming: every vocabulary entry remembers which ACLs its documents carry, and an entry is
 * offered only when at least one document containing it is visible to the caller, so a suggestion
 * never reveals a word that occurs only in documents the caller cannot read. One MiniSearch index
 * serves every caller (visibility is a per-call filter); it is rebuilt when the index changes,
 * detected by `ctx.generation`, SQLite's `data_version` (commits by other connections) and
 * `total_changes()` (commits by this one).
 */
import MiniSearch, { type SearchResult } from 'minisearch';
import type { Db } from '../index/database.js';
import type { SearchContext } from './search.js';

interface Entry {
  id: number;
  text: string;
  kind: 'term' | 'title';
  /** Some document holding it has no descriptor (visible to all). */
  pub: boolean;
  acls: number[];
  df: number;
}

interface SuggestIndex {
  stamp: string;
  ms: MiniSearch<Entry>;
}

const indexes = new WeakMap<Db, SuggestIndex>();

const TOKEN_SPLIT = /[\n\r\p{Z}\p{P}\p{S}]+/u;

function stampOf(db: Db, ctx: SearchContext): string {
  const row = db.prepare('SELECT total_changes() AS c').get() as { c: number };
  const version = db.pragma('data_version', { simple: true }) as number;
  return `${ctx.generation ?? ''}|${version}|${row.c}`;
}

function build(db: Db): MiniSearch<Entry> {
  const terms = new Map<string, { pub: boolean; acls: Set<number>; df: number }>();
  const titles = new Map<string, { pub: boolean; acls: Set<number>; df: number }>();
  const note = (
    map: Map<string, { pub: boolean; acls: Set<number>; df: number }>,
    key: string,
    acl: number | null,
  ): void => {
    let e = map.get(key);
    if (!e) {
      e = { pub: false, acls: new Set(), df: 0 };
      map.set(key, e);
    }
    e.df++;
    if (acl === null) e.pub = true;
    else e.acls.add(acl);
  };
  const rows = db
    .prepare('SELECT acl_id, title, name, keywords, description, author FROM documents')
    .iterate() as Iterable<{
    acl_id: number | null;
    title: string | null;
    name: string;
    keywords: string | null;
    description: string | null;
    author: string | null;
  }>;
  for (const r of rows) {
    const title = (r.title || r.name.replace(/\.[^.]+$/, '')).trim();
    if (title && title.length <= 200) note(titles, title, r.acl_id);
    const seen = new Set<string>();
    for (const field of [r.title, r.name, r.keywords, r.description, r.author]) {
      if (!field) continue;
      for (const w of field.toLowerCase().split(TOKEN_SPLIT)) {
        if (w.length < 2 || w.length > 40 || seen.has(w) || /^\d+$/.test(w)) continue;
        seen.add(w);
        note(terms, w, r.acl_id);
      }
    }
  }
  const ms = new MiniSearch<Entry>({
    fields: ['text'],
    storeFields: ['text', 'kind', 'pub', 'acls', 'df'],
    tokenize: (s) => s.split(TOKEN_SPLIT).filter((w) => w.length > 0),
    processTerm: (t) => t.toLowerCase(),
  });
  let id = 0;
  const docs: Entry[] = [];
  for (const [text, e] of terms)
    docs.push({ id: id++, text, kind: 'term', pub: e.pub, acls: [...e.acls], df: e.df });
  for (const [text, e] of titles)
    docs.push({ id: id++, text, kind: 'title', pub: e.pub, acls: [...e.acls], df: e.df });
  ms.addAll(docs);
  return ms;
}

function indexFor(db: Db, ctx: SearchContext): MiniSearch<Entry> {
  const stamp = stampOf(db, ctx);
  const cached = indexes.get(db);
  if (cached && cached.stamp === stamp) return cached.ms;
  const ms = build(db);
  // Building runs queries only, so the stamp it started from is still current.
  indexes.set(db, { stamp, ms });
  return ms;
}

function visibility(ctx: SearchContext): (r: SearchResult) => boolean {
  if (ctx.acl.mode === 'all') return () => true;
  const allowed = new Set(ctx.acl.aclIds.map(Number));
  return (r) => r.pub === true || (r.acls as number[]).some((a) => allowed.has(a));
}

/**
 * Up to `limit` suggestions for what the user has typed so far (`prefix`), best first.
 *
 * Completions of the last word (typo-tolerant from four letters on) come first, keeping the
 * earlier words as typed; then titles containing every word. Only vocabulary of documents visible
 * under `ctx.acl` is used. A blank prefix gives [].
 */
export function suggest(db: Db, prefix: string, ctx: SearchContext, limit = 8): string[] {
  const typed = prefix.replace(/\s+/g, ' ').trimStart();
  const words = typed.split(TOKEN_SPLIT).filter((w) => w.length > 0);
  if (words.length === 0 || limit <= 0) return [];
  const ms = indexFor(db, ctx);
  const visible = visibility(ctx);
  const last = words[words.length - 1];
  const endsWithSpace = /\s$/.test(prefix);
  const head = typed.slice(0, typed.toLowerCase().lastIndexOf(last.toLowerCase()));
  const fuzzy = (term: string): number | false => (term.length >= 4 ? 0.2 : false);

  const completions: string[] = [];
  if (!endsWithSpace) {
    const found = ms.search(last, {
      prefix: true,
      fuzzy,
      filter: (r) => r.kind === 'term' && visible(r),
      boostDocument: (_id, _term, stored) => Math.log2(2 + Number(stored?.df ?? 0)),
    });
    for (const r of found) {
      const text = `${head}${String(r.text)}`;
      if (text.toLowerCase() !== typed.toLowerCase()) completions.push(text);
    }
  }
  const titles = ms
    .search(typed, {
      prefix: (_t, i, all) => i === all.length - 1,
      fuzzy,
      combineWith: 'AND',
      filter: (r) => r.kind === 'title' && visible(r),
    })
    .map((r) => String(r.text));

  const out: string[] = [];
  const seen = new Set<string>();
  const add = (s: string): void => {
    const key = s.toLowerCase();
    if (out.length < limit && !seen.has(key)) {
      seen.add(key);
      out.push(s);
    }
  };
  const firstCompletions = Math.ceil(limit * 0.6);
  completions.slice(0, firstCompletions).forEach(add);
  titles.forEach(add);
  completions.slice(firstCompletions).forEach(add);
  return out;
}
