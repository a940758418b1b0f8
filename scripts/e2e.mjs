// Runs the Playwright e2e suite: builds the search UI when stale, runs every project (web shell in
// the system Chromium; Electron where its binary exists), and ends with one line CI can read:
// `E2E: N passed, N failed`. Exits non-zero when anything failed. Extra arguments go to Playwright.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildRenderer } from './build-renderer.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const report = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-e2e-report-')), 'results.json');

/** Title and reason of every skipped test in a Playwright JSON report. */
function skipped(suites, trail = []) {
  const out = [];
  for (const suite of suites ?? []) {
    const here = suite.title ? [...trail, suite.title] : trail;
    for (const spec of suite.specs ?? []) {
      for (const t of spec.tests ?? []) {
        if (t.status !== 'skipped') continue;
        const reason = (t.annotations ?? []).find((a) => a.type === 'skip')?.description ?? 'no reason given';
        out.push(`${[...here, spec.title].join(' › ')}: ${reason}`);
      }
    }
    out.push(...skipped(suite.suites, here));
  }
  return out;
}

function count(stats) {
  return {
    passed: (stats?.expected ?? 0) + (stats?.flaky ?? 0),
    failed: stats?.unexpected ?? 0,
    skipped: stats?.skipped ?? 0,
  };
}

let built = false;
try {
  built = await buildRenderer();
} catch (error) {
  console.error(`E2E: could not build the search UI: ${error.message}`);
  console.log('E2E: 0 passed, 1 failed');
  process.exit(1);
}
if (built) console.log('built the search UI (out/renderer)');

const cli = path.join(root, 'node_modules', '@playwright', 'test', 'cli.js');
const child = spawn(process.execPath, [cli, 'test', '--reporter=list,json', ...process.argv.slice(2)], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, PLAYWRIGHT_JSON_OUTPUT_NAME: report, FORCE_COLOR: process.env.FORCE_COLOR ?? '0' },
});
const code = await new Promise((resolve) => child.on('exit', (c, signal) => resolve(c ?? (signal ? 1 : 0))));

let result = { passed: 0, failed: code === 0 ? 0 : 1, skipped: 0 };
try {
  const json = JSON.parse(fs.readFileSync(report, 'utf8'));
  result = count(json.stats);
  for (const line of skipped(json.suites)) console.log(`E2E skipped: ${line}`);
  if (code !== 0 && result.failed === 0) result.failed = 1;
  for (const error of json.errors ?? [])
    console.error(`E2E error: ${error.message ?? JSON.stringify(error)}`);
} catch {
  console.error('E2E: Playwright wrote no report');
}
fs.rmSync(path.dirname(report), { recursive: true, force: true });
console.log(`E2E: ${result.passed} passed, ${result.failed} failed`);
process.exit(result.failed > 0 ? 1 : 0);
