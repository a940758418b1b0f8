/**
 * The search UI through the system-wide daemon, in Chromium: root crawls a tree of private, group
 * and ACL files and runs `trawl daemon`; `trawl serve --daemon` runs as alice (runuser). Alice
 * searches and sees exactly the files `test -r` as alice allows, the "Searching as alice" line and
 * where results come from — and no way to manage sources or crawls.
 * (Named *web-shell.spec.ts so the config's web-shell project runs it.)
 */
import { expect, test } from '@playwright/test';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { codeWord, writeAppTree } from '../test/security/daemon-app-tree.js';
import { ensureTestUsers, readableAs, repoReadableBy, sharedTempDir } from '../test/security/os-users.js';
import { ROOT, search } from './fixtures.js';

const setup = ensureTestUsers();
const TRAWL = path.join(ROOT, 'bin', 'trawl.mjs');

/** Starts a long-running trawl command; resolves when its output matches `ready`. */
function start(argv: string[], ready: RegExp): Promise<{ child: ChildProcess; match: RegExpExecArray }> {
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0], argv.slice(1), { cwd: '/', stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const timer = setTimeout(() => reject(new Error(`${argv.join(' ')}: not ready in time\n${out}`)), 90_000);
    const onData = (d: Buffer) => {
      out += d.toString();
      const match = ready.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve({ child, match });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${argv.join(' ')} exited with ${code}:\n${out}`));
    });
  });
}

async function stop(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const force = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(force);
}

test.describe('the web shell through trawl daemon', () => {
  test.skip(!setup.ok, setup.ok ? '' : `needs real OS users: ${setup.reason}`);

  let tmp: string;
  let files: string[];
  let daemon: ChildProcess | undefined;
  let shell: ChildProcess | undefined;
  let url: string;

  test.beforeAll(async () => {
    test.setTimeout(180_000);
    if (!repoReadableBy('alice', ROOT))
      throw new Error(`alice cannot read ${ROOT}: trawl serve runs from there`);
    tmp = sharedTempDir('trawl-e2e-daemon-');
    files = writeAppTree(path.join(tmp, 'tree'));
    const dataDir = path.join(tmp, 'data');
    const root = (...args: string[]) => {
      const r = spawnSync(process.execPath, [TRAWL, ...args, '--data-dir', dataDir], { encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`trawl ${args.join(' ')}: ${r.stderr}`);
    };
    root('source', 'add', path.join(tmp, 'tree'));
    root('crawl', '--full');
    const uid = (u: string) => Number(spawnSync('id', ['-u', u], { encoding: 'utf8' }).stdout.trim());
    const runtimeDir = path.join(tmp, 'run');
    ({ child: daemon } = await start(
      [
        process.execPath,
        TRAWL,
        'daemon',
        '--data-dir',
        dataDir,
        '--runtime-dir',
        runtimeDir,
        '--users',
        `${uid('alice')},${uid('bob')}`,
        '--no-crawl',
      ],
      /trawl daemon: data /,
    ));
    const served = await start(
      [
        'runuser',
        '-u',
        'alice',
        '--',
        'env',
        'TRAWL_USE_TSX=1',
        process.execPath,
        TRAWL,
        'serve',
        '--daemon',
        runtimeDir,
        '--port',
        '0',
        '--data-dir',
        path.join(tmp, 'alice-data'),
      ],
      /(http:\/\/127\.0\.0\.1:\d+\/#token=[A-Za-z0-9_-]+)/,
    );
    shell = served.child;
    url = served.match[1];
  });

  test.afterAll(async () => {
    await stop(shell);
    await stop(daemon);
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  test("alice searches and sees only alice's files, as alice", async ({ page }) => {
    const truth = [...readableAs('alice', files)].sort();
    expect(truth.map(codeWord).sort()).toEqual(['qxalicefolder', 'qxaliceonly', 'qxreadme', 'qxsalesplan']);

    await page.goto(url);
    await expect(page.getByTestId('whoami')).toHaveText(/^Searching as alice · groups: .*\bsales\b/);
    await expect(page.getByTestId('daemon')).toHaveText('Results from the trawl daemon');
    await expect(page.getByRole('button', { name: 'Crawls' })).toHaveCount(0);

    await search(page, 'harbour');
    await expect(page.getByTestId('result-count')).toContainText(`${truth.length} results`);
    const rows = page.getByTestId('result-row');
    await expect(rows).toHaveCount(truth.length);
    const shown = await rows
      .locator('.result-row__path')
      .evaluateAll((els) => els.map((e) => e.getAttribute('title')));
    expect(shown.sort()).toEqual(truth);
    await expect(page.getByTestId('preview').getByTestId('preview-text').locator('mark').first()).toHaveText(
      /harbour/i,
    );

    // Files alice may not read are not found by their own words either.
    for (const word of ['qxbobonly', 'qxgrantbob', 'qxdenyalice', 'qxengspec']) {
      await search(page, word);
      await expect(page.getByTestId('no-results')).toBeVisible();
    }

    await page.getByRole('button', { name: 'Sources' }).click();
    await expect(page.getByTestId('daemon-managed')).toContainText('administrator of the trawl daemon');
    await expect(page.getByRole('button', { name: 'Add source' })).toHaveCount(0);
  });
});
