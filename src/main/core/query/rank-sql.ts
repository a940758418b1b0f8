import type { FieldWeights } from '../model.js';

/**
 * The FTS5 `bm25()` call for per-column weights (title, keywords, description, url, body).
 * Throws RangeError for a negative or non-finite weight. Equal weights always give the same text,
 * so the text identifies a ranking.
 */
export function weightsSql(w: FieldWeights): string {
  const nums = [w.title, w.keywords, w.description, w.url, w.body].map((x) => {
    const n = Number(x);
    if (!Number.isFinite(n) || n < 0) throw new RangeError(`invalid field weight ${String(x)}`);
    return String(n);
  });
  return `bm25(fts, ${nums.join(', ')})`;
}
