// `npm start`: the desktop app when the Electron binary is installed; otherwise (an offline install
// such as CI, where the binary download is blocked) one line saying so, then the web shell —
// `trawl serve` on 127.0.0.1 — whose URL (with its per-launch token) is printed.
// Arguments are passed on (`npm start -- --data-dir DIR`, `--port N` for the web shell).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildRenderer } from './build-renderer.mjs';
import { ensureInstalled } from './ensure-installed.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
if (!ensureInstalled()) process.exit(1);

/** The Electron binary, or null when the package is installed without it. */
function electronBinary() {
  try {
    const binary = createRequire(import.meta.url)('electron');
    return typeof binary === 'string' && fs.existsSync(binary) ? binary : null;
  } catch {
    return null;
  }
}

function newestMtime(p) {
  const stat = fs.statSync(p);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const name of fs.readdirSync(p)) newest = Math.max(newest, newestMtime(path.join(p, name)));
  return newest;
}

function mtimeOr0(p) {
  try {
    return fs.statSync(p).mtimeMs;
  } catch {
    return 0;
  }
}

/** Runs a command to completion with inherited stdio, forwarding Ctrl+C / SIGTERM; resolves to its exit code. */
function run(command, commandArgs) {
  const child = spawn(command, commandArgs, { cwd: root, stdio: 'inherit' });
  const forward = (signal) => child.kill(signal);
  process.on('SIGINT', forward);
  process.on('SIGTERM', forward);
  return new Promise((resolve) => {
    child.on('exit', (code, signal) => {
      process.off('SIGINT', forward);
      process.off('SIGTERM', forward);
      resolve(code ?? (signal ? 1 : 0));
    });
    child.on('error', (error) => {
      console.error(error.message);
      resolve(1);
    });
  });
}

const electron = process.env.TRAWL_WEB_SHELL === '1' ? null : electronBinary();
if (electron) {
  const built = Math.min(
    mtimeOr0(path.join(root, 'out/main/index.js')),
    mtimeOr0(path.join(root, 'out/engine/engine-process.js')),
  );
  if (built === 0 || newestMtime(path.join(root, 'src')) > built) {
    const code = await run(process.execPath, [
      path.join(root, 'node_modules/electron-vite/bin/electron-vite.js'),
      'build',
    ]);
    if (code !== 0) process.exit(code);
  }
  process.exit(await run(electron, [root, ...args]));
}

console.log(
  'Electron is not installed here (its binary download was skipped), so Trawl starts the web shell instead:',
);
try {
  await buildRenderer();
} catch (error) {
  console.error(`could not build the search UI: ${error.message}`);
  process.exit(1);
}
process.exit(
  await run(process.execPath, [path.join(root, 'bin/trawl.mjs'), 'serve', '--open-files', ...args]),
);
