/**
 * `npm run bench [-- engine|web|smb|trimming|live|filters …]`: prints figures and ratios against
 * a peer measured in the same run. The engine bench crawls a generated mixed corpus with Trawl and
 * with Recoll (recollindex, python3-recoll) and compares crawl rate, no-change re-crawl time, query
 * latency, peak RSS and index size.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateCorpus, percentile, querySet } from './corpus.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const work = path.join(here, '.work');

function dirBytes(dir: string): number {
  let total = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    total += e.isDirectory() ? dirBytes(p) : fs.statSync(p).size;
  }
  return total;
}

function fmt(n: number, d = 1): string {
  return Number.isFinite(n) ? n.toFixed(d) : 'n/a';
}

/** The fixed query set: common, mid and rare words, AND pairs, phrases and prefixes. */

/** The crawl child runs as the shipped CLI does: compiled by esbuild, not through tsx. */
let crawlBundle: string | null = null;
async function bundleCrawlChild(): Promise<string> {
  if (crawlBundle) return crawlBundle;
  // @ts-expect-error plain ESM build script without type declarations
  const { buildCli } = (await import('../scripts/build-cli.mjs')) as {
    buildCli: (o: object) => Promise<string>;
  };
  const outdir = await buildCli({
    outdir: path.join(work, 'out'),
    extraEntries: [path.join(here, 'trawl-crawl.ts')],
  });
  crawlBundle = path.join(outdir, 'trawl-crawl.js');
  return crawlBundle;
}

