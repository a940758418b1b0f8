#!/usr/bin/env node
// Bundles the `trawl` CLI (and everything that runs in plain Node: engine, filter workers) into
// out/cli/ with esbuild. Dependencies stay external (node_modules). Running compiled JavaScript
// instead of TypeScript through tsx halves start-up time and memory (pdf.js under tsx alone costs
// ~400 MB). `npm ci` builds it (prepare); bin/trawl.mjs rebuilds it when src/ is newer.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Build into `outdir` the given entry points (plus the filter worker); returns the output dir. */
export async function buildCli({ outdir = path.join(root, 'out/cli'), extraEntries = [] } = {}) {
  const esbuild = await import('esbuild');
  const entryPoints = [
    path.join(root, 'src/cli/main.ts'),
    path.join(root, 'src/main/core/filters/filter-worker.ts'),
    ...extraEntries,
  ];
  await esbuild.build({
    entryPoints,
    outdir,
    entryNames: '[name]',
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    sourcemap: 'linked',
    logLevel: 'warning',
    banner: {
      js: "import { createRequire as __trawlCreateRequire } from 'node:module'; const require = __trawlCreateRequire(import.meta.url);",
    },
  });
  for (const f of fs.readdirSync(path.join(root, 'src/main/core/filters'))) {
    if (f.endsWith('.mjs'))
      fs.copyFileSync(path.join(root, 'src/main/core/filters', f), path.join(outdir, f));
  }
  const staticDirs = [['src/web-shell/static', 'static']];
  for (const [from, to] of staticDirs) {
    const src = path.join(root, from);
    if (fs.existsSync(src)) fs.cpSync(src, path.join(outdir, to), { recursive: true });
  }
  fs.writeFileSync(path.join(outdir, '.built'), new Date().toISOString());
  return outdir;
}

/** Newest modification time of any file below `dir`. */
export function newestMtime(dir) {
  let newest = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    newest = Math.max(newest, e.isDirectory() ? newestMtime(p) : fs.statSync(p).mtimeMs);
  }
  return newest;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  await buildCli();
}
