/**
 * Security trimming cost: query latency with and without trimming on a 20,000-document index whose
 * documents carry 50 distinct POSIX descriptors (built by the real encoder, stored by the real
 * index writer). The trimmed path includes resolving the caller's visible ACL ids on every query.
 * `run()` returns the figures; run directly to print them: `node bin/run-ts.mjs bench/trimming.ts`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { rng, textOf, vocabulary, percentile, querySet } from './corpus.js';
import { openDatabase } from '../src/main/core/index/database.js';
import { IndexWriter } from '../src/main/core/index/index-writer.js';
import type { SecurityDescriptor } from '../src/main/core/model.js';
import { search, type SearchContext } from '../src/main/core/query/search.js';
import { refreshTermTops } from '../src/main/core/query/term-tops.js';
import { visibleAclIds } from '../src/main/core/security/acl-eval.js';
import { posixReadDescriptor, type PosixObject } from '../src/main/core/security/posix-permissions.js';

const DOCS = Number(process.env.BENCH_TRIM_DOCS ?? 20_000);
const ACLS = 50;

const round = (x: number): number => Number(x.toFixed(3));

/** 50 distinct descriptors as files in a department tree produce them: modes, owners, groups, folders. */
function descriptors(): SecurityDescriptor[] {
  const r = rng(7);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
  const seen = new Map<string, SecurityDescriptor>();
  while (seen.size < ACLS) {
    const owner = 1000 + Math.floor(r() * 20);
    const group = 2000 + Math.floor(r() * 10);
    const file: PosixObject = { mode: pick([0o640, 0o600, 0o604, 0o660, 0o644]), uid: owner, gid: group };
    const folders: PosixObject[] = [{ mode: 0o755, uid: 0, gid: 0 }];
    for (let i = Math.floor(r() * 3); i > 0; i--) {
      folders.push({
        mode: pick([0o750, 0o700, 0o711, 0o755]),
        uid: pick([owner, 0]),
        gid: group,
        acl:
          r() < 0.2 ? { users: [[1000 + Math.floor(r() * 20), 5]], groupObj: 5, groups: [], mask: 5 } : null,
      });
    }
    const d = posixReadDescriptor(file, folders);
    if (d) seen.set(JSON.stringify(d), d);
  }
  return [...seen.values()];
}

/** One query's latency, missing the result cache (a new generation each time). */
function timeOne(
  db: ReturnType<typeof openDatabase>,
  q: string,
  ctx: SearchContext,
  generation: number,
): number {
  const t = performance.now();
  search(db, { query: q, limit: 10 }, { ...ctx, generation });
  return performance.now() - t;
}

const median = (xs: number[]): number => percentile(xs, 50);

/**
 * Paired latencies: every query runs with and without trimming back to back, in alternating order,
 * `rounds` times; each query's figure is its median. Load from other processes on this shared
 * machine then falls on both sides alike instead of on whichever ran during a burst.
 */
function paired(
  db: ReturnType<typeof openDatabase>,
  queries: string[],
  a: () => SearchContext,
  b: () => SearchContext,
  rounds: number,
): { a: number[]; b: number[] } {
  const ta = queries.map(() => [] as number[]);
  const tb = queries.map(() => [] as number[]);
  let generation = 1_000_000 * Math.random();
  for (let r = 0; r < rounds; r++) {
    queries.forEach((q, i) => {
      if ((r + i) % 2 === 0) {
        ta[i].push(timeOne(db, q, a(), generation++));
        tb[i].push(timeOne(db, q, b(), generation++));
      } else {
        tb[i].push(timeOne(db, q, b(), generation++));
        ta[i].push(timeOne(db, q, a(), generation++));
      }
    });
  }
  return { a: ta.map(median), b: tb.map(median) };
}

