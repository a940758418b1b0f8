#!/usr/bin/env node
// `npm test`: the whole suite — vitest (unit, component, contract, integration with real servers)
// then the Playwright e2e run — and one closing line `N passed, N failed[, N skipped]` that CI reads.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensureInstalled } from './ensure-installed.mjs';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');

if (!ensureInstalled()) {
  console.log('0 passed, 1 failed');
  process.exit(1);
}

const report = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-test-')), 'vitest.json');
const extra = process.argv.slice(2);

// Build the CLI bundle once, so the many CLI processes the tests start never rebuild it at once.
const b = spawnSync(process.execPath, [path.join(root, 'scripts/build-cli.mjs')], {
  cwd: root,
  stdio: 'inherit',
});
if (b.status !== 0) {
  console.log('0 passed, 1 failed');
  process.exit(1);
}

const v = spawnSync(
  process.execPath,
  [
    path.join(root, 'node_modules/vitest/vitest.mjs'),
    'run',
    '--reporter=default',
    '--reporter=json',
    `--outputFile.json=${report}`,
    ...extra,
  ],
  { cwd: root, stdio: 'inherit', env: process.env },
);
let passed = 0;
let failed = 0;
let skipped = 0;
try {
  const r = JSON.parse(fs.readFileSync(report, 'utf8'));
  passed += r.numPassedTests;
  failed += r.numFailedTests;
  skipped += r.numPendingTests + (r.numTodoTests ?? 0);
  // A suite that failed to load (syntax error, missing module) has no tests but must count.
  failed += r.testResults.filter((t) => t.status === 'failed' && t.assertionResults.length === 0).length;
} catch {
  console.error('vitest produced no report');
  failed += 1;
}
if (v.status !== 0 && failed === 0) failed += 1;

if (!extra.length && !process.env.TRAWL_SKIP_E2E) {
  const e = spawnSync(process.execPath, [path.join(root, 'scripts/e2e.mjs')], {
    cwd: root,
    encoding: 'utf8',
    env: process.env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  process.stdout.write(e.stdout ?? '');
  const m = /E2E: (\d+) passed, (\d+) failed(?:, (\d+) skipped)?/.exec(e.stdout ?? '');
  if (m) {
    passed += Number(m[1]);
    failed += Number(m[2]);
    skipped += Number(m[3] ?? 0);
  }
  if (!m || e.status !== 0) failed += m && Number(m[2]) > 0 ? 0 : 1;
}

console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(failed > 0 ? 1 : 0);
