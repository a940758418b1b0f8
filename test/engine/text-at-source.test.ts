import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import iconv from 'iconv-lite';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  TEXT_AT_SOURCE_LIMITS,
  TEXT_AT_SOURCE_MAX_BYTES,
} from '../../src/main/core/filters/text-at-source.js';
import { makeService, tempDir, writeTree } from '../helpers/engine.js';

// Small local text and HTML files keep no copy of their text in the index: snippets and the preview
// extract it again from the file, and only while the file still holds the indexed bytes.

type Env = ReturnType<typeof makeService> & { root: string; dataDir: string };
let env: Env;

const BIG = `${'filler words for a large plain text file '.repeat(Math.ceil(TEXT_AT_SOURCE_MAX_BYTES / 40))} bigfileword closing`;
/** Over the HTML filter's limit, under the text filter's: HTML costs more to filter again. */
const MEDIUM = 'medium sized words repeated for a while '.repeat(
  Math.ceil((TEXT_AT_SOURCE_LIMITS.html + 2048) / 40),
);

beforeEach(() => {
  const root = tempDir('trawl-src-');
  const dataDir = tempDir('trawl-data-');
  writeTree(root, {
    'notes/alpha.txt':
      'The quarterly budget review is encouraging.\n\nSecond   paragraph mentions zebrafish.',
    'web/page.html':
      '<html><head><title>Handbook</title></head><body><p>Vacation policy &amp; travel expenses.</p><script>var hidden = "scriptword";</script></body></html>',
    'cn/gbk.txt': iconv.encode('这是一个简体中文文件，内容关于索引器和爬虫。', 'gbk'),
    'big/large.txt': BIG,
    'media/clip.mp4': Buffer.alloc(1024, 7),
  });
  env = { ...makeService(dataDir), root, dataDir };
  expect(MEDIUM.length).toBeLessThan(TEXT_AT_SOURCE_LIMITS.text);
});

afterEach(async () => {
  await env.service.close();
  fs.rmSync(env.root, { recursive: true, force: true });
  fs.rmSync(env.dataDir, { recursive: true, force: true });
});

function stored(): Map<string, { atSource: number; body: number }> {
  const rows = env.service.db
    .prepare(
      'SELECT d.path, d.text_at_source AS atSource, (SELECT count(*) FROM bodies b WHERE b.id = d.id) AS body FROM documents d',
    )
    .all() as { path: string; atSource: number; body: number }[];
  return new Map(rows.map((r) => [path.relative(env.root, r.path), { atSource: r.atSource, body: r.body }]));
}

function hit(query: string) {
  const res = env.service.search({ query, limit: 10 });
  expect(res.hits).toHaveLength(1);
  return res.hits[0];
}

