import type { FieldWeights } from '../model.js';

/**
 * BM25 column weights used for sources that do not set their own: a hit in the title counts most,
 * then keywords, the URL/path words and the description, then the body. Chosen by measurement on
 * a judged collection (docs/RANKING.md, `bench/ranking-eval.ts`).
 */
export const DEFAULT_WEIGHTS: FieldWeights = Object.freeze({
  title: 20,
  keywords: 5,
  description: 3,
  url: 2,
  body: 1,
});
