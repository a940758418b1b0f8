import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { coalescePaths } from '../../src/main/core/live/path-coalescing.js';

const P = path.posix;
const under = (p: string, d: string) => p === d || p.startsWith(`${d}/`);

/** The simple model: drop paths below another changed path. */
function dropCovered(paths: string[]): string[] {
  const s = new Set(paths);
  return [...s].filter((p) => ![...s].some((q) => q !== p && under(p, q))).sort();
}

const segment = fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'g', 'h');
const relPath = fc.array(segment, { minLength: 1, maxLength: 4 }).map((parts) => parts.join('/'));

describe('coalescePaths', () => {
  it('keeps a few scattered changes as they are', () => {
    expect(
      coalescePaths(['/r/a/x.txt', '/r/b/y.txt', '/elsewhere/z.txt', '/r/a/x.txt'], ['/r'], { pathApi: P }),
    ).toEqual(['/r/a/x.txt', '/r/b/y.txt']);
  });

  it('drops paths below a changed folder (a renamed folder and its files = two scopes)', () => {
    const events = ['/r/old', '/r/old/1.txt', '/r/old/2.txt', '/r/new', '/r/new/1.txt', '/r/new/2.txt'];
    expect(coalescePaths(events, ['/r'], { pathApi: P })).toEqual(['/r/new', '/r/old']);
  });

  it('folds a folder with many changed files into the folder, and a checkout of 5,000 files into a handful', () => {
    const many = Array.from({ length: 40 }, (_, i) => `/r/docs/f${i}.txt`);
    expect(coalescePaths([...many, '/r/other.txt'], ['/r'], { foldAt: 32, pathApi: P })).toEqual([
      '/r/docs',
      '/r/other.txt',
    ]);
    const checkout = Array.from({ length: 5000 }, (_, i) => `/r/src/m${i % 50}/file${i}.ts`);
    expect(coalescePaths(checkout, ['/r'], { pathApi: P })).toEqual(['/r/src']);
  });

  it('never folds above the root, even for changes directly in it', () => {
    const inRoot = Array.from({ length: 100 }, (_, i) => `/r/f${i}`);
    expect(coalescePaths(inRoot, ['/r'], { pathApi: P })).toEqual(['/r']);
    expect(coalescePaths(['/r', '/r/a'], ['/r/'], { pathApi: P })).toEqual(['/r']);
  });

  it('satisfies its guarantees for any set of changes (property)', () => {
    fc.assert(
      fc.property(
        fc.array(relPath, { maxLength: 300 }),
        fc.integer({ min: 1, max: 10 }),
        fc.integer({ min: 1, max: 40 }),
        (rels, foldAt, maxPaths) => {
          const input = rels.map((r) => `/root/${r}`);
          const out = coalescePaths(input, ['/root'], { foldAt, maxPaths, pathApi: P });
          for (const p of input) expect(out.some((o) => under(p, o))).toBe(true);
          for (const o of out) {
            expect(under(o, '/root')).toBe(true);
            expect(out.some((q) => q !== o && under(o, q))).toBe(false);
            expect(input.some((p) => under(p, o))).toBe(true);
          }
          expect(out.length).toBeLessThanOrEqual(maxPaths);
          expect(out).toEqual([...out].sort());
        },
      ),
      { numRuns: 300 },
    );
  });

  it('equals the simple model when no folder has more than foldAt changes (property)', () => {
    fc.assert(
      fc.property(fc.array(relPath, { maxLength: 60 }), (rels) => {
        const input = rels.map((r) => `/root/${r}`);
        const model = dropCovered(input);
        const perParent = new Map<string, number>();
        for (const p of model) perParent.set(P.dirname(p), (perParent.get(P.dirname(p)) ?? 0) + 1);
        fc.pre([...perParent.values()].every((n) => n <= 8));
        expect(coalescePaths(input, ['/root'], { foldAt: 8, maxPaths: 1000, pathApi: P })).toEqual(model);
      }),
      { numRuns: 300 },
    );
  });

  it('handles Windows paths with the win32 path functions', () => {
    const W = path.win32;
    const many = Array.from({ length: 10 }, (_, i) => `C:\\Users\\me\\Docs\\f${i}.txt`);
    expect(coalescePaths(many, ['C:\\Users\\me\\Docs'], { foldAt: 5, pathApi: W })).toEqual([
      'C:\\Users\\me\\Docs',
    ]);
  });
});
