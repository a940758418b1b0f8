import path from 'node:path';

/** Options for {@link coalescePaths}. */
export interface CoalesceOptions {
  /** A folder with more changed entries than this is re-examined as a whole (default 32). */
  foldAt?: number;
  /** Fold further up until at most this many scopes remain (default 256). */
  maxPaths?: number;
  /** Path functions (default: the platform's). */
  pathApi?: Pick<typeof path, 'dirname' | 'sep'>;
}

function isUnder(p: string, dir: string, sep: string): boolean {
  return p === dir || p.startsWith(dir.endsWith(sep) ? dir : dir + sep);
}

/**
 * Turn the paths a burst of file-system events touched into few scopes for one partial crawl.
 *
 * Guarantees: every input path under one of `roots` is at or below some output path; no output
 * path is below another; nothing is folded above its root; paths outside every root are dropped.
 * A folder with more than `foldAt` changed entries becomes one scope, and folding continues
 * upward (largest groups first) until at most `maxPaths` scopes remain. Output is sorted.
 */
export function coalescePaths(
  input: Iterable<string>,
  roots: readonly string[],
  opts: CoalesceOptions = {},
): string[] {
  const foldAt = opts.foldAt ?? 32;
  const maxPaths = opts.maxPaths ?? 256;
  const api = opts.pathApi ?? path;
  const sep = api.sep;
  const trim = (p: string) =>
    p.length > 1 && p.endsWith(sep) && !/^[a-z]:\\$/i.test(p) ? p.slice(0, -1) : p;
  const rootList = roots.map(trim);
  const rootOf = (p: string) => {
    let best: string | null = null;
    for (const r of rootList) if (isUnder(p, r, sep) && (best == null || r.length > best.length)) best = r;
    return best;
  };

  let set = new Set<string>();
  for (const raw of input) {
    const p = trim(raw);
    if (rootOf(p) != null) set.add(p);
  }

  const dropCovered = (s: Set<string>): Set<string> => {
    const out = new Set<string>();
    for (const p of s) {
      const root = rootOf(p)!;
      let cur = p;
      let covered = false;
      while (cur !== root) {
        const up = api.dirname(cur);
        if (up === cur) break;
        cur = up;
        if (s.has(cur)) {
          covered = true;
          break;
        }
      }
      if (!covered) out.add(p);
    }
    return out;
  };

  const groups = (s: Set<string>): Map<string, number> => {
    const g = new Map<string, number>();
    for (const p of s) {
      if (rootList.includes(p)) continue;
      const parent = api.dirname(p);
      g.set(parent, (g.get(parent) ?? 0) + 1);
    }
    return g;
  };

  const fold = (s: Set<string>, parents: Set<string>): Set<string> => {
    const out = new Set<string>();
    for (const p of s) out.add(!rootList.includes(p) && parents.has(api.dirname(p)) ? api.dirname(p) : p);
    return dropCovered(out);
  };

  set = dropCovered(set);
  for (;;) {
    const big = new Set([...groups(set)].filter(([, n]) => n > foldAt).map(([dir]) => dir));
    if (big.size === 0) break;
    set = fold(set, big);
  }
  while (set.size > maxPaths) {
    const g = [...groups(set)];
    if (g.length === 0) break;
    // Fold the folder holding the most scopes; ties: the deepest (cheapest to re-examine).
    g.sort((a, b) => b[1] - a[1] || b[0].length - a[0].length);
    set = fold(set, new Set([g[0][0]]));
  }
  return [...set].sort();
}
