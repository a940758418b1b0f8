/**
 * Chinese/Japanese/Korean text has no spaces between words, and FTS5's unicode61 tokenizer would
 * index a whole run as one token. We index every CJK run as overlapping bigrams (the approach of
 * Lucene's CJKAnalyzer): `企业级搜索` → `企业 业级 级搜 搜索`. A query for any substring of two or
 * more characters becomes a phrase of its bigrams, so it is found wherever it occurs; a one-character
 * query is a prefix query over the bigrams. Measured against word segmentation in docs/CJK.md.
 */

const CJK_RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u3005\u30fc]+/gu;
const HAS_CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

/** True when `s` contains any CJK character. */
export function hasCjk(s: string): boolean {
  return HAS_CJK.test(s);
}

/** The bigrams of one CJK run (a single character stays as itself). */
export function bigrams(run: string): string[] {
  const chars = Array.from(run);
  if (chars.length <= 1) return chars;
  const out: string[] = [];
  for (let i = 0; i + 1 < chars.length; i++) out.push(chars[i] + chars[i + 1]);
  return out;
}

/**
 * Text as it is fed to the FTS5 index: every CJK run replaced by its space-separated bigrams,
 * everything else unchanged. Pure and deterministic (the same text always yields the same tokens).
 */
export function toIndexText(text: string): string {
  if (!HAS_CJK.test(text)) return text;
  return text.replace(CJK_RUN, (run) => ` ${bigrams(run).join(' ')} `);
}

/** Split a query word into alternating non-CJK and CJK runs. */
export function splitRuns(word: string): { text: string; cjk: boolean }[] {
  const out: { text: string; cjk: boolean }[] = [];
  let last = 0;
  for (const m of word.matchAll(CJK_RUN)) {
    if (m.index! > last) out.push({ text: word.slice(last, m.index), cjk: false });
    out.push({ text: m[0], cjk: true });
    last = m.index! + m[0].length;
  }
  if (last < word.length) out.push({ text: word.slice(last), cjk: false });
  return out;
}
