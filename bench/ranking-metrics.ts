/**
 * Ranking metrics as trec_eval computes them: nDCG@k with linear gains (`ndcg_cut`) and average
 * precision over the retrieved list (`map`), relevance > 0 counting as relevant.
 */

/** Graded judgements of one query: document id → grade (0 or absent = not relevant). */
export type Judgements = ReadonlyMap<string, number> | Readonly<Record<string, number>>;

function grades(rel: Judgements): Map<string, number> {
  return rel instanceof Map ? (rel as Map<string, number>) : new Map(Object.entries(rel));
}

/** nDCG@k of a ranked list of document ids; 0 when the query has no relevant document. */
export function ndcgAt(ranked: readonly string[], rel: Judgements, k = 10): number {
  const g = grades(rel);
  let dcg = 0;
  ranked.slice(0, k).forEach((id, i) => {
    const gain = Math.max(0, g.get(id) ?? 0);
    if (gain > 0) dcg += gain / Math.log2(i + 2);
  });
  const ideal = [...g.values()]
    .filter((x) => x > 0)
    .sort((a, b) => b - a)
    .slice(0, k);
  const idcg = ideal.reduce((sum, gain, i) => sum + gain / Math.log2(i + 2), 0);
  return idcg === 0 ? 0 : dcg / idcg;
}

/** Average precision of a ranked list (relevant = grade > 0); 0 when nothing is relevant. */
export function averagePrecision(ranked: readonly string[], rel: Judgements): number {
  const g = grades(rel);
  const relevant = [...g.values()].filter((x) => x > 0).length;
  if (relevant === 0) return 0;
  let found = 0;
  let sum = 0;
  ranked.forEach((id, i) => {
    if ((g.get(id) ?? 0) > 0) {
      found++;
      sum += found / (i + 1);
    }
  });
  return sum / relevant;
}

/** Arithmetic mean (0 for an empty list). */
export function mean(xs: readonly number[]): number {
  return xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length;
}