describe('text left at the source', () => {
  it('stores no copy of small local text and HTML files, and a copy of larger ones', async () => {
    env.service.addSource({ startAddresses: [env.root] });
    const [rec] = await env.service.crawl({ mode: 'full' });
    expect(rec.counts.added).toBe(5);
    const s = stored();
    for (const f of ['notes/alpha.txt', 'web/page.html', 'cn/gbk.txt'])
      expect(s.get(f)).toEqual({ atSource: 1, body: 0 });
    expect(s.get('big/large.txt')).toEqual({ atSource: 0, body: 1 });
    expect(s.get('media/clip.mp4')).toEqual({ atSource: 0, body: 0 });
  });

  it('has the next crawl store the text of larger files that an older index left at the source', async () => {
    writeTree(env.root, { 'sizes/medium.html': `<html><body><p>${MEDIUM} mediumword</p></body></html>` });
    env.service.addSource({ startAddresses: [env.root] });
    await env.service.crawl({ mode: 'full' });
    // What an index from before the per-filter limits held: the HTML left at the source.
    const db = env.service.db;
    const id = db.prepare("SELECT id FROM documents WHERE name = 'medium.html'").pluck().get() as number;
    db.prepare('DELETE FROM bodies WHERE id = ?').run(id);
    db.prepare('UPDATE documents SET text_at_source = 1 WHERE id = ?').run(id);
    db.pragma('user_version = 6');
    await env.service.close();
    env = { ...makeService(env.dataDir), root: env.root, dataDir: env.dataDir };
    env.filtered.length = 0;
    const [rec] = await env.service.crawl({ mode: 'incremental' });
    expect(rec.counts).toMatchObject({ updated: 1, notModified: 5 });
    expect(env.filtered.map((u) => path.basename(u))).toEqual(['medium.html']);
    expect(stored().get('sizes/medium.html')).toEqual({ atSource: 0, body: 1 });
    expect(hit('mediumword').snippet).toContain('<mark>mediumword</mark>');
  });

  it('leaves text at the source up to the limit of the filter that reads it', async () => {
    writeTree(env.root, {
      'sizes/medium.txt': `${MEDIUM} mediumword`,
      'sizes/medium.html': `<html><body><p>${MEDIUM} mediumword</p></body></html>`,
    });
    env.service.addSource({ startAddresses: [env.root] });
    await env.service.crawl({ mode: 'full' });
    const s = stored();
    expect(s.get('sizes/medium.txt')).toEqual({ atSource: 1, body: 0 });
    expect(s.get('sizes/medium.html')).toEqual({ atSource: 0, body: 1 });
    const snippets = env.service.search({ query: 'mediumword', limit: 10 }).hits.map((h) => h.snippet);
    expect(snippets).toHaveLength(2);
    for (const sn of snippets) expect(sn).toContain('<mark>mediumword</mark>');
  });

  it('shows snippets and previews read again from the file, exactly as indexed', async () => {
    env.service.addSource({ startAddresses: [env.root] });
    await env.service.crawl({ mode: 'full' });

    const alpha = hit('zebrafish');
    expect(alpha.snippet).toContain('<mark>zebrafish</mark>');
    expect(hit('quarterly').snippet).toBe(
      'The <mark>quarterly</mark> budget review is encouraging. Second paragraph mentions zebrafish.',
    );
    const html = hit('vacation');
    expect(html.snippet).toBe('<mark>Vacation</mark> policy &amp; travel expenses.');
    expect(hit('爬虫').snippet).toContain('<mark>爬虫</mark>');
    expect(hit('bigfileword').snippet).toContain('<mark>bigfileword</mark>');

    const p = env.service.preview(alpha.id, 'zebrafish')!;
    expect(p.text).toBe('The quarterly budget review is encouraging.\nSecond paragraph mentions zebrafish.');
    expect(p.hits).toHaveLength(1);
    expect(p.text.slice(p.hits[0][0], p.hits[0][1])).toBe('zebrafish');
    expect(p.changedSinceIndexed).toBeUndefined();
    expect(env.service.preview(html.id)!.text).not.toContain('scriptword');
  });

  it('shows nothing of a file that changed after it was indexed, until a crawl indexes it', async () => {
    env.service.addSource({ startAddresses: [env.root] });
    await env.service.crawl({ mode: 'full' });
    const id = hit('zebrafish').id;

    const file = path.join(env.root, 'notes/alpha.txt');
    fs.writeFileSync(file, 'Rewritten: the zebrafish moved, and a secret salary figure appeared.');
    // (another page size: the result cache holds the earlier, still indexed, snippet)
    const stale = env.service.search({ query: 'zebrafish', limit: 9 }).hits[0];
    expect(stale.id).toBe(id);
    expect(stale.snippet).toBe('');
    const p = env.service.preview(id, 'zebrafish')!;
    expect(p.text).toBe('');
    expect(p.changedSinceIndexed).toBe(true);

    fs.rmSync(path.join(env.root, 'web/page.html'));
    expect(env.service.search({ query: 'vacation', limit: 9 }).hits[0].snippet).toBe('');
    // A FIFO in the file's place must neither hang the query nor be read.
    if (process.platform !== 'win32') {
      expect(spawnSync('mkfifo', [path.join(env.root, 'web/page.html')]).status).toBe(0);
      expect(env.service.search({ query: 'vacation', limit: 8 }).hits[0].snippet).toBe('');
      fs.rmSync(path.join(env.root, 'web/page.html'));
    }

    const t = new Date(Date.now() + 5_000);
    fs.utimesSync(file, t, t);
    const [rec] = await env.service.crawl({ mode: 'incremental' });
    expect(rec.counts).toMatchObject({ updated: 1, deleted: 1 });
    expect(hit('salary').snippet).toContain('<mark>salary</mark>');
    expect(env.service.preview(id)!.text).toContain('secret salary figure');
  });

  it('opens an unchanged file once for repeated snippets, and again after any change to it', async () => {
    env.service.addSource({ startAddresses: [env.root] });
    await env.service.crawl({ mode: 'full' });
    const file = path.join(env.root, 'notes/alpha.txt');
    const opens = vi.spyOn(fs, 'openSync');
    const opened = () => opens.mock.calls.filter(([p]) => p === file).length;
    try {
      for (let limit = 10; limit > 5; limit--) {
        const hits = env.service.search({ query: 'zebrafish', limit }).hits;
        expect(hits[0].snippet).toContain('<mark>zebrafish</mark>');
      }
      expect(opened()).toBe(1);
      // Same size, mtime set back: the change still moves ctime, so the file is read (and hashed) again.
      const before = fs.statSync(file);
      const text = fs.readFileSync(file, 'utf8');
      fs.writeFileSync(file, text.replace('zebrafish', 'starfishes'));
      fs.utimesSync(file, before.atime, before.mtime);
      expect(env.service.search({ query: 'zebrafish', limit: 4 }).hits[0].snippet).toBe('');
      expect(opened()).toBe(2);
    } finally {
      opens.mockRestore();
    }
  });

  it('keeps a copy when a file grows past the limit, and drops it when it shrinks again', async () => {
    env.service.addSource({ startAddresses: [env.root] });
    await env.service.crawl({ mode: 'full' });
    const file = path.join(env.root, 'notes/alpha.txt');
    const bump = (content: string) => {
      fs.writeFileSync(file, content);
      const t = new Date(Date.now() + 10_000 + Math.random() * 10_000);
      fs.utimesSync(file, t, t);
    };
    bump(`${BIG} zebrafish`);
    await env.service.crawl({ mode: 'incremental' });
    expect(stored().get('notes/alpha.txt')).toEqual({ atSource: 0, body: 1 });
    expect(hit('zebrafish').snippet).toContain('<mark>zebrafish</mark>');
    bump('small again, zebrafish');
    await env.service.crawl({ mode: 'incremental' });
    expect(stored().get('notes/alpha.txt')).toEqual({ atSource: 1, body: 0 });
    expect(hit('zebrafish').snippet).toBe('small again, <mark>zebrafish</mark>');
  });
});