export async function run(): Promise<Record<string, number | string>> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-trimbench-'));
  const db = openDatabase(dir);
  try {
    db.prepare(
      `INSERT INTO sources (id, name, kind, start_addresses, display_addresses, rules, settings, created_at) VALUES (1, 'bench', 'file', '[]', '[]', '[]', '{}', 0)`,
    ).run();
    const vocab = vocabulary(20_000);
    const r = rng(42);
    const descs = descriptors();
    const writer = new IndexWriter(db);
    const t0 = performance.now();
    for (let i = 0; i < DOCS; i++) {
      const title = textOf(r, vocab, 4)
        .replace(/\s*\.\n?/g, ' ')
        .trim();
      writer.upsert({
        sourceId: 1,
        url: `file:///corpus/dept-${i % 20}/note-${i}.txt`,
        path: `/corpus/dept-${i % 20}/note-${i}.txt`,
        name: `note-${i}.txt`,
        ext: 'txt',
        size: 1000,
        mtime: 1_700_000_000_000 + i * 60_000,
        ctime: 1_700_000_000_000 + i * 60_000,
        mime: 'text/plain',
        title,
        text: `${title}\n\n${textOf(r, vocab, 150 + Math.floor(r() * 900))}`,
        // A tenth of the documents are readable by everyone (no descriptor).
        security: r() < 0.1 ? null : descs[Math.floor(r() * descs.length)],
        status: 'ok',
      });
    }
    writer.flush();
    // As the service does after a crawl: the frequent words' stored tops (both sides use them).
    refreshTermTops(db);
    db.pragma('wal_checkpoint(TRUNCATE)');
    const buildMs = performance.now() - t0;
    const distinct = (db.prepare('SELECT count(*) AS n FROM acls').get() as { n: number }).n;

    // A user in three of the ten groups, owner of some files.
    const principals = ['everyone', 'uid:1003', 'user:bench', 'gid:2001', 'gid:2004', 'gid:2007'];
    const visible = visibleAclIds(db, principals);
    const visibleDocs = (
      db
        .prepare(
          'SELECT count(*) AS n FROM documents WHERE acl_id IS NULL OR acl_id IN (SELECT value FROM json_each(?))',
        )
        .get(JSON.stringify(visible)) as {
        n: number;
      }
    ).n;
    const evalTimes: number[] = [];
    for (let i = 0; i < 200; i++) {
      const t = performance.now();
      visibleAclIds(db, principals);
      evalTimes.push(performance.now() - t);
    }

    const queries = querySet(vocab);
    const all = (): SearchContext => ({ acl: { mode: 'all' } });
    // As the service does: visible ids resolved once per index change, then reused.
    const ids = visibleAclIds(db, principals);
    const trimmed = (): SearchContext => ({ acl: { mode: 'ids', aclIds: ids } });
    const resolving = (): SearchContext => ({ acl: { mode: 'ids', aclIds: visibleAclIds(db, principals) } });
    paired(db, queries, all, trimmed, 1); // warm-up
    const rounds = Number(process.env.BENCH_TRIM_ROUNDS ?? 7);
    const { a, b: t } = paired(db, queries, all, trimmed, rounds);
    const { b: tr } = paired(db, queries, all, resolving, 3);
    const p95a = percentile(a, 95);
    const p95t = percentile(t, 95);
    const ratios = a.map((x, i) => t[i] / x);
    return {
      documents: DOCS,
      'distinct ACLs': distinct,
      'ACLs visible to the user': visible.length,
      'documents visible to the user': visibleDocs,
      'index build s': Number((buildMs / 1000).toFixed(1)),
      'visible ACL ids p95 ms (50 descriptors)': round(percentile(evalTimes, 95)),
      'query p50 ms without trimming': round(percentile(a, 50)),
      'query p95 ms without trimming': round(p95a),
      'query p50 ms with trimming': round(percentile(t, 50)),
      'query p95 ms with trimming': round(p95t),
      'trimming overhead at p95': `${(((p95t - p95a) / p95a) * 100).toFixed(1)}%`,
      'per-query overhead, median': `${((median(ratios) - 1) * 100).toFixed(1)}%`,
      'per-query overhead, p95': `${((percentile(ratios, 95) - 1) * 100).toFixed(1)}%`,
      'rounds (paired, median per query)': rounds,
      'query p95 ms with trimming, ids resolved per query': round(percentile(tr, 95)),
      'target overhead at p95': '≤ 20%',
    };
  } finally {
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  console.log(JSON.stringify(await run(), null, 2));
}
