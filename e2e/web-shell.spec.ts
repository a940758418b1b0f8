/**
 * The search UI served by `trawl serve`, driven in Chromium as a person would use it: add a folder,
 * crawl it, search, preview, keyboard, crawl rules, Chinese, and hostile content.
 */
import path from 'node:path';
import { addFolderAndCrawl, expect, hasCjkFont, screenshot, search, test } from './fixtures.js';

test('add a folder, crawl it, search with highlights, preview and keyboard', async ({
  page,
  context,
  served,
}) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await page.goto(served.url);
  await expect(page.getByText('No sources yet')).toBeVisible();
  expect(new URL(page.url()).hash).toBe('');
  await screenshot(page, 'empty-light');

  await page.getByRole('button', { name: 'Add a source' }).click();
  const form = page.getByRole('form', { name: 'Add a source' });
  await form.getByLabel('Folder path').fill(served.corpus);
  await screenshot(page, 'add-source-light');
  await form.getByRole('button', { name: 'Add source' }).click();
  // `trawl serve` runs the background runner: the new folder's row says it is watched
  await expect(page.getByRole('list', { name: 'Sources' }).getByText('Watching')).toBeVisible({
    timeout: 15_000,
  });

  await page.getByRole('button', { name: 'Crawls' }).click();
  const card = page.getByTestId('crawl-card').first();
  const bar = card.getByRole('progressbar');
  await expect(bar).toBeVisible();
  await expect(card.getByTestId('crawl-state')).toHaveText('Finished', { timeout: 60_000 });
  await expect(bar).toHaveAttribute('aria-valuenow', '100');
  await expect(bar).toHaveAttribute('data-state', 'done');
  await expect(page.getByText(/^[1-9][\d,]* documents$/)).toBeVisible();
  await screenshot(page, 'crawls-light');

  await search(page, 'harbour');
  await expect(page.getByTestId('result-count')).toContainText('4 results');
  const rows = page.getByTestId('result-row');
  await expect(rows).toHaveCount(4);
  await expect(rows.first().locator('.result-row__snippet mark').first()).toHaveText(/harbour/i);
  const preview = page.getByTestId('preview');
  await expect(preview.getByTestId('preview-text').locator('mark').first()).toHaveText(/harbour/i);
  await screenshot(page, 'search-light');

  const box = page.getByLabel('Search query');
  await expect(rows.nth(0)).toHaveAttribute('aria-selected', 'true');
  await box.press('ArrowDown');
  await expect(rows.nth(1)).toHaveAttribute('aria-selected', 'true');
  const secondTitle = (await rows.nth(1).locator('.result-row__title').textContent()) ?? '';
  await expect(preview.locator('.preview__title')).toHaveText(secondTitle);
  await box.press('ArrowUp');
  await expect(rows.nth(0)).toHaveAttribute('aria-selected', 'true');
  await expect(preview.locator('.preview__hitcount')).toContainText(/Hit 1 of \d+/);
  const hits = Number((await preview.locator('.preview__hitcount').textContent())?.match(/of (\d+)/)?.[1]);
  if (hits > 1) {
    await box.press('F3');
    await expect(preview.locator('.preview__hitcount')).toContainText(`Hit 2 of ${hits}`);
    await expect(preview.locator('mark.is-current')).toHaveCount(1);
  }

  await box.press('Control+c');
  await expect(page.getByText('Path copied')).toBeVisible();
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  expect(copied.startsWith(served.corpus)).toBe(true);

  await box.press('Enter');
  await expect(page.getByText(/Opening files needs the desktop app/)).toBeVisible();

  await page.getByRole('button', { name: 'Query syntax' }).click();
  await expect(page.getByRole('dialog', { name: 'Query syntax' })).toBeVisible();
  await screenshot(page, 'syntax-help-light');
  await page.getByRole('button', { name: 'ext:pdf' }).click();
  await expect(box).toHaveValue('ext:pdf');

  await box.fill('harbour )');
  await expect(page.getByRole('alert')).toContainText("Unmatched ')'");

  await box.fill('harbour');
  await expect(rows).toHaveCount(4);
  await box.press('Escape');
  await expect(box).toHaveValue('');

  await page.getByRole('button', { name: 'Index' }).click();
  await expect(page.getByTestId('stat-documents')).not.toHaveText('0');
  await screenshot(page, 'index-light');
  await expect(page.getByTestId('whoami')).toContainText('Searching as');
});

