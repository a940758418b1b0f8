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
import MiniSearch from 'minisearch';
import type { Db } from '../index/database.js';
import { dataStamp } from './data-stamp.js';
import { isStopWord } from './stop-words.js';
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
  /** Vocabulary entries sorted by text, for exact prefix completion by binary search. */
  terms: Entry[];
}

const indexes = new WeakMap<Db, SuggestIndex>();

const TOKEN_SPLIT = /[\n\r\p{Z}\p{P}\p{S}]+/u;

function build(db: Db, stamp: string): SuggestIndex {
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
  const sorted = docs
    .filter((d) => d.kind === 'term')
    .sort((a, b) => (a.text < b.text ? -1 : a.text > b.text ? 1 : 0));
  return { stamp, ms, terms: sorted };
}

function indexFor(db: Db, ctx: SearchContext): SuggestIndex {
  const stamp = dataStamp(db, ctx.generation);
  const cached = indexes.get(db);
  if (cached && cached.stamp === stamp) return cached;
  // Building only reads, so the stamp it started from is still current.
  const index = build(db, stamp);
  indexes.set(db, index);
  return index;
}

/** Visible vocabulary entries starting with `prefix`, most frequent first. */
function prefixCompletions(
  terms: Entry[],
  prefix: string,
  visible: (e: Entry) => boolean,
  limit: number,
): Entry[] {
  let lo = 0;
  let hi = terms.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (terms[mid].text < prefix) lo = mid + 1;
    else hi = mid;
  }
  const found: Entry[] = [];
  for (let i = lo; i < terms.length && terms[i].text.startsWith(prefix); i++) {
    if (visible(terms[i])) found.push(terms[i]);
  }
  found.sort((a, b) => b.df - a.df || a.text.length - b.text.length);
  return found.slice(0, limit);
}

function visibility(ctx: SearchContext): (r: Entry) => boolean {
  if (ctx.acl.mode === 'all') return () => true;
  const allowed = new Set(ctx.acl.aclIds.map(Number));
  return (r) => r.pub || r.acls.some((a) => allowed.has(a));
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
  const { ms, terms } = indexFor(db, ctx);
  const visible = visibility(ctx);
  const last = words[words.length - 1];
  const lastLower = last.toLowerCase();
  const endsWithSpace = /\s$/.test(prefix);
  const head = typed.slice(0, typed.toLowerCase().lastIndexOf(lastLower));
  const fuzzy = (term: string): number | false => (term.length >= 4 ? 0.2 : false);

  const completions: string[] = [];
  if (!endsWithSpace) {
    const exact = prefixCompletions(terms, lastLower, visible, limit);
    const found = exact.map((e) => e.text);
    if (found.length < limit && lastLower.length >= 4) {
      // Typo-tolerant matches only for longer words: short ones would match half the vocabulary.
      const fuzzyFound = ms.search(lastLower, {
        fields: ['text'],
        prefix: true,
        fuzzy,
        filter: (r) => r.kind === 'term' && visible(r as unknown as Entry),
        boostDocument: (_id, _term, stored) => Math.log2(2 + Number(stored?.df ?? 0)),
      });
      for (const r of fuzzyFound.slice(0, limit)) found.push(String(r.text));
    }
    for (const t of found) {
      const text = `${head}${t}`;
      if (text.toLowerCase() !== typed.toLowerCase()) completions.push(text);
    }
  }
  const titles =
    typed.replace(/\s+/g, '').length >= 3
      ? ms
          .search(typed, {
            prefix: (_t, i, all) => i === all.length - 1,
            fuzzy,
            combineWith: 'AND',
            filter: (r) => r.kind === 'title' && visible(r as unknown as Entry),
            // Stop words would match most titles and cost more than they narrow.
            processTerm: (t) => (isStopWord(t) ? null : t.toLowerCase()),
          })
          .slice(0, limit)
          .map((r) => String(r.text))
      : [];

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
