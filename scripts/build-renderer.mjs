// Builds the renderer (src/renderer → out/renderer) with Vite when it is missing or older than its
// sources. The same output electron-vite produces, without needing Electron.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const rendererOut = path.join(root, 'out', 'renderer');
const inputs = [
  path.join(root, 'src', 'renderer'),
  path.join(root, 'src', 'shared'),
  path.join(root, 'package.json'),
];

function newestMtime(p) {
  let stat;
  try {
    stat = fs.statSync(p);
  } catch {
    return 0;
  }
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const name of fs.readdirSync(p)) {
    if (name.endsWith('.test.ts') || name.endsWith('.test.tsx')) continue;
    newest = Math.max(newest, newestMtime(path.join(p, name)));
  }
  return newest;
}

/** True when out/renderer/index.html is missing or older than any renderer/shared source. */
export function rendererStale() {
  const built = newestMtime(path.join(rendererOut, 'index.html'));
  return built === 0 || inputs.some((p) => newestMtime(p) > built);
}

/** Builds when stale (or always with `force`); resolves to true when a build ran. */
export async function buildRenderer({ force = false, quiet = true } = {}) {
  if (!force && !rendererStale()) return false;
  const { build } = await import('vite');
  const { default: react } = await import('@vitejs/plugin-react');
  await build({
    configFile: false,
    root: path.join(root, 'src', 'renderer'),
    base: './',
    logLevel: quiet ? 'warn' : 'info',
    plugins: [react()],
    build: {
      outDir: rendererOut,
      emptyOutDir: true,
      modulePreload: { polyfill: false },
      target: 'chrome120',
      sourcemap: false,
    },
  });
  return true;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const ran = await buildRenderer({ force: process.argv.includes('--force'), quiet: false });
  if (!ran) console.log('renderer is up to date');
}
