import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureBytes } from '../fixtures/filters/support.js';
import { outlookMessage } from '../fixtures/filters/msg-builder.js';
import { buildZip } from '../fixtures/filters/zip-builder.js';
import { MIGRATIONS } from '../../src/main/core/index/schema.js';
import { crawledFolder, indexFromVersion } from '../helpers/engine.js';

/**
 * Office documents end to end: LibreOffice's XLSX, PPTX, ODT, ODS and ODP in a folder, crawled by
 * the real service through the filter workers, found by their text and properties.
 */

let env: Awaited<ReturnType<typeof crawledFolder>>;

beforeAll(async () => {
  env = await crawledFolder('trawl-office', {
    'budget/loom-budget.xlsx': fixtureBytes('sample.xlsx'),
    'budget/loom-budget.ods': fixtureBytes('sample.ods'),
    'talks/review.pptx': fixtureBytes('sample.pptx'),
    'talks/review.odp': fixtureBytes('sample.odp'),
    'letters/sample.odt': fixtureBytes('sample.odt'),
    'letters/old-letter.doc': fixtureBytes('sample.doc'),
    'letters/memo.rtf': fixtureBytes('sample.rtf'),
    'budget/old-budget.xls': fixtureBytes('sample.xls'),
    'talks/old-review.ppt': fixtureBytes('sample.ppt'),
    'books/sample.epub': fixtureBytes('sample.epub'),
    'mail/outlook.msg': outlookMessage(),
    'downloads/letters.zip': buildZip([{ name: 'letters/report.docx', data: fixtureBytes('sample.docx') }]),
    'logs/app.log.1.gz': zlib.gzipSync('ERROR quota exceeded on volume7\n'),
    'mail/budget.eml': Buffer.from(
      [
        'From: Ada Lovelace <ada@example.org>',
        'Subject: Loom budget attached',
        'MIME-Version: 1.0',
        'Content-Type: multipart/mixed; boundary="b"',
        '',
        '--b',
        'Content-Type: text/plain; charset=utf-8',
        '',
        'The spreadsheet is attached.',
        '--b',
        'Content-Type: application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
        'Content-Disposition: attachment; filename="budget.xlsx"',
        'Content-Transfer-Encoding: base64',
        '',
        fixtureBytes('sample.xlsx').toString('base64'),
        '--b--',
        '',
      ].join('\r\n'),
    ),
    'letters/truncated.xlsx': fixtureBytes('sample.xlsx').subarray(0, 1500),
  });
});

afterAll(() => env.close());

const paths = (q: string) => env.paths(q);

