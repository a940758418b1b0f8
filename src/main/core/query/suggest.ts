/**
 * Query suggestions as the user types: completion of the last word (typo-tolerant from four
 * letters on) over the vocabulary of document titles, names, keywords, descriptions and authors,
 * plus whole titles that match every word typed.
 *
 * Trimming: every vocabulary entry counts, per ACL, the documents that contain it, and an entry is
 * offered only while at least one document containing it is visible to the caller, so a suggestion
 * never reveals a word that occurs only in documents the caller cannot read. One vocabulary (with a
 * MiniSearch index for the typo-tolerant part) serves every caller; visibility is a per-call filter.
 *
 * Freshness: whenever the index may have changed (`ctx.generation`, SQLite's `data_version` for
 * commits by other connections, `total_changes()` for this one), the vocabulary is brought up to
 * date before answering, without rebuilding it: documents added, removed or whose ACL changed are
 * found by a scan of the small `(acl_id, id)` index, so trimming is exact at all times; documents
 * re-crawled in place (same id and ACL, new text) are found by a scan of `crawl_time`, done when the
 * caller's `generation` changes and otherwise at most every {@link CONTENT_RESCAN_MS} ms while the
 * index keeps changing.
 */
import MiniSearch from 'minisearch';
import type Database from 'better-sqlite3';
import type { Db } from '../index/database.js';
import { dataStamp } from './data-stamp.js';
import { isStopWord } from './stop-words.js';
import type { SearchContext } from './search.js';

/** A vocabulary entry: a word, or a whole title. */
interface Entry {
  id: number;
  text: string;
  kind: 'term' | 'title';
  /** Containing documents without a descriptor (visible to everyone). */
  pub: number;
  /** Containing documents per ACL id. */
  acls: Map<number, number>;
  df: number;
}

/** What one document contributed, so it can be taken back. */
interface Contribution {
  crawlTime: number;
  acl: number | null;
  entries: Entry[];
}

interface Vocabulary {
  stamp: string;
  /** When `crawl_time` was last compared (ms), and the caller's generation then. */
  contentScanAt: number;
  contentGeneration: number | undefined;
  docs: Map<number, Contribution>;
  entries: Map<string, Entry>;
  byId: Map<number, Entry>;
  ms: MiniSearch<{ id: number; text: string }>;
  nextId: number;
  /** Word entries sorted by text, for exact prefix completion by binary search. */
  sorted: Entry[];
  /** During the first build, words are appended and sorted once at the end. */
  bulk: boolean;
}

const vocabularies = new WeakMap<Db, Vocabulary>();
interface Statements {
  ids: Database.Statement;
  times: Database.Statement;
  fields: Database.Statement;
}
const statements = new WeakMap<Db, Statements>();

/** Longest time a re-crawled document's old words may still be suggested (to its readers only). */
export const CONTENT_RESCAN_MS = 10_000;

const TOKEN_SPLIT = /[\n\r\p{Z}\p{P}\p{S}]+/u;

function newVocabulary(): Vocabulary {
  return {
    stamp: '',
    contentScanAt: 0,
    contentGeneration: undefined,
    docs: new Map(),
    entries: new Map(),
    byId: new Map(),
    ms: new MiniSearch({
      fields: ['text'],
      tokenize: (s) => s.split(TOKEN_SPLIT).filter((w) => w.length > 0),
      processTerm: (t) => t.toLowerCase(),
    }),
    nextId: 1,
    sorted: [],
    bulk: false,
  };
}

function statementsFor(db: Db): Statements {
  let st = statements.get(db);
  if (!st) {
    st = {
      ids: db.prepare('SELECT id, acl_id FROM documents').raw(),
      times: db.prepare('SELECT id, crawl_time FROM documents').raw(),
      fields: db.prepare(
        'SELECT crawl_time, title, name, keywords, description, author FROM documents WHERE id = ?',
      ),
    };
    statements.set(db, st);
  }
  return st;
}

