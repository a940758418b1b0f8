/**
 * Finding query hits in stored text, with the same normalisation as the index: case and
 * diacritics folded (`café` = `cafe`), Porter stems compared (`encouraging` = `encourage`), CJK
 * matched as substrings. Used for snippets and for the preview's hit ranges; the index itself is
 * never consulted, so this works on any text.
 */
import { stemmer } from 'stemmer';
import { hasCjk, splitRuns } from '../index/cjk.js';

/** One thing to look for in text. */
export type HighlightTerm =
  { kind: 'word'; text: string } | { kind: 'prefix'; text: string } | { kind: 'cjk'; text: string };

/** A hit: `[start, end)` in UTF-16 code units of the text, and which term matched. */
export interface Hit {
  start: number;
  end: number;
  term: number;
}

const CJK_TEST = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u3005\u30fc]/u;
const WORD_TEST = /[\p{L}\p{N}\p{M}]/u;

function isCjkCode(cp: number): boolean {
  return cp >= 0x1100 && CJK_TEST.test(String.fromCodePoint(cp));
}

/** Whether the character before `i` continues a (non-CJK) word. */
function isWordBefore(text: string, i: number): boolean {
  let j = i - 1;
  if (j > 0 && isLowSurrogate(text.charCodeAt(j))) j--;
  const ch = String.fromCodePoint(text.codePointAt(j)!);
  return WORD_TEST.test(ch) && !CJK_TEST.test(ch);
}

const CJK_CLASS = '\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}\\p{Script=Hangul}\\u3005\\u30fc';
const WORD_CHAR = `(?:(?![${CJK_CLASS}])[\\p{L}\\p{N}\\p{M}])`;
/** The rest of a (non-CJK) word, from `lastIndex`. */
const WORD_TAIL = new RegExp(`${WORD_CHAR}*`, 'uy');

/** Lowercase, diacritics removed: what `unicode61 remove_diacritics 2` does to a token. */
export function foldWord(word: string): string {
  const lower = word.toLowerCase();
  // eslint-disable-next-line no-control-regex
  if (/^[\x00-\x7f]*$/.test(lower)) return lower;
  return lower.normalize('NFD').replace(/\p{M}/gu, '');
}

/** The index's form of a word: folded, then Porter-stemmed. */
export function stemWord(word: string): string {
  return stemmer(foldWord(word));
}

/**
 * The highlight terms of one query word or phrase: its words (split as the tokenizer splits them)
 * and CJK runs. `prefix` applies to the last word.
 */
export function highlightTermsOf(text: string, prefix: boolean): HighlightTerm[] {
  const out: HighlightTerm[] = [];
  for (const run of splitRuns(text)) {
    if (run.cjk) {
      out.push({ kind: 'cjk', text: run.text });
      continue;
    }
    for (const w of run.text.split(/[^\p{L}\p{N}\p{M}]+/u)) {
      if (w) out.push({ kind: 'word', text: w });
    }
  }
  if (prefix && out.length > 0 && out[out.length - 1].kind === 'word') {
    out[out.length - 1] = { kind: 'prefix', text: out[out.length - 1].text };
  }
  return out;
}

let variantTable: Map<string, string> | null = null;

/** For each base letter, the accented Latin letters that fold to it (`e` → `èéêë…`). */
function variants(): Map<string, string> {
  if (variantTable) return variantTable;
  const table = new Map<string, string>();
  const ranges: [number, number][] = [
    [0xc0, 0x24f],
    [0x1e00, 0x1eff],
  ];
  for (const [lo, hi] of ranges) {
    for (let cp = lo; cp <= hi; cp++) {
      const ch = String.fromCodePoint(cp);
      const base = ch.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
      if (base.length === 1 && base !== ch.toLowerCase()) table.set(base, (table.get(base) ?? '') + ch);
    }
  }
  variantTable = table;
  return table;
}

function escapeRegex(s: string): string {
  return s.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');
}

function foldedPattern(folded: string): string {
  const table = variants();
  let out = '';
  for (const ch of folded) {
    const v = table.get(ch);
    out += v ? `[${escapeRegex(ch)}${v}]` : escapeRegex(ch);
  }
  return out;
}

/**
 * Finds the hits of a fixed set of terms in any text. Construct once per query; `find` is cheap
 * enough to run on every result of a page.
 */
export class HitMatcher {
  private readonly regex: RegExp | null;
  private readonly stems = new Map<string, number>();
  private readonly prefixes: { text: string; term: number }[] = [];
  private readonly cjk = new Map<string, number>();
  private readonly memo = new Map<string, number>();
  /** Number of distinct terms. */
  readonly size: number;

  constructor(terms: readonly HighlightTerm[]) {
    const alts: string[] = [];
    const seen = new Set<string>();
    let index = 0;
    for (const t of terms) {
      const folded = t.kind === 'cjk' ? t.text : foldWord(t.text);
      const key = `${t.kind}:${t.kind === 'word' ? stemmer(folded) : folded}`;
      if (!folded || seen.has(key)) continue;
      seen.add(key);
      if (t.kind === 'cjk') {
        this.cjk.set(folded, index);
        alts.push(escapeRegex(folded));
      } else if (t.kind === 'prefix') {
        this.prefixes.push({ text: folded, term: index });
        alts.push(foldedPattern(folded));
      } else {
        const stem = stemmer(folded);
        this.stems.set(stem, index);
        const root = stem.length <= 2 ? stem : stem.slice(0, Math.max(2, stem.length - 2));
        alts.push(foldedPattern(root));
      }
      index++;
    }
    this.size = index;
    this.regex = alts.length > 0 ? new RegExp(alts.join('|'), 'giu') : null;
  }