describe('office documents in a folder source', () => {
  it('finds spreadsheet cells, sheet names, slide text and speaker notes', () => {
    expect(paths('"jacquard cards"')).toEqual([
      'budget/loom-budget.ods',
      'budget/loom-budget.xlsx',
      'budget/old-budget.xls',
      'mail/budget.eml',
      'mail/outlook.msg',
      'talks/old-review.ppt',
      'talks/review.odp',
      'talks/review.pptx',
    ]);
    expect(paths('expenses')).toEqual([
      'budget/loom-budget.ods',
      'budget/loom-budget.xlsx',
      'budget/old-budget.xls',
      'mail/budget.eml',
      'mail/outlook.msg',
    ]);
    expect(paths('"speaker note"')).toEqual([
      'talks/old-review.ppt',
      'talks/review.odp',
      'talks/review.pptx',
    ]);
    expect(paths('企业级搜索')).toEqual([
      'budget/loom-budget.ods',
      'budget/loom-budget.xlsx',
      'budget/old-budget.xls',
      'mail/budget.eml',
      'mail/outlook.msg',
      'talks/old-review.ppt',
      'talks/review.odp',
      'talks/review.pptx',
    ]);
    expect(paths('quayside ext:odt')).toEqual(['letters/sample.odt']);
    expect(paths('quayside ext:doc')).toEqual(['letters/old-letter.doc']);
    expect(paths('quayside ext:rtf')).toEqual(['letters/memo.rtf']);
    expect(paths('quayside ext:epub')).toEqual(['books/sample.epub']);
    expect(paths('volume7 quota')).toEqual(['logs/app.log.1.gz']);
    // An archive: by the names inside it, and the text of the document it holds.
    expect(paths('report.docx ext:zip')).toEqual(['downloads/letters.zip']);
    expect(paths('"analytical engine weaves" ext:zip')).toEqual(['downloads/letters.zip']);
    // A mail: by its subject, its sender, and the cells of the workbook attached to it.
    expect(paths('title:"budget attached"')).toEqual(['mail/budget.eml']);
    expect(paths('author:ada ext:eml')).toEqual(['mail/budget.eml']);
    expect(paths('expenses ext:eml')).toEqual(['mail/budget.eml']);
    expect(paths('babbage ext:msg')).toEqual(['mail/outlook.msg']);
    expect(paths('title:trawl author:lovelace')).toEqual([
      'books/sample.epub',
      'letters/memo.rtf',
      'letters/old-letter.doc',
      'letters/sample.odt',
    ]);
  });

  it('searches their titles and authors, and shows their text with hits marked', () => {
    expect(paths('title:quarterly')).toEqual([
      'budget/loom-budget.ods',
      'budget/loom-budget.xlsx',
      'budget/old-budget.xls',
    ]);
    expect(paths('author:lovelace ext:pptx')).toEqual(['talks/review.pptx']);
    const res = env.service.search({ query: 'speaker notes', limit: 10 });
    const pptx = res.hits.find((h) => h.path.endsWith('review.pptx'));
    expect(pptx?.title).toBe('Loom Review');
    expect(pptx?.snippet).toContain('<mark>Speaker</mark> <mark>note</mark>');
    const preview = env.service.preview(pptx!.id, 'speaker');
    expect(preview?.text).toContain('Second slide: 企业级搜索');
  });

  it('records a damaged workbook as failed with its reason, and still finds it by name', () => {
    const failed = env.service
      .log({ failedOnly: true })
      .map((l) => [path.relative(env.root, l.url), l.reason]);
    expect(failed).toHaveLength(1);
    expect(failed[0][0]).toBe('letters/truncated.xlsx');
    expect(failed[0][1]).toMatch(/ZIP|XLSX/);
    expect(paths('truncated')).toEqual(['letters/truncated.xlsx']);
  });
});

describe('an index from before the office filters', () => {
  it('reads the office files it holds by name only again on the next incremental crawl, and nothing else', async () => {
    // What the previous version left: the office files indexed by name only, schema version 5.
    const old = await indexFromVersion(
      'trawl-office-old',
      {
        'budget.xlsx': fixtureBytes('sample.xlsx'),
        'slides.odp': fixtureBytes('sample.odp'),
        'letter.doc': fixtureBytes('sample.doc'),
        'notes.txt': 'Plain notes about looms.',
        'archive.7z': Buffer.alloc(512, 3),
      },
      5,
      (db) =>
        db
          .prepare("UPDATE documents SET title = NULL, author = NULL WHERE ext IN ('xlsx', 'odp', 'doc')")
          .run(),
    );
    try {
      expect(old.service.db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
      const [rec] = await old.service.crawl({ mode: 'incremental' });
      expect(rec.counts).toMatchObject({ updated: 3, notModified: 2, added: 0, deleted: 0, failed: 0 });
      expect(old.filtered.map((u) => path.basename(decodeURIComponent(u))).sort()).toEqual([
        'budget.xlsx',
        'letter.doc',
        'slides.odp',
      ]);
      const titles = old.service
        .search({ query: 'author:lovelace', limit: 10 })
        .hits.map((h) => h.title)
        .sort();
      expect(titles).toEqual(['Loom Review', 'Quarterly Loom Budget', 'Trawl Filter Sample']);
      // The crawl after that one finds everything current again.
      old.filtered.length = 0;
      const [again] = await old.service.crawl({ mode: 'incremental' });
      expect(again.counts).toMatchObject({ updated: 0, notModified: 5 });
      expect(old.filtered).toEqual([]);
    } finally {
      await old.close();
    }
  });
});