function runChild(args: string[]): {
  ms: number;
  maxRssKb: number;
  counts: Record<string, number>;
  status: string;
  error?: string;
} {
  const r = spawnSync(process.execPath, [crawlBundle!, ...args], { encoding: 'utf8', maxBuffer: 1 << 24 });
  if (r.status !== 0) throw new Error(`crawl child failed: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop()!);
}

async function engineBench(): Promise<Record<string, string>> {
  const files = Number(process.env.BENCH_FILES ?? 20_000);
  const corpus = path.join(work, `corpus-${files}`);
  const t0 = Date.now();
  const gen = generateCorpus(corpus, { files, pdf: 0.05, docx: 0.05 });
  console.error(`corpus: ${gen.files} files, ${fmt(gen.bytes / 1e6)} MB (${Date.now() - t0} ms to prepare)`);
  const queries = querySet(gen.vocab);

  // --- Trawl ---
  await bundleCrawlChild();
  const dataDir = path.join(work, 'trawl-data');
  fs.rmSync(dataDir, { recursive: true, force: true });
  const full = runChild([dataDir, corpus, 'full']);
  if (full.status !== 'done') throw new Error(`trawl crawl ${full.status}: ${full.error}`);
  const inc = runChild([dataDir, corpus, 'incremental']);
  const { createEngine } = await import('../src/main/core/engine.js');
  const svc = await createEngine({ dataDir });
  // The stored top results of frequent words, as the app builds them in the background after a
  // crawl (and `trawl crawl` before it exits): timed apart from the crawl, counted in the index size.
  const tShortcuts = performance.now();
  const shortcuts = await svc.refreshSearchShortcuts();
  const shortcutMs = performance.now() - tShortcuts;
  svc.db.pragma('wal_checkpoint(TRUNCATE)');
  const trawlIndexBytes = dirBytes(dataDir);
  const bodyBytes = (svc.db.prepare('SELECT sum(length(body_z)) AS z FROM bodies').get() as { z: number }).z;
  // Warm the engine (statements, page cache) with other words, then time each query of the set
  // once: first runs, which the result cache cannot serve. Repeats are reported separately.
  for (const w of gen.vocab.slice(100, 130)) svc.search({ query: w, limit: 10 });
  const times: number[] = [];
  for (const q of queries) {
    const t = performance.now();
    svc.search({ query: q, limit: 10 });
    times.push(performance.now() - t);
  }
  const cached: number[] = [];
  for (const q of queries) {
    const t = performance.now();
    svc.search({ query: q, limit: 10 });
    cached.push(performance.now() - t);
  }
  await svc.close();

  // --- Recoll ---
  const conf = path.join(work, 'recoll-conf');
  fs.rmSync(conf, { recursive: true, force: true });
  fs.mkdirSync(conf, { recursive: true });
  fs.writeFileSync(
    path.join(conf, 'recoll.conf'),
    `topdirs = ${corpus}\nskippedNames = .*\nindexStemmingLanguages = english\nloglevel = 1\n`,
  );
  const recollIndex = () => {
    const r = spawnSync('/usr/bin/time', ['-f', 'TIME %e %M', 'recollindex', '-c', conf], {
      encoding: 'utf8',
      maxBuffer: 1 << 26,
    });
    const m = /TIME ([\d.]+) (\d+)/.exec(r.stderr);
    if (!m) throw new Error(`recollindex failed: ${r.stderr.slice(-500)}`);
    return { secs: Number(m[1]), rssKb: Number(m[2]) };
  };
  let recoll: {
    full: { secs: number; rssKb: number };
    inc: { secs: number; rssKb: number };
    bytes: number;
    q?: number[];
  } | null = null;
  if (spawnSync('which', ['recollindex']).status === 0) {
    const rf = recollIndex();
    const ri = recollIndex();
    const rq = spawnSync('/usr/bin/python3', [path.join(here, 'recoll_query.py'), conf], {
      // Same protocol as Trawl's: warm with other words, then each query once.
      input: [...gen.vocab.slice(100, 130), ...queries].join('\n'),
      encoding: 'utf8',
      maxBuffer: 1 << 24,
    });
    let q: number[] | undefined;
    try {
      q = (JSON.parse(rq.stdout).times_ms as number[]).slice(30);
    } catch {
      console.error(`recoll query timing unavailable: ${rq.stderr.slice(-300)}`);
    }
    recoll = { full: rf, inc: ri, bytes: dirBytes(path.join(conf, 'xapiandb')), q };
  }

  const trawlRate = files / (full.ms / 1000);
  const rows: [string, string, string, string][] = [
    [
      'full crawl files/s',
      fmt(trawlRate),
      recoll ? fmt(files / recoll.full.secs) : 'n/a',
      recoll ? `${fmt(trawlRate / (files / recoll.full.secs), 2)}x` : '',
    ],
    [
      'full crawl MB/s',
      fmt(gen.bytes / 1e6 / (full.ms / 1000), 2),
      recoll ? fmt(gen.bytes / 1e6 / recoll.full.secs, 2) : 'n/a',
      '',
    ],
    [
      'no-change incremental s',
      fmt(inc.ms / 1000, 3),
      recoll ? fmt(recoll.inc.secs, 3) : 'n/a',
      recoll ? `${fmt(recoll.inc.secs / (inc.ms / 1000), 1)}x faster` : '',
    ],
    [
      'query p50 ms (10 hits + snippets)',
      fmt(percentile(times, 50), 3),
      recoll?.q ? fmt(percentile(recoll.q, 50), 3) : 'n/a',
      '',
    ],
    [
      'query p95 ms (10 hits + snippets)',
      fmt(percentile(times, 95), 3),
      recoll?.q ? fmt(percentile(recoll.q, 95), 3) : 'n/a',
      recoll?.q ? `${fmt(percentile(recoll.q, 95) / percentile(times, 95), 2)}x` : '',
    ],
    ['query p95 ms, repeated (result cache)', fmt(percentile(cached, 95), 3), '', ''],
    [`frequent-word tops refresh s (${shortcuts.built} words)`, fmt(shortcutMs / 1000, 2), '', ''],
    [
      'peak RSS MB (full crawl)',
      fmt(full.maxRssKb / 1024),
      recoll ? fmt(recoll.full.rssKb / 1024) : 'n/a',
      '',
    ],
    ['index MB', fmt(trawlIndexBytes / 1e6), recoll ? fmt(recoll.bytes / 1e6) : 'n/a', ''],
    [
      'index / corpus bytes',
      fmt(trawlIndexBytes / gen.bytes, 2),
      recoll ? fmt(recoll.bytes / gen.bytes, 2) : 'n/a',
      '',
    ],
    ['stored text (compressed) MB', fmt(bodyBytes / 1e6), '', ''],
  ];
  console.log(
    `\nEngine benchmark: ${files} files (${fmt(gen.bytes / 1e6)} MB; 5% PDF, 5% DOCX, rest text/HTML), ${queries.length} queries (first runs)`,
  );
  console.log(`${'figure'.padEnd(36)} ${'Trawl'.padStart(10)} ${'Recoll'.padStart(10)}  ratio`);
  for (const [k, a, b, c] of rows) console.log(`${k.padEnd(36)} ${a.padStart(10)} ${b.padStart(10)}  ${c}`);
  console.log(`trawl counts: full ${JSON.stringify(full.counts)}; incremental ${JSON.stringify(inc.counts)}`);
  return Object.fromEntries(rows.map(([k, a]) => [k, a]));
}

const OTHER = [
  'query-latency',
  'trimming',
  'web',
  'smb',
  'smb-mount',
  'live',
  'filters',
  'ranking-eval',
  'cjk-eval',
] as const;

const wanted = process.argv.slice(2);
const all = wanted.length === 0;
fs.mkdirSync(work, { recursive: true });
if (all || wanted.includes('engine')) await engineBench();
for (const name of OTHER) {
  if (!all && !wanted.includes(name)) continue;
  const file = path.join(here, `${name}.ts`);
  if (!fs.existsSync(file)) continue;
  const mod = (await import(file)) as { run?: () => Promise<Record<string, number | string>> };
  if (!mod.run) continue;
  try {
    const figures = await mod.run();
    console.log(`\n${name} benchmark`);
    for (const [k, v] of Object.entries(figures))
      console.log(`  ${k.padEnd(40)} ${typeof v === 'number' ? fmt(v, 2) : v}`);
  } catch (e) {
    console.log(`\n${name} benchmark: skipped — ${(e as Error).message}`);
  }
}
