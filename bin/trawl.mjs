#!/usr/bin/env node
// The `trawl` CLI. Runs the compiled bundle in out/cli (built by `npm ci` via prepare, rebuilt here
// when src/ changed and the tree is writable); falls back to running the TypeScript through tsx.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bundle = path.join(root, 'out/cli/main.js');

/** True when out/cli is newer than src/ (rebuilding it first when stale and the tree is writable). */
async function bundleIsFresh() {
  try {
    const { newestMtime, buildCli } = await import('../scripts/build-cli.mjs');
    const built = fs.existsSync(bundle) ? fs.statSync(path.join(root, 'out/cli/.built')).mtimeMs : 0;
    if (built > newestMtime(path.join(root, 'src'))) return true;
    try {
      await buildCli();
      return true;
    } catch {
      return false; // read-only install or no esbuild: run the sources through tsx
    }
  } catch {
    return fs.existsSync(bundle);
  }
}

async function loadMain() {
  if (!process.env.TRAWL_USE_TSX && (await bundleIsFresh())) return import(pathToFileURL(bundle).href);
  const { register } = await import('tsx/esm/api');
  register();
  return import('../src/cli/main.ts');
}

const { main } = await loadMain();
process.exitCode = await main(process.argv.slice(2));
