import type Database from 'better-sqlite3';
import type { Db } from '../index/database.js';
import { phraseFor, singleToken, tokenizerFor } from './term-tops.js';

/**
 * Endings whose removal by the Porter stemmer can cut into a typed prefix (`runn`+`ing` → `run`,
 * `relatio`+`nal` → `relat`): words formed with them show which shorter stems a prefix stands for.
 */
const ENDINGS = [
  '',
  's',
  'e',
  'es',
  'ed',
  'ing',
  'ings',
  'y',
  'ies',
  'er',
  'ers',
  'ion',
  'ions',
  'n',
  'ns',
  'nal',
  'al',
  'ally',
  'ate',
  'ation',
  'ational',
  'ations',
  'ize',
  'ization',
  'ness',
  'ment',
  'ments',
  'ful',
  'ly',
  'ity',
  'ive',
  'ous',
  'ance',
  'ence',
  'able',
  'ible',
  'ism',
  'ist',
];

/** Most index words a prefix is spelled out as when FTS5's prefix query cannot express it. */
export const MAX_PREFIX_WORDS = 64;

/**
 * A prefix query on a stemmed index, as FTS5 alternatives that match words starting with what was
 * typed.
 *
 * FTS5 stems the text of a prefix query before matching it against stems, so `bers*` searched
 * `ber*` (berlin, bert) and `runn*` found nothing (running is indexed as `run`). Instead:
 * - the prefix itself is matched against the stems: FTS5's prefix query written with a spelling
 *   whose stem is exactly the folded prefix (`"berse"*` searches stems starting with `bers`), or,
 *   where no such spelling exists, every index word starting with it spelled out (at most
 *   {@link MAX_PREFIX_WORDS});
 * - plus the stems of words formed from the prefix with endings the stemmer removes (`runn` +
 *   `ing` → `run`), each as a phrase that yields exactly that index word.
 *
 * Returns the alternatives to OR, or null to keep FTS5's own prefix query: a prefix that is not
 * one plain Latin word, one that cannot be expressed within the limit, or an index without a
 * vocabulary table.
 */
export function prefixExpander(db: Db): (word: string) => string[] | null {
  let made = expanders.get(db);
  if (!made) expanders.set(db, (made = makeExpander(db)));
  return made;
}

const expanders = new WeakMap<Db, (word: string) => string[] | null>();

function makeExpander(db: Db): (word: string) => string[] | null {
  const tok = tokenizerFor(db);
  let range: Database.Statement<unknown[], unknown> | null = null;
  let exact: Database.Statement<unknown[], unknown> | null = null;
  try {
    range = db.prepare('SELECT term FROM fts_vocab WHERE term >= ? AND term < ? LIMIT ?').pluck();
    exact = db.prepare('SELECT term FROM fts_vocab WHERE term = ?').pluck();
  } catch {
    // no vocabulary table (an index opened read-only before its migration)
  }
  return (word) => {
    if (!tok || !range || !exact) return null;
    const p = word.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();
    if (!/^[a-z0-9]+$/.test(p)) return null;
    const alternatives: string[] = [];
    const asPrefix = phraseFor(tok, p);
    if (asPrefix) alternatives.push(`${asPrefix}*`);
    else {
      const words = range.all(p, `${p}\uffff`, MAX_PREFIX_WORDS + 1) as string[];
      if (words.length > MAX_PREFIX_WORDS) return null;
      for (const w of words) {
        const phrase = phraseFor(tok, w);
        if (!phrase) return null;
        alternatives.push(phrase);
      }
    }
    const shorter = new Set<string>();
    for (const ending of ENDINGS) {
      const stem = singleToken(tok, p + ending);
      if (stem && !stem.startsWith(p) && exact.get(stem) !== undefined) shorter.add(stem);
    }
    for (const stem of [...shorter].sort()) {
      const phrase = phraseFor(tok, stem);
      if (!phrase) return null;
      alternatives.push(phrase);
    }
    return alternatives.length > 0 ? alternatives : null;
  };
}
