/**
 * E2E fixtures: a corpus of real files in a temp folder and a real `trawl serve` process on its own
 * data directory, started per test and stopped (by pid) afterwards.
 */
import { test as base, expect, type Page } from '@playwright/test';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const SCREENSHOTS = path.join(ROOT, 'e2e', 'screenshots');

export interface Served {
  url: string;
  corpus: string;
  dataDir: string;
}

/** Files every test crawls: prose, a Chinese document, hostile markup, a folder to exclude. */
export function writeCorpus(dir: string): void {
  const files: Record<string, string> = {
    'notes/release-plan.md':
      '# Release plan\n\nThe harbour crawler ships in spring. The harbour index stays small.\nAction items: preview pane, keyboard navigation, and harbour maps.\n',
    'notes/meeting-minutes.txt':
      'Weekly meeting minutes.\nWe reviewed the harbour budget and the lighthouse schedule.\n',
    'reports/annual-report.txt':
      'Annual report 2024. Revenue grew in every region; the harbour product launched.\n',
    'reports/设计说明.txt': '企业级搜索协议处理程序的设计说明。本文介绍爬网引擎、索引和查询语言。\n',
    'web/hostile.txt':
      'pwnbait <script>window.__pwned = 1; alert("xss")</script> and <img src=x onerror="window.__pwned = 2; alert(2)"> and <a href="javascript:alert(3)">link</a>\n',
    'web/hostile.html':
      '<html><head><title>Hostile page</title></head><body><p>pwnbait &lt;script&gt;window.__pwned=3&lt;/script&gt; &lt;img src=x onerror=alert(4)&gt;</p><script>window.__pwned = 4</script></body></html>\n',
    'private/secret-notes.txt': 'Confidential harbour negotiations. Do not index me once excluded.\n',
  };
  for (const [rel, text] of Object.entries(files)) {
    const file = path.join(dir, rel);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text);
  }
}

function startServe(dataDir: string): Promise<{ child: ChildProcess; url: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [path.join(ROOT, 'bin', 'trawl.mjs'), 'serve', '--data-dir', dataDir, '--port', '0'],
      {
        cwd: ROOT,
        env: { ...process.env, TRAWL_DATA_DIR: dataDir },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    let err = '';
    const timer = setTimeout(
      () => reject(new Error(`trawl serve did not print its URL in time:\n${out}\n${err}`)),
      60_000,
    );
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /(http:\/\/127\.0\.0\.1:\d+\/#token=[A-Za-z0-9_-]+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ child, url: m[1] });
      }
    });
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`trawl serve exited with ${code}:\n${out}\n${err}`));
    });
  });
}

export const test = base.extend<{ served: Served }>({
  // Playwright reads fixture dependencies from the destructuring pattern; this one has none.
  // eslint-disable-next-line no-empty-pattern
  served: async ({}, use) => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-e2e-'));
    const corpus = path.join(tmp, 'corpus');
    const dataDir = path.join(tmp, 'data');
    writeCorpus(corpus);
    const { child, url } = await startServe(dataDir);
    await use({ url, corpus, dataDir });
    child.kill('SIGTERM');
    await new Promise<void>((resolve) => {
      const force = setTimeout(() => {
        child.kill('SIGKILL');
        resolve();
      }, 10_000);
      child.once('exit', () => {
        clearTimeout(force);
        resolve();
      });
    });
    fs.rmSync(tmp, { recursive: true, force: true });
  },
});

export { expect };

/** Adds the corpus as a folder source through the UI and waits for its first crawl to finish. */
export async function addFolderAndCrawl(page: Page, folder: string): Promise<void> {
  await page.getByRole('button', { name: 'Sources' }).click();
  await page.getByRole('button', { name: 'Add source' }).first().click();
  const form = page.getByRole('form', { name: 'Add a source' });
  await form.getByLabel('Folder path').fill(folder);
  await form.getByRole('button', { name: 'Add source' }).click();
  await page.getByRole('button', { name: 'Crawls' }).click();
  const card = page.getByTestId('crawl-card').first();
  await expect(card.getByTestId('crawl-state')).toHaveText('Finished', { timeout: 60_000 });
  await expect(card.getByRole('progressbar')).toHaveAttribute('aria-valuenow', '100');
  await expect(page.getByText(/^[1-9][\d,]* documents$/)).toBeVisible();
}

export async function search(page: Page, query: string): Promise<void> {
  await page.getByRole('button', { name: 'Search' }).first().click();
  const box = page.getByLabel('Search query');
  await box.fill(query);
}

/** Saves a screenshot of the settled UI (no running animations, no toasts) under e2e/screenshots. */
export async function screenshot(page: Page, name: string): Promise<void> {
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  await expect(page.locator('.toast')).toHaveCount(0, { timeout: 10_000 });
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), animations: 'disabled' });
}

/** True when the system has a font with Chinese glyphs (otherwise a zh-CN screenshot shows boxes). */
export function hasCjkFont(): boolean {
  try {
    return execFileSync('fc-list', [':lang=zh', 'family'], { encoding: 'utf8' }).trim() !== '';
  } catch {
    return false;
  }
}
