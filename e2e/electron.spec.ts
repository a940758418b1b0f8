/**
 * The same flow in the Electron app, where the Electron binary is installed. On an offline install
 * (the binary download blocked), the test reports itself skipped with that reason.
 */
import { _electron as electron, test, expect } from '@playwright/test';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeCorpus } from './fixtures.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The Electron binary path, or the reason it cannot be used. */
function electronBinary(): { path: string } | { reason: string } {
  try {
    const binary = createRequire(import.meta.url)('electron') as unknown;
    if (typeof binary === 'string' && fs.existsSync(binary)) return { path: binary };
    return { reason: `Electron binary not found at ${String(binary)}` };
  } catch (error) {
    return {
      reason: `Electron binary not installed (${(error as Error).message.split('\n')[0]}); install without ELECTRON_SKIP_BINARY_DOWNLOAD to run this spec`,
    };
  }
}

const found = electronBinary();
const built = fs.existsSync(path.join(ROOT, 'out', 'main', 'index.js'));

test('desktop app: add a folder, crawl, search, preview', async () => {
  test.skip('reason' in found, 'reason' in found ? found.reason : '');
  test.skip(!built, 'the Electron bundle is not built: run `npm run build` first');
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-electron-e2e-'));
  const corpus = path.join(tmp, 'corpus');
  writeCorpus(corpus);
  const app = await electron.launch({
    executablePath: (found as { path: string }).path,
    args: [ROOT, '--no-sandbox'],
    env: { ...process.env, TRAWL_DATA_DIR: path.join(tmp, 'data'), TRAWL_E2E: '1' },
  });
  try {
    const page = await app.firstWindow();
    expect(await page.evaluate(() => typeof (window as unknown as { trawl?: unknown }).trawl)).toBe('object');
    expect(await page.evaluate(() => typeof (window as unknown as { require?: unknown }).require)).toBe(
      'undefined',
    );
    await page.getByRole('button', { name: 'Add a source' }).click();
    const form = page.getByRole('form', { name: 'Add a source' });
    await form.getByLabel('Folder path').fill(corpus);
    await form.getByRole('button', { name: 'Add source' }).click();
    await page.getByRole('button', { name: 'Crawls' }).click();
    await expect(page.getByTestId('crawl-state').first()).toHaveText('Finished', { timeout: 60_000 });
    await page.getByRole('button', { name: 'Search' }).first().click();
    await page.getByLabel('Search query').fill('harbour');
    await expect(page.getByTestId('result-row')).toHaveCount(4);
    await expect(page.getByTestId('preview-text').locator('mark').first()).toBeVisible();
  } finally {
    await app.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});
