import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../index/database.js';
import { addAcl, addDocs, addSource } from './index-fixture.js';
import { preview, QuerySyntaxError, search, suggest, type SearchContext } from './search.js';

const TOKENS = [
  '"',
  '(',
  ')',
  '-',
  '+',
  '*',
  '^',
  ':',
  '|',
  '||',
  '&&',
  '{',
  '}',
  '[',
  ']',
  '\\',
  "'",
  ',',
  ';',
  '.',
  '..',
  'OR',
  'AND',
  'NOT',
  'NEAR(',
  'NEAR',
  'or',
  'not',
  '-"',
  '"*',
  '*"',
  'title:',
  'path:',
  'url:',
  'ext:',
  'type:',
  'author:',
  'source:',
  'modified:',
  'size:',
  'keywords:',
  '{title}:',
  'title:(',
  'modified:>',
  'modified:>=2024-01-01',
  'modified:2024-01-01..2024-02-01',
  'modified:week',
  'size:>1mb',
  'size:<10kb',
  'ext:pdf,docx',
  'type:text/*',
  'budget',
  'report',
  'proxy',
  'café',
  '协议',
  '協',
  '搜索引擎',
  'エンジン',
  '한국어',
  '0',
  '42',
  'x',
  '\u0000',
  '\u200b',
  '\ud83d\ude00',
  'rowid',
  'fts',
  "'; DROP TABLE documents; --",
  '%',
  '_',
  'http://a/b?c=d',
  'C:\\x',
];

const tokenQuery = fc
  .array(fc.tuple(fc.constantFrom(...TOKENS), fc.constantFrom('', ' ', '  ', '\t')), { maxLength: 12 })
  .map((parts) => parts.map(([t, sep]) => t + sep).join(''));

const anyQuery = fc.oneof(
  tokenQuery,
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 30 }),
  fc.string({ unit: 'binary', maxLength: 30 }),
);

let dir: string;
let db: Db;
let ctxs: SearchContext[];
let hiddenId: number;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-prop-'));
  db = openDatabase(dir);
  addSource(db, 'Docs', 1);
  const acl = addAcl(db, 'x');
  [, hiddenId] = addDocs(db, [
    { title: 'Quarterly report', text: 'budget report for the proxy café', ext: 'pdf', size: 2_000_000 },
    { title: '协议', text: '企业级搜索协议处理程序 検索エンジン 한국어', aclId: acl },
    { title: 'NEAR and OR', text: 'NEAR(a b) "quoted" title:x rowid fts', mtime: Date.now() },
  ]);
  ctxs = [
    { acl: { mode: 'all' } },
    { acl: { mode: 'ids', aclIds: [] } },
    { acl: { mode: 'ids', aclIds: [acl] } },
  ];
});

afterAll(() => {
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Run `fn`; any error other than QuerySyntaxError fails the property. */
function onlySyntaxErrors(fn: () => void): void {
  try {
    fn();
  } catch (e) {
    if (!(e instanceof QuerySyntaxError)) throw e;
    expect(e.message.length).toBeGreaterThan(10);
    expect(e.message).not.toMatch(/fts5|sqlite|SQLITE/i);
  }
}

describe('random queries against a real index', () => {
  it('never raise anything but QuerySyntaxError from search, and totals stay consistent', () => {
    fc.assert(
      fc.property(
        anyQuery,
        fc.constantFrom(0, 1, 2),
        fc.constantFrom('relevance', 'date', 'name') as fc.Arbitrary<'relevance'>,
        (query, c, sort) => {
          onlySyntaxErrors(() => {
            const r = search(db, { query, sort, limit: 5 }, ctxs[c]);
            expect(r.total).toBeGreaterThanOrEqual(r.hits.length);
            for (const h of r.hits) expect(h.snippet).not.toMatch(/<(?!\/?mark>)/);
            if (c === 1) expect(r.hits.map((h) => h.id)).not.toContain(hiddenId);
          });
        },
      ),
      { numRuns: 1500 },
    );
  });

  it('never raise from preview or suggest', () => {
    fc.assert(
      fc.property(anyQuery, (query) => {
        expect(() => preview(db, 1, query, ctxs[0])).not.toThrow();
        expect(() => suggest(db, query, ctxs[1])).not.toThrow();
      }),
      { numRuns: 500 },
    );
  });
});
