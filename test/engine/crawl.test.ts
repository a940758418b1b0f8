import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import iconv from 'iconv-lite';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkIntegrity } from '../../src/main/core/index/database.js';
import { makeService, tempDir, writeTree } from '../helpers/engine.js';

type Env = ReturnType<typeof makeService> & { root: string; dataDir: string };
let env: Env;

function paths(q: string): string[] {
  return env.service
    .search({ query: q, limit: 100 })
    .hits.map((h) => path.relative(env.root, h.path))
    .sort();
}

function bump(file: string, content?: string): void {
  const p = path.join(env.root, file);
  if (content !== undefined) fs.writeFileSync(p, content);
  const t = new Date(Date.now() + 5_000);
  fs.utimesSync(p, t, t);
}

beforeEach(() => {
  const root = tempDir('trawl-src-');
  const dataDir = tempDir('trawl-data-');
  writeTree(root, {
    'notes/alpha.txt': 'The quarterly budget review is encouraging for everyone.',
    'notes/beta.md': '# Beta\nMeeting notes about the caf\u00e9 opening and the espresso machine.',
    'notes/gamma.txt': 'Unrelated text about gardening and tomatoes.',
    'web/page.html':
      '<html><head><title>Intranet Handbook</title><meta name="description" content="How we work"></head><body><p>Vacation policy and travel expenses.</p><script>var secret = "scriptword";</script></body></html>',
    'cn/protocol.txt':
      '\u4f01\u4e1a\u7ea7\u641c\u7d22\u534f\u8bae\u5904\u7406\u7a0b\u5e8f\u7684\u8bbe\u8ba1\u6587\u6863',
    'cn/gbk.txt': iconv.encode(
      '\u8fd9\u662f\u4e00\u4e2a\u7b80\u4f53\u4e2d\u6587\u6587\u4ef6\uff0c\u5185\u5bb9\u5173\u4e8e\u7d22\u5f15\u5668\u548c\u722c\u866b\u3002\u8fd9\u662f\u4e00\u4e2a\u7b80\u4f53\u4e2d\u6587\u6587\u4ef6\u3002',
      'gbk',
    ),
    'broken/report.pdf': '%PDF-1.7\n1 0 obj garbage garbage \x00\x01\x02 not really a pdf',
    'broken/letter.docx': Buffer.from('PK\x03\x04truncated-zip-data-here', 'binary'),
    'media/holiday-video.mp4': Buffer.alloc(2048, 7),
    'node_modules/lib/index.js': 'module.exports = "dependencyword"',
    '.git/config': '[core] gitword',
    '.hidden/secret.txt': 'hiddenword',
    'build/out.txt': 'buildword',
    'scratch.tmp': 'tmpword',
  });
  env = { ...makeService(dataDir), root, dataDir };
});

afterEach(async () => {
  await env.service.close();
  fs.rmSync(env.root, { recursive: true, force: true });
  fs.rmSync(env.dataDir, { recursive: true, force: true });
});