  /**
   * Hits in `text`, in order, non-overlapping. Stops after `maxHits` hits or once the scan passes
   * `maxChars` characters.
   */
  find(text: string, maxHits = Infinity, maxChars = Infinity): Hit[] {
    const hits: Hit[] = [];
    if (!this.regex || !text) return hits;
    // The regex finds where a term's root starts; word boundaries and the rest of the word are
    // checked here, which keeps the regex a plain alternation of literals V8 scans quickly.
    const re = this.regex;
    re.lastIndex = 0;
    let m: RegExpExecArray | null;
    while ((m = re.exec(text)) !== null) {
      const start = m.index;
      if (start >= maxChars) break;
      let end = start + m[0].length;
      if (!isCjkCode(text.codePointAt(start)!)) {
        if (start > 0 && isWordBefore(text, start)) {
          re.lastIndex = start + 1;
          continue;
        }
        WORD_TAIL.lastIndex = end;
        WORD_TAIL.exec(text);
        end = WORD_TAIL.lastIndex;
      }
      re.lastIndex = end;
      const term = this.verify(text.slice(start, end));
      if (term >= 0) {
        hits.push({ start, end, term });
        if (hits.length >= maxHits) break;
      }
    }
    return hits;
  }

  private verify(word: string): number {
    const known = this.memo.get(word);
    if (known !== undefined) return known;
    let term: number;
    if (hasCjk(word)) {
      term = this.cjk.get(word) ?? -1;
    } else {
      const folded = foldWord(word);
      term = this.stems.get(stemmer(folded)) ?? -1;
      if (term < 0) for (const p of this.prefixes) if (folded.startsWith(p.text)) term = p.term;
    }
    if (this.memo.size < 10_000) this.memo.set(word, term);
    return term;
  }
}

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** HTML-escape text (`& < > " '`). */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

/** Options for {@link makeSnippet}. */
export interface SnippetOptions {
  /** Target length in characters (default 200). */
  width?: number;
}

/**
 * An HTML snippet of `text` around its best cluster of hits: the window of `width` characters
 * holding the most distinct terms (then the most hits), with hits wrapped in `<mark>…</mark>` and
 * everything else HTML-escaped; runs of whitespace become one space, and `…` marks cut text.
 * Without hits: the beginning of the text. Returns '' for empty text.
 */
export function makeSnippet(text: string, hits: readonly Hit[], opts: SnippetOptions = {}): string {
  const width = opts.width ?? 200;
  if (!text) return '';
  if (hits.length === 0) return window(text, 0, width, []);
  let best = 0;
  let bestDistinct = -1;
  let bestCount = -1;
  for (let i = 0; i < hits.length; i++) {
    const limit = hits[i].start + width;
    const terms = new Set<number>();
    let count = 0;
    for (let j = i; j < hits.length && hits[j].end <= limit; j++) {
      terms.add(hits[j].term);
      count++;
    }
    if (terms.size > bestDistinct || (terms.size === bestDistinct && count > bestCount)) {
      best = i;
      bestDistinct = terms.size;
      bestCount = count;
    }
  }
  const first = hits[best];
  let lastEnd = first.end;
  for (let j = best; j < hits.length && hits[j].end <= first.start + width; j++) lastEnd = hits[j].end;
  const slack = Math.max(0, width - (lastEnd - first.start));
  let start = Math.max(0, first.start - Math.min(60, Math.floor(slack / 2)));
  if (start > 0) {
    // The words before the hit, from the start of its line when that is within reach (a
    // paragraph, a labelled line such as "People: …"), else from a word boundary.
    const line = text.lastIndexOf('\n', first.start - 1);
    if (line >= start) start = line + 1;
    else {
      const space = text.lastIndexOf(' ', start);
      if (space >= start - 20) start = space + 1;
      else {
        const next = text.indexOf(' ', start);
        if (next !== -1 && next < first.start) start = next + 1;
      }
    }
  }
  return window(text, start, width, hits, lastEnd);
}

/** The whole of `text`, HTML-escaped, with `hits` wrapped in `<mark>…</mark>`. */
export function markHits(text: string, hits: readonly Hit[]): string {
  return window(text, 0, text.length, hits);
}

/** `width` characters of `text` from `start`, ended at a word boundary but not before `keepTo`. */
function window(text: string, start: number, width: number, hits: readonly Hit[], keepTo = 0): string {
  let end = Math.min(text.length, Math.max(start + width, keepTo));
  if (end < text.length) {
    const space = text.lastIndexOf(' ', end);
    if (space > start + width * 0.6 && space >= keepTo) end = space;
  }
  // Never cut a surrogate pair.
  if (start > 0 && isLowSurrogate(text.charCodeAt(start))) start--;
  if (end < text.length && isLowSurrogate(text.charCodeAt(end))) end++;
  let out = start > 0 ? '…' : '';
  let pos = start;
  for (const h of hits) {
    if (h.end <= start || h.start < pos) continue;
    if (h.start >= end) break;
    out += clean(text.slice(pos, h.start));
    const hitEnd = Math.min(h.end, end);
    out += `<mark>${clean(text.slice(h.start, hitEnd))}</mark>`;
    pos = hitEnd;
  }
  out += clean(text.slice(pos, end));
  if (end < text.length) out += '…';
  return out;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

function clean(s: string): string {
  return escapeHtml(s.replace(/\s+/g, ' '));
}
