import { describe, expect, it } from 'vitest';
import { averagePrecision, mean, ndcgAt } from './ranking-metrics.js';

describe('ranking metrics', () => {
  it('nDCG@k with linear gains, as trec_eval ndcg_cut', () => {
    const rel = { a: 2, b: 1 };
    expect(ndcgAt(['a', 'b', 'c'], rel)).toBeCloseTo(1, 10);
    // DCG = 1/log2(2) + 2/log2(3); IDCG = 2/log2(2) + 1/log2(3)
    const dcg = 1 + 2 / Math.log2(3);
    const idcg = 2 + 1 / Math.log2(3);
    expect(ndcgAt(['b', 'a'], rel)).toBeCloseTo(dcg / idcg, 10);
    expect(ndcgAt(['x', 'y', 'a'], { a: 1 }, 2)).toBe(0);
    expect(ndcgAt(['a'], {})).toBe(0);
  });

  it('average precision over the retrieved list', () => {
    expect(averagePrecision(['a', 'x', 'b'], { a: 1, b: 3, c: 1 })).toBeCloseTo((1 + 2 / 3) / 3, 10);
    expect(averagePrecision(['x'], new Map([['a', 1]]))).toBe(0);
    expect(averagePrecision(['a'], { a: 0 })).toBe(0);
  });

  it('mean', () => {
    expect(mean([1, 2, 3])).toBe(2);
    expect(mean([])).toBe(0);
  });
});