describe('full and incremental crawls of a folder source', () => {
  it('indexes text, HTML, CJK and GBK files, and everything else by name', async () => {
    env.service.addSource({ startAddresses: [env.root] });
    const [rec] = await env.service.crawl({ mode: 'full' });
    expect(rec.status).toBe('done');
    expect(rec.counts.added).toBe(8);
    expect(rec.counts.failed).toBe(2);
    expect(paths('budget')).toEqual(['notes/alpha.txt']);
    expect(paths('encourage')).toEqual(['notes/alpha.txt']); // porter stemming
    expect(paths('cafe')).toEqual(['notes/beta.md']); // diacritics removed
    expect(paths('vacation')).toEqual(['web/page.html']);
    expect(paths('handbook')).toEqual(['web/page.html']);
    expect(paths('scriptword')).toEqual([]); // script content is not text
    expect(paths('\u534f\u8bae\u5904\u7406\u7a0b\u5e8f')).toEqual(['cn/protocol.txt']);
    expect(paths('\u641c\u7d22')).toEqual(['cn/protocol.txt']); // two characters inside a run
    expect(paths('\u722c\u866b')).toEqual(['cn/gbk.txt']); // decoded from GBK
    expect(paths('holiday')).toEqual(['media/holiday-video.mp4']); // metadata only
    expect(paths('report')).toEqual(['broken/report.pdf']); // a failed item is still findable by name
  });

  it('leaves out default excludes, hidden files and temp files, and logs why', async () => {
    env.service.addSource({ startAddresses: [env.root] });
    const [rec] = await env.service.crawl({});
    for (const w of ['dependencyword', 'gitword', 'hiddenword', 'tmpword']) expect(paths(w)).toEqual([]);
    expect(paths('buildword')).toEqual(['build/out.txt']);
    const log = env.service.log({});
    const excluded = log
      .filter((l) => l.outcome === 'excluded')
      .map((l) => `${path.relative(env.root, l.url)}: ${l.reason}`);
    expect(excluded).toContain('node_modules: default exclude');
    expect(excluded).toContain('.git: default exclude');
    expect(excluded).toContain('.hidden: hidden folder');
    expect(excluded).toContain('scratch.tmp: default exclude');
    expect(rec.counts.excluded).toBe(4);
  });

  it('records each failed item with its reason and goes on', async () => {
    env.service.addSource({ startAddresses: [env.root] });
    const [rec] = await env.service.crawl({});
    expect(rec.counts.failed).toBe(2);
    const failed = env.service.log({ failedOnly: true });
    expect(failed.map((f) => path.relative(env.root, f.url)).sort()).toEqual([
      'broken/letter.docx',
      'broken/report.pdf',
    ]);
    for (const f of failed) expect(f.reason).toBeTruthy();
  });

  it('incremental: unchanged files are counted not modified and never filtered', async () => {
    env.service.addSource({ startAddresses: [env.root] });
    await env.service.crawl({ mode: 'full' });
    env.filtered.length = 0;
    const [rec] = await env.service.crawl({ mode: 'incremental' });
    expect(rec.counts).toMatchObject({ added: 0, updated: 0, deleted: 0, failed: 0, notModified: 10 });
    expect(env.filtered).toEqual([]);
  });

  it('incremental: an edited file is updated, the rest not modified', async () => {
    env.service.addSource({ startAddresses: [env.root] });
    await env.service.crawl({ mode: 'full' });
    env.filtered.length = 0;
    bump('notes/gamma.txt', 'Now about zucchini instead.');
    const [rec] = await env.service.crawl({});
    expect(rec.counts).toMatchObject({ added: 0, updated: 1, deleted: 0, notModified: 9 });
    expect(env.filtered.map((u) => path.basename(decodeURIComponent(u)))).toEqual(['gamma.txt']);
    expect(paths('zucchini')).toEqual(['notes/gamma.txt']);
    expect(paths('tomatoes')).toEqual([]);
  });

  it('incremental: a touched but unchanged file is read but not re-indexed', async () => {
    env.service.addSource({ startAddresses: [env.root] });
    await env.service.crawl({});
    env.filtered.length = 0;
    bump('notes/alpha.txt');
    const [rec] = await env.service.crawl({});
    expect(rec.counts).toMatchObject({ updated: 0, notModified: 10 });
    expect(env.filtered).toEqual([]);
  });

  it('a partial crawl compares changed files with the hashes recorded before it, even when named twice', async () => {
    const src = env.service.addSource({ startAddresses: [env.root] });
    await env.service.crawl({});
    env.filtered.length = 0;
    bump('notes/alpha.txt');
    bump('notes/gamma.txt', 'Gardening notes, now about peppers.');
    const url = (p: string) => pathToFileURL(path.join(env.root, p)).href;
    const rec = await env.service.updatePaths(src.id, [
      url('notes'),
      url('notes/alpha.txt'),
      url('notes/gamma.txt'),
    ]);
    // alpha: touched only (same bytes), twice; gamma: re-indexed, twice; beta: not modified
    expect(rec.counts).toMatchObject({ added: 0, updated: 2, deleted: 0, failed: 0, notModified: 3 });
    expect(env.filtered.map((u) => path.basename(fileURLToPath(u)))).toEqual(['gamma.txt', 'gamma.txt']);
    expect(paths('peppers')).toEqual(['notes/gamma.txt']);
  });

  it('deleted and renamed files leave the index; renamed ones come back under the new name', async () => {
    env.service.addSource({ startAddresses: [env.root] });
    await env.service.crawl({});
    fs.rmSync(path.join(env.root, 'notes/gamma.txt'));
    fs.renameSync(path.join(env.root, 'notes/alpha.txt'), path.join(env.root, 'notes/alpha-renamed.txt'));
    const [rec] = await env.service.crawl({});
    expect(rec.counts).toMatchObject({ added: 1, deleted: 2, updated: 0 });
    expect(paths('tomatoes')).toEqual([]);
    expect(paths('budget')).toEqual(['notes/alpha-renamed.txt']);
  });

  it('full crawl reads and filters every item again', async () => {
    env.service.addSource({ startAddresses: [env.root] });
    await env.service.crawl({});
    env.filtered.length = 0;
    const [rec] = await env.service.crawl({ mode: 'full' });
    expect(rec.counts.updated + rec.counts.failed).toBe(10);
    expect(env.filtered.length).toBe(9); // all but the metadata-only video
  });

  it('an exclude rule added later removes the excluded files at the next crawl', async () => {
    const s = env.service.addSource({ startAddresses: [env.root] });
    await env.service.crawl({});
    expect(paths('budget')).toEqual(['notes/alpha.txt']);
    env.service.updateSource(s.id, {
      rules: [{ action: 'exclude', syntax: 'glob', pattern: '**/notes/**' }],
    });
    const [rec] = await env.service.crawl({});
    expect(rec.counts.deleted).toBe(3);
    expect(paths('budget')).toEqual([]);
    expect(env.service.testRules(s.id, path.join(env.root, 'notes/alpha.txt'))).toMatchObject({
      included: false,
    });
  });

  it('include rules restrict a source to matching files; max size indexes by name only', async () => {
    env.service.addSource({
      startAddresses: [env.root],
      rules: [{ action: 'include', syntax: 'glob', pattern: '*.txt' }],
      settings: { maxFileSize: 60 },
    });
    const [rec] = await env.service.crawl({});
    expect(rec.status).toBe('done');
    expect(paths('vacation')).toEqual([]); // html not included
    expect(paths('gardening')).toEqual(['notes/gamma.txt']);
    // alpha.txt is 57 bytes: indexed; gbk.txt (66 bytes) only by name
    expect(paths('budget')).toEqual(['notes/alpha.txt']);
    expect(paths('gbk')).toEqual(['cn/gbk.txt']);
    expect(paths('\u722c\u866b')).toEqual([]);
  });

  it('follows symlinks only when asked, without looping', async () => {
    fs.symlinkSync(env.root, path.join(env.root, 'notes/loop'));
    fs.symlinkSync(path.join(env.root, 'notes/gamma.txt'), path.join(env.root, 'gamma-link.txt'));
    env.service.addSource({ startAddresses: [env.root], settings: { followSymlinks: true } });
    const [rec] = await env.service.crawl({});
    expect(rec.status).toBe('done');
    expect(env.service.log({}).some((l) => /loop/.test(l.reason ?? ''))).toBe(true);
    expect(paths('gardening')).toEqual(['gamma-link.txt', 'notes/gamma.txt']);
  });

  it('a stopped crawl keeps what it indexed and deletes nothing; the next crawl finishes the job', async () => {
    writeTree(
      env.root,
      Object.fromEntries(
        Array.from({ length: 1000 }, (_, i) => [`many/file-${i}.txt`, `bulkword number ${i}`]),
      ),
    );
    const s = env.service.addSource({ startAddresses: [env.root] });
    const off = env.service.on('progress', (p) => {
      if (p.counts.added > 0) env.service.stopCrawl(s.id);
    });
    const [rec] = await env.service.crawl({});
    off();
    expect(rec.status).toBe('stopped');
    expect(rec.counts.deleted).toBe(0);
    const [next] = await env.service.crawl({});
    expect(next.status).toBe('done');
    expect(next.counts.added).toBeGreaterThan(0);
    expect(env.service.search({ query: 'bulkword', limit: 1 }).total).toBe(1000);
    expect(checkIntegrity(env.service.db)).toEqual([]);
  });

  it('removing a source removes its documents', async () => {
    const s = env.service.addSource({ startAddresses: [env.root] });
    await env.service.crawl({});
    expect(env.service.search({ query: 'budget' }).total).toBe(1);
    env.service.removeSource(s.id);
    expect(env.service.search({ query: 'budget' }).total).toBe(0);
    expect(checkIntegrity(env.service.db)).toEqual([]);
  });

  it('a missing start address fails the crawl and keeps the index', async () => {
    const other = tempDir('trawl-gone-');
    writeTree(other, { 'a.txt': 'ephemeralword' });
    env.service.addSource({ startAddresses: [other] });
    await env.service.crawl({});
    fs.rmSync(other, { recursive: true, force: true });
    const [rec] = await env.service.crawl({});
    expect(rec.status).toBe('failed');
    expect(rec.error).toMatch(/no such file or folder/);
    expect(env.service.search({ query: 'ephemeralword' }).total).toBe(1);
  });
});