test('an exclude rule removes the file after the next crawl', async ({ page, served }) => {
  await page.goto(served.url);
  await addFolderAndCrawl(page, served.corpus);

  await search(page, 'confidential');
  await expect(page.getByTestId('result-row')).toHaveCount(1);
  await expect(page.getByTestId('result-row').first()).toContainText('secret-notes.txt');

  await page.getByRole('button', { name: 'Sources' }).click();
  const editor = page.getByRole('form', { name: 'corpus' });
  await editor.getByRole('tab', { name: 'Crawl rules' }).click();
  await editor.getByRole('button', { name: 'Add rule' }).click();
  const rule = editor.getByTestId('rule').last();
  await expect(rule.getByRole('combobox').first()).toHaveValue('exclude');
  await rule.getByLabel('Pattern').fill('**/private/**');
  await editor.getByRole('button', { name: 'Save changes' }).click();
  await expect(page.getByText('Saved', { exact: true })).toBeVisible();

  await editor.getByLabel('Test a path or URL').fill(path.join(served.corpus, 'private', 'secret-notes.txt'));
  await editor.getByRole('button', { name: 'Test', exact: true }).click();
  await expect(editor.getByTestId('rule-test-result')).toContainText('Excluded');
  await editor.getByLabel('Test a path or URL').fill(path.join(served.corpus, 'notes', 'release-plan.md'));
  await editor.getByRole('button', { name: 'Test', exact: true }).click();
  await expect(editor.getByTestId('rule-test-result')).toContainText('Included');
  await screenshot(page, 'sources-rules-light');

  await page.getByRole('button', { name: 'Crawls' }).click();
  const card = page.getByTestId('crawl-card').first();
  await card.getByRole('button', { name: 'Incremental' }).click();
  await expect(card.getByTestId('crawl-state')).toHaveText('Finished', { timeout: 60_000 });
  await expect(card.getByTestId('crawl-state')).toHaveText('Finished');
  const log = page.getByRole('region', { name: 'Crawl log' });
  await log.getByRole('tab', { name: 'Excluded' }).click();
  await expect(log.getByTestId('log-row').filter({ hasText: 'private' }).first()).toBeVisible();
  await screenshot(page, 'crawl-log-light');

  await search(page, 'confidential');
  await expect(page.getByTestId('no-results')).toBeVisible();
  await search(page, 'harbour');
  await expect(page.getByTestId('result-count')).toContainText('3 results');
});

test('search in Chinese, and the UI in Simplified Chinese', async ({ page, served }) => {
  await page.goto(served.url);
  await addFolderAndCrawl(page, served.corpus);

  await search(page, '协议处理程序');
  const rows = page.getByTestId('result-row');
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toContainText('设计说明.txt');
  await expect(rows.first().locator('mark').first()).toBeVisible();

  await page.getByLabel('Search query').fill('搜索');
  await expect(rows).toHaveCount(1);

  await page.getByLabel('Language').selectOption('zh-CN');
  await expect(page.getByLabel('搜索查询')).toBeVisible();
  await expect(page.getByRole('button', { name: '内容源' })).toBeVisible();
  await expect(page.getByTestId('result-count')).toContainText('1 条结果');
  if (hasCjkFont()) await screenshot(page, 'search-zh-CN-light');
});

test('indexed markup is shown as inert text', async ({ page, served }) => {
  const dialogs: string[] = [];
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  const requests: string[] = [];
  page.on('request', (r) => requests.push(r.url()));
  await page.goto(served.url);
  await addFolderAndCrawl(page, served.corpus);

  await search(page, 'pwnbait');
  const rows = page.getByTestId('result-row');
  await expect(rows).toHaveCount(2);
  await expect(page.getByTestId('result-count')).toContainText('2 results');
  for (let i = 0; i < 2; i++) {
    await rows.nth(i).click();
    await expect(page.getByTestId('preview-text')).toContainText('pwnbait');
  }
  const txt = rows.filter({ hasText: 'hostile.txt' });
  await txt.click();
  const text = page.getByTestId('preview-text');
  await expect(text).toContainText('<script>window.__pwned = 1; alert("xss")</script>');
  await expect(text).toContainText('<img src=x onerror="window.__pwned = 2; alert(2)">');
  await expect(txt.locator('.result-row__snippet')).toContainText('<script>');

  expect(await page.locator('main script, main img, main a[href^="javascript:"]').count()).toBe(0);
  expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
  expect(dialogs).toEqual([]);
  expect(requests.filter((u) => /\/x$/.test(u))).toEqual([]);
  await screenshot(page, 'hostile-content-light');
});

test('dark theme screens', async ({ page, served }) => {
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.goto(served.url);
  await addFolderAndCrawl(page, served.corpus);
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  await screenshot(page, 'crawls-dark');
  await search(page, 'harbour');
  await expect(page.getByTestId('result-row')).toHaveCount(4);
  await expect(page.getByTestId('preview-text').locator('mark').first()).toBeVisible();
  await screenshot(page, 'search-dark');
  await page.getByRole('button', { name: 'Sources' }).click();
  await page.getByRole('form', { name: 'corpus' }).getByRole('tab', { name: 'Crawl rules' }).click();
  await screenshot(page, 'sources-dark');
  await page.getByRole('button', { name: 'Index' }).click();
  await expect(page.getByTestId('stat-documents')).not.toHaveText('0');
  await screenshot(page, 'index-dark');
});

test('the page refuses to work without the launch token', async ({ page, served }) => {
  const base = served.url.replace(/#.*$/, '');
  await page.goto(base);
  await expect(page.getByText('Open Trawl from its link')).toBeVisible();
  const status = await page.evaluate(
    async () =>
      (
        await fetch('/api/listSources', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{}',
        })
      ).status,
  );
  expect(status).toBe(401);
});