function addContribution(
  v: Vocabulary,
  kind: Entry['kind'],
  text: string,
  acl: number | null,
  into: Entry[],
): void {
  const key = `${kind}:${kind === 'term' ? text : text.toLowerCase()}`;
  let e = v.entries.get(key);
  if (!e) {
    e = { id: v.nextId++, text, kind, pub: 0, acls: new Map(), df: 0 };
    v.entries.set(key, e);
    v.byId.set(e.id, e);
    v.ms.add({ id: e.id, text });
    if (kind === 'term') {
      if (v.bulk) v.sorted.push(e);
      else v.sorted.splice(lowerBound(v.sorted, text), 0, e);
    }
  }
  e.df++;
  if (acl === null) e.pub++;
  else e.acls.set(acl, (e.acls.get(acl) ?? 0) + 1);
  into.push(e);
}

function removeContribution(v: Vocabulary, c: Contribution): void {
  for (const e of c.entries) {
    e.df--;
    if (c.acl === null) e.pub--;
    else {
      const n = (e.acls.get(c.acl) ?? 0) - 1;
      if (n > 0) e.acls.set(c.acl, n);
      else e.acls.delete(c.acl);
    }
    if (e.df <= 0) {
      v.entries.delete(`${e.kind}:${e.kind === 'term' ? e.text : e.text.toLowerCase()}`);
      v.byId.delete(e.id);
      v.ms.discard(e.id);
      if (e.kind === 'term') {
        const at = lowerBound(v.sorted, e.text);
        if (v.sorted[at] === e) v.sorted.splice(at, 1);
      }
    }
  }
}

function contribute(v: Vocabulary, db: Db, id: number, acl: number | null): void {
  const row = statementsFor(db).fields.get(id) as
    | {
        crawl_time: number;
        title: string | null;
        name: string;
        keywords: string | null;
        description: string | null;
        author: string | null;
      }
    | undefined;
  const c: Contribution = { crawlTime: row?.crawl_time ?? 0, acl, entries: [] };
  if (row) {
    const title = (row.title || row.name.replace(/\.[^.]+$/, '')).trim();
    if (title && title.length <= 200) addContribution(v, 'title', title, acl, c.entries);
    const seen = new Set<string>();
    for (const field of [row.title, row.name, row.keywords, row.description, row.author]) {
      if (!field) continue;
      for (const w of field.toLowerCase().split(TOKEN_SPLIT)) {
        if (w.length < 2 || w.length > 40 || seen.has(w) || /^\d+$/.test(w)) continue;
        seen.add(w);
        addContribution(v, 'term', w, acl, c.entries);
      }
    }
  }
  v.docs.set(id, c);
}

/** Bring the vocabulary up to date with the documents table. */
function refresh(v: Vocabulary, db: Db, now: number, generation: number | undefined): void {
  const st = statementsFor(db);
  v.bulk = v.docs.size === 0;
  const present = new Set<number>();
  for (const [id, acl] of st.ids.iterate() as Iterable<[number, number | null]>) {
    present.add(id);
    const old = v.docs.get(id);
    if (old && old.acl === acl) continue;
    if (old) removeContribution(v, old);
    contribute(v, db, id, acl);
  }
  if (v.bulk) {
    v.sorted.sort((a, b) => (a.text < b.text ? -1 : a.text > b.text ? 1 : 0));
    v.bulk = false;
  }
  for (const [id, c] of v.docs) {
    if (!present.has(id)) {
      removeContribution(v, c);
      v.docs.delete(id);
    }
  }
  if (now - v.contentScanAt >= CONTENT_RESCAN_MS || generation !== v.contentGeneration) {
    v.contentScanAt = now;
    v.contentGeneration = generation;
    for (const [id, t] of st.times.iterate() as Iterable<[number, number]>) {
      const old = v.docs.get(id);
      if (!old || old.crawlTime === t) continue;
      removeContribution(v, old);
      contribute(v, db, id, old.acl);
    }
  }
}