describe('files without an extension', () => {
  it('are sniffed: text is indexed, binary is indexed by name', async () => {
    writeTree(env.root, {
      'misc/README': 'Plain readme text mentioning flamingos.',
      'misc/blob': Buffer.from([0, 1, 2, 3, 0, 0, 255, 254, 0, 7]),
    });
    env.service.addSource({ startAddresses: [path.join(env.root, 'misc')] });
    const [rec] = await env.service.crawl({});
    expect(rec.counts.added).toBe(2);
    expect(paths('flamingos')).toEqual(['misc/README']);
    expect(paths('blob')).toEqual(['misc/blob']);
  });
});

describe('a write that fails', () => {
  it('fails the crawl with its reason instead of losing the item silently', async () => {
    writeTree(env.root, { 'poison.txt': 'this row cannot be written' });
    env.service.db.exec(
      `CREATE TRIGGER poison BEFORE INSERT ON documents WHEN NEW.name = 'poison.txt' BEGIN SELECT RAISE(ABORT, 'disk on fire'); END`,
    );
    env.service.addSource({ startAddresses: [env.root] });
    const [rec] = await env.service.crawl({});
    expect(rec.status).toBe('failed');
    expect(rec.error).toMatch(/disk on fire/);
    expect(checkIntegrity(env.service.db)).toEqual([]);
  });
});
