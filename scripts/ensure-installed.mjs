// A fresh clone has no node_modules: install them once (`npm ci`, the Electron binary download
// blocked — it cannot run on offline machines and the web shell serves the same UI). Used by
// `npm start` and `npm test` so each works as the first command after cloning.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Runs `npm ci` when the dependencies are missing; returns false when that fails. */
export function ensureInstalled() {
  if (fs.existsSync(path.join(root, 'node_modules/.package-lock.json'))) return true;
  console.error('Installing dependencies (npm ci)…');
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const r = spawnSync(npm, ['ci', '--no-audit', '--no-fund'], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, ELECTRON_SKIP_BINARY_DOWNLOAD: '1' },
  });
  return r.status === 0;
}