function vocabularyFor(db: Db, ctx: SearchContext): Vocabulary {
  const stamp = dataStamp(db, ctx.generation);
  let v = vocabularies.get(db);
  if (!v) {
    v = newVocabulary();
    vocabularies.set(db, v);
  }
  if (v.stamp !== stamp) {
    refresh(v, db, Date.now(), ctx.generation);
    // Refreshing only reads, so the stamp taken before it is still current.
    v.stamp = stamp;
  }
  return v;
}

function visibility(ctx: SearchContext): (e: Entry) => boolean {
  if (ctx.acl.mode === 'all') return () => true;
  const allowed = ctx.acl.aclIds.map(Number);
  return (e) => e.pub > 0 || allowed.some((a) => e.acls.has(a));
}

/** Index of the first entry of `sorted` whose text is not below `text`. */
function lowerBound(sorted: readonly Entry[], text: string): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid].text < text) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Visible words starting with `prefix`, most frequent first. */
function prefixCompletions(
  v: Vocabulary,
  prefix: string,
  visible: (e: Entry) => boolean,
  limit: number,
): Entry[] {
  const terms = v.sorted;
  const found: Entry[] = [];
  for (let i = lowerBound(terms, prefix); i < terms.length && terms[i].text.startsWith(prefix); i++) {
    if (visible(terms[i])) found.push(terms[i]);
  }
  found.sort((a, b) => b.df - a.df || a.text.length - b.text.length);
  return found.slice(0, limit);
}

/**
 * Up to `limit` suggestions for what the user has typed so far (`prefix`), best first.
 *
 * Completions of the last word come first, keeping the earlier words as typed; then titles
 * containing every word. Only the vocabulary of documents visible under `ctx.acl` is used. A blank
 * prefix gives [].
 */
export function suggest(db: Db, prefix: string, ctx: SearchContext, limit = 8): string[] {
  const typed = prefix.replace(/\s+/g, ' ').trimStart();
  const words = typed.split(TOKEN_SPLIT).filter((w) => w.length > 0);
  if (words.length === 0 || limit <= 0) return [];
  const v = vocabularyFor(db, ctx);
  const visible = visibility(ctx);
  const entryOf = (id: unknown): Entry | undefined => v.byId.get(Number(id));
  const last = words[words.length - 1];
  const lastLower = last.toLowerCase();
  const head = typed.slice(0, typed.toLowerCase().lastIndexOf(lastLower));
  const fuzzy = (term: string): number | false => (term.length >= 4 ? 0.2 : false);

  const completions: string[] = [];
  if (!/\s$/.test(prefix)) {
    const found = prefixCompletions(v, lastLower, visible, limit).map((e) => e.text);
    if (found.length < limit && lastLower.length >= 4) {
      // Typo-tolerant matches only for longer words: short ones would match half the vocabulary.
      const fuzzyFound = v.ms.search(lastLower, {
        prefix: true,
        fuzzy,
        filter: (r) => {
          const e = entryOf(r.id);
          return !!e && e.kind === 'term' && visible(e);
        },
        boostDocument: (id) => Math.log2(2 + (entryOf(id)?.df ?? 0)),
      });
      for (const r of fuzzyFound.slice(0, limit)) found.push(entryOf(r.id)!.text);
    }
    for (const t of found) {
      const text = `${head}${t}`;
      if (text.toLowerCase() !== typed.toLowerCase()) completions.push(text);
    }
  }
  const titles =
    typed.replace(/\s+/g, '').length >= 3
      ? v.ms
          .search(typed, {
            prefix: (_t, i, all) => i === all.length - 1,
            fuzzy,
            combineWith: 'AND',
            filter: (r) => {
              const e = entryOf(r.id);
              return !!e && e.kind === 'title' && visible(e);
            },
            // Stop words would match most titles and cost more than they narrow.
            processTerm: (t) => (isStopWord(t) ? null : t.toLowerCase()),
          })
          .slice(0, limit)
          .map((r) => entryOf(r.id)!.text)
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
