import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../index/database.js';
import { DEFAULT_WEIGHTS } from './default-weights.js';
import { addAcl, addDoc, addDocs, addSource } from './index-fixture.js';
import { preview, QuerySyntaxError, RELAX_THRESHOLD, search, type SearchContext } from './search.js';

const ALL: SearchContext = { acl: { mode: 'all' } };
const day = (y: number, m: number, d: number): number => new Date(y, m - 1, d, 12).getTime();

let dir: string;
let db: Db;
const ids: Record<string, number> = {};

function titles(query: string, ctx: SearchContext = ALL, extra: Record<string, unknown> = {}): string[] {
  return search(db, { query, limit: 100, ...extra }, ctx).hits.map((h) => h.title);
}

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-search-'));
  db = openDatabase(dir);
  addSource(db, 'Documents', 1);
  addSource(db, 'Intranet', 2);
  const docs: Record<string, Parameters<typeof addDoc>[1]> = {
    encourage: {
      title: 'Mentoring guide',
      path: '/docs/mentoring.txt',
      text: 'We encourage new staff to ask questions early.',
      mtime: day(2024, 3, 10),
      size: 2_000,
    },
    cafe: {
      title: 'Lunch places',
      path: '/docs/lunch.txt',
      text: 'The cafe on the corner serves soup.',
      mtime: day(2023, 11, 2),
      size: 500,
    },
    cafeAccent: {
      title: 'Menu',
      path: '/docs/menu.txt',
      text: 'Le café du coin: croissants et thé.',
      mtime: day(2023, 12, 24),
      size: 700,
    },
    chinese: {
      title: '技术文档',
      path: '/docs/zh/协议.txt',
      text: '本文介绍企业级搜索协议处理程序的设计与实现。',
      mtime: day(2024, 1, 5),
      size: 900,
    },
    japanese: {
      title: '検索エンジンの紹介',
      path: '/docs/ja/kensaku.txt',
      text: '全文検索エンジンは文書を素早く見つけます。',
      mtime: day(2024, 1, 6),
      size: 800,
    },
    proxy: {
      title: 'Network settings',
      path: '/docs/it/network.md',
      text: 'To configure the proxy, open the network settings and enter the proxy address.',
      mtime: day(2024, 5, 1),
      size: 3_000,
      author: 'Ann Smith',
    },
    proxyTitle: {
      title: 'Proxy',
      path: '/docs/it/proxy-faq.md',
      text: 'Frequently asked questions about the squid cache.',
      mtime: day(2024, 4, 1),
      size: 1_500,
    },
    script: {
      title: 'Injected',
      path: '/docs/evil.html',
      ext: 'html',
      mime: 'text/html',
      text: 'Hello <script>alert("x")</script> & goodbye proxy',
      mtime: day(2022, 1, 1),
      size: 100,
    },
    report: {
      title: 'Quarterly report',
      path: '/docs/finance/Q1 report.pdf',
      ext: 'pdf',
      mime: 'application/pdf',
      author: 'Bob Jones',
      keywords: 'finance, budget',
      description: 'Results of the first quarter.',
      text: 'Revenue grew. The budget for the next quarter is attached.',
      mtime: day(2024, 4, 15),
      size: 2 * 1024 * 1024,
    },
    failed: {
      title: null,
      path: '/docs/finance/Annual Budget 2023.xlsx',
      ext: 'xlsx',
      mime: 'application/vnd.ms-excel',
      status: 'failed',
      text: '',
      mtime: day(2023, 1, 31),
      size: 40_000,
    },
    intranet: {
      sourceId: 2,
      title: 'Intranet home',
      path: 'https://intranet.example/home',
      url: 'https://intranet.example/home',
      ext: 'html',
      mime: 'text/html',
      text: 'Welcome to the intranet. The budget portal moved.',
      mtime: day(2024, 6, 1),
      size: 4_000,
    },
  };
  db.transaction(() => {
    for (const [k, d] of Object.entries(docs)) ids[k] = addDoc(db, d);
  })();
});

afterAll(() => {
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('search: language handling of the index', () => {
  it('stems: "encouraging" finds "encourage"', () => {
    expect(titles('encouraging')).toEqual(['Mentoring guide']);
  });

  it('folds diacritics both ways: "café" and "cafe"', () => {
    expect(titles('café').sort()).toEqual(['Lunch places', 'Menu']);
    expect(titles('cafe').sort()).toEqual(['Lunch places', 'Menu']);
  });

  it('finds Chinese words inside longer runs', () => {
    expect(titles('协议处理程序')).toEqual(['技术文档']);
    expect(titles('搜索')).toEqual(['技术文档']);
    expect(titles('协')).toEqual(['技术文档']);
    expect(titles('协议处理程序不存在')).toEqual([]);
  });

  it('finds Japanese words inside longer runs', () => {
    expect(titles('検索')).toEqual(['検索エンジンの紹介']);
    expect(titles('エンジン')).toEqual(['検索エンジンの紹介']);
  });

  it('finds failed (metadata-only) documents by name and path', () => {
    expect(titles('annual budget')).toContain('Annual Budget 2023.xlsx');
    expect(titles('path:finance ext:xlsx')).toEqual(['Annual Budget 2023.xlsx']);
  });
});

describe('search: fields and filters', () => {
  it('title: restricts to the title column', () => {
    expect(titles('proxy').sort()).toEqual(['Injected', 'Network settings', 'Proxy']);
    expect(titles('title:proxy')).toEqual(['Proxy']);
  });

  it('path:, author:, source:, ext:, type:', () => {
    expect(titles('path:it').sort()).toEqual(['Network settings', 'Proxy']);
    expect(titles('author:smith')).toEqual(['Network settings']);
    expect(titles('budget source:2')).toEqual(['Intranet home']);
    expect(titles('budget source:intranet')).toEqual(['Intranet home']);
    expect(titles('budget source:Intranet', { ...ALL, sourceNames: new Map([['Intranet', 2]]) })).toEqual([
      'Intranet home',
    ]);
    expect(titles('budget source:nosuch')).toEqual([]);
    expect(titles('ext:pdf')).toEqual(['Quarterly report']);
    expect(titles('type:text/html').sort()).toEqual(['Injected', 'Intranet home']);
    expect(titles('type:application/*').sort()).toEqual(['Annual Budget 2023.xlsx', 'Quarterly report']);
  });

  it('keywords and description are searched', () => {
    expect(titles('finance budget')).toContain('Quarterly report');
    expect(titles('"first quarter"')).toEqual(['Quarterly report']);
  });

  it('date filters', () => {
    expect(titles('modified:>2024-04-15').sort()).toEqual(['Intranet home', 'Network settings']);
    expect(titles('modified:>=2024-04-15').sort()).toEqual([
      'Intranet home',
      'Network settings',
      'Quarterly report',
    ]);
    expect(titles('modified:<2023-01-01')).toEqual(['Injected']);
    expect(titles('modified:2023-12-24')).toEqual(['Menu']);
    expect(titles('modified:2024-01-01..2024-01-05')).toEqual(['技术文档']);
    const now = day(2024, 6, 3);
    expect(titles('modified:week', { ...ALL, now })).toEqual(['Intranet home']);
    expect(titles('modified:today', { ...ALL, now: day(2024, 6, 1) })).toEqual(['Intranet home']);
    expect(titles('modified:yesterday', { ...ALL, now: day(2024, 6, 2) })).toEqual(['Intranet home']);
    expect(titles('modified:month', { ...ALL, now: day(2024, 5, 25) })).toEqual([
      'Intranet home',
      'Network settings',
    ]);
    expect(titles('modified:<month', { ...ALL, now: day(2022, 1, 20) })).toEqual([]);
  });

  it('size filters', () => {
    expect(titles('size:>1mb')).toEqual(['Quarterly report']);
    expect(titles('size:<=500')).toEqual(['Lunch places', 'Injected']);
    expect(titles('size:1kb..2kb').sort()).toEqual(['Mentoring guide', 'Proxy']);
  });

  it('request-level filters combine with the query', () => {
    expect(titles('budget', ALL, { types: ['PDF'] })).toEqual(['Quarterly report']);
    expect(titles('budget', ALL, { sourceIds: [2] })).toEqual(['Intranet home']);
    expect(titles('budget', ALL, { modifiedFrom: day(2024, 5, 1) })).toEqual(['Intranet home']);
    expect(titles('budget', ALL, { modifiedTo: day(2024, 1, 1) })).toEqual(['Annual Budget 2023.xlsx']);
    expect(search(db, { query: '', types: ['xlsx'] }, ALL).total).toBe(1);
  });

  it('filters alone list documents (newest first); negation narrows', () => {
    const r = search(db, { query: 'ext:html' }, ALL);
    expect(r.hits.map((h) => h.title)).toEqual(['Intranet home', 'Injected']);
    expect(r.total).toBe(2);
    expect(titles('ext:html -intranet')).toEqual(['Injected']);
    expect(titles('proxy -squid').sort()).toEqual(['Injected', 'Network settings']);
    expect(titles('proxy -title:proxy').sort()).toEqual(['Injected', 'Network settings']);
    expect(titles('proxy -ext:html').sort()).toEqual(['Network settings', 'Proxy']);
  });

  it('OR, phrases, prefixes and groups', () => {
    expect(titles('squid OR croissants').sort()).toEqual(['Menu', 'Proxy']);
    expect(titles('"proxy address"')).toEqual(['Network settings']);
    expect(titles('"address proxy"')).toEqual([]);
    expect(titles('quart*').sort()).toEqual(['Quarterly report']);
    expect(titles('(soup OR croissants) cafe').sort()).toEqual(['Lunch places', 'Menu']);
    expect(titles('budget (portal OR ext:pdf)').sort()).toEqual(['Intranet home', 'Quarterly report']);
  });
});

describe('search: ranking, sorting and pagination', () => {
  it('ranks a title hit above a body hit', () => {
    expect(titles('proxy')[0]).toBe('Proxy');
  });

  it('per-source weights change the order', () => {
    // With body weight 0 for source 1, the intranet page (source 2) wins "budget".
    const weightsBySource = new Map([[1, { title: 0, keywords: 0, description: 0, url: 0, body: 0 }]]);
    const r = search(db, { query: 'budget' }, { ...ALL, weightsBySource });
    expect(r.hits[0].title).toBe('Intranet home');
    expect(r.hits.slice(1).every((h) => h.score === 0)).toBe(true);
  });

  it('sources whose weights equal the defaults rank as without per-source weights', () => {
    const same = new Map([
      [1, { ...DEFAULT_WEIGHTS }],
      [2, { ...DEFAULT_WEIGHTS }],
    ]);
    const plain = search(db, { query: 'budget proxy' }, ALL).hits.map((h) => [h.id, h.score]);
    expect(
      search(db, { query: 'budget proxy' }, { ...ALL, weightsBySource: same }).hits.map((h) => [
        h.id,
        h.score,
      ]),
    ).toEqual(plain);
  });

  it('sorts by date and by name', () => {
    expect(titles('budget', ALL, { sort: 'date' })).toEqual([
      'Intranet home',
      'Quarterly report',
      'Annual Budget 2023.xlsx',
    ]);
    expect(titles('budget', ALL, { sort: 'name' })).toEqual([
      'Annual Budget 2023.xlsx',
      'Intranet home',
      'Quarterly report',
    ]);
  });

  it('pages are disjoint, ordered and totals exact', () => {
    const all = search(db, { query: 'the', limit: 100 }, ALL);
    expect(all.total).toBe(all.hits.length);
    const seen: number[] = [];
    for (let offset = 0; offset < all.total; offset += 2) {
      const page = search(db, { query: 'the', limit: 2, offset }, ALL);
      expect(page.total).toBe(all.total);
      seen.push(...page.hits.map((h) => h.id));
    }
    expect(seen).toEqual(all.hits.map((h) => h.id));
    expect(search(db, { query: 'the', limit: 2, offset: 1000 }, ALL).hits).toEqual([]);
    expect(search(db, { query: 'the', limit: 0 }, ALL)).toMatchObject({ total: all.total, hits: [] });
    expect(search(db, { query: 'the', limit: Number.NaN, offset: -5 }, ALL).hits.length).toBe(
      Math.min(20, all.total),
    );
  });

  it('scores are positive and ordered for relevance', () => {
    const scores = search(db, { query: 'proxy' }, ALL).hits.map((h) => h.score);
    expect(scores.every((s) => s > 0)).toBe(true);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
  });
});

describe('search: sentence queries', () => {
  it('a question finds answers below full matches, flagged partial', () => {
    const r = search(db, { query: 'how do I configure the proxy' }, ALL);
    expect(r.relaxed).toBe(true);
    expect(r.hits[0].title).toBe('Network settings');
    expect(r.hits.map((h) => h.title)).toContain('Proxy');
    expect(r.hits.every((h) => h.partial === true)).toBe(true);
    expect(r.total).toBe(r.hits.length);
    expect(r.terms).toEqual(['how', 'do', 'I', 'configure', 'the', 'proxy']);
  });

  it('full matches come first, then partial ones; totals count both', () => {
    const r = search(db, { query: 'proxy settings', limit: 100 }, ALL);
    expect(r.relaxed).toBe(true);
    expect(r.hits[0]).toMatchObject({ title: 'Network settings' });
    expect(r.hits[0].partial).toBeUndefined();
    expect(r.hits.slice(1).every((h) => h.partial)).toBe(true);
    expect(r.total).toBe(3);
    const page2 = search(db, { query: 'proxy settings', limit: 1, offset: 1 }, ALL);
    expect(page2.total).toBe(3);
    expect(page2.hits[0].id).toBe(r.hits[1].id);
  });

  it('does not relax when enough documents match every term', () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-relax-'));
    const db2 = openDatabase(tmp);
    try {
      addSource(db2, 's', 1);
      addDocs(
        db2,
        Array.from({ length: RELAX_THRESHOLD }, (_, i) => ({ text: `alpha beta ${i}` })),
      );
      addDocs(db2, [{ text: 'alpha only' }]);
      const r = search(db2, { query: 'alpha beta' }, ALL);
      expect(r.total).toBe(RELAX_THRESHOLD);
      expect(r.relaxed).toBeUndefined();
      db2.prepare('DELETE FROM fts WHERE rowid = 1').run();
      db2.prepare('DELETE FROM documents WHERE id = 1').run();
      const r2 = search(db2, { query: 'alpha beta' }, ALL);
      expect(r2.relaxed).toBe(true);
      expect(r2.total).toBe(RELAX_THRESHOLD);
      expect(r2.hits.filter((h) => h.partial).length).toBe(1);
    } finally {
      db2.close();
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });
});

describe('search: snippets', () => {
  it('escapes HTML in content and marks hits', () => {
    const [hit] = search(db, { query: 'script' }, ALL).hits;
    expect(hit.snippet).toBe(
      'Hello &lt;<mark>script</mark>&gt;alert(&quot;x&quot;)&lt;/<mark>script</mark>&gt; &amp; goodbye proxy',
    );
    expect(hit.snippet).not.toContain('<script');
  });

  it('marks stemmed, diacritic-folded and CJK hits', () => {
    expect(search(db, { query: 'encouraging' }, ALL).hits[0].snippet).toContain('<mark>encourage</mark>');
    const cafe = search(db, { query: 'cafe' }, ALL).hits.find((h) => h.title === 'Menu')!;
    expect(cafe.snippet).toContain('<mark>café</mark>');
    expect(search(db, { query: '协议处理程序' }, ALL).hits[0].snippet).toContain('<mark>协议处理程序</mark>');
  });

  it('picks the window with the most hits in a long text', () => {
    const filler = 'lorem ipsum dolor sit amet '.repeat(200);
    const id = addDoc(db, {
      title: 'Long',
      text: `${filler} zebra once. ${filler} zebra giraffe zebra giraffe together. ${filler}`,
    });
    const hit = search(db, { query: 'zebra giraffe' }, ALL).hits.find((h) => h.id === id)!;
    expect(hit.snippet).toContain(
      '<mark>zebra</mark> <mark>giraffe</mark> <mark>zebra</mark> <mark>giraffe</mark>',
    );
    expect(hit.snippet.startsWith('…')).toBe(true);
    expect(hit.snippet.endsWith('…')).toBe(true);
    expect(hit.snippet.length).toBeLessThan(400);
    db.prepare('DELETE FROM fts WHERE rowid = ?').run(id);
    db.prepare('DELETE FROM documents WHERE id = ?').run(id);
  });

  it('falls back to the description, then the beginning of the text', () => {
    // "quarterly" is not in the body, so the description stands in.
    expect(search(db, { query: 'title:quarterly' }, ALL).hits[0].snippet).toBe(
      'Results of the first quarter.',
    );
    expect(search(db, { query: 'title:proxy' }, ALL).hits[0].snippet).toBe(
      'Frequently asked questions about the squid cache.',
    );
    expect(search(db, { query: 'ext:xlsx' }, ALL).hits[0].snippet).toBe('');
  });
});

describe('search: malformed queries', () => {
  it('throws QuerySyntaxError, never a SQLite error', () => {
    for (const q of ['-draft', '"', '*', '()', ':', '^', 'a)', 'title:', 'modified:>x', 'NOT']) {
      let err: unknown = null;
      try {
        search(db, { query: q }, ALL);
      } catch (e) {
        err = e;
      }
      if (err) expect(err, q).toBeInstanceOf(QuerySyntaxError);
    }
    expect(() => search(db, { query: '-draft' }, ALL)).toThrow(QuerySyntaxError);
    expect(() => search(db, { query: '"' }, ALL)).toThrow(/Nothing to search for/);
  });

  it('treats FTS5 syntax typed as text literally', () => {
    expect(search(db, { query: 'NEAR(proxy settings)' }, ALL).total).toBeGreaterThanOrEqual(0);
    expect(titles('{title}: proxy')).toEqual(titles('title proxy'));
    expect(titles('proxy^2 OR OR')).toEqual(titles('"proxy 2"'));
    expect(titles('proxy^ OR OR')).toEqual(titles('proxy'));
  });

  it('survives NUL and control characters in the query', () => {
    expect(titles('proxy\u0000settings')).toEqual(titles('"proxy settings"'));
    expect(titles('\u0000title:proxy')).toEqual([]);
  });

  it('returns nothing for a blank query', () => {
    expect(search(db, { query: '   ' }, ALL)).toMatchObject({ total: 0, hits: [] });
  });
});

describe('security trimming', () => {
  let tmp: string;
  let sdb: Db;
  let aclA: number;
  let aclB: number;
  const seeded: Record<string, number> = {};

  beforeAll(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-acl-'));
    sdb = openDatabase(tmp);
    addSource(sdb, 's', 1);
    aclA = addAcl(sdb, 'a');
    aclB = addAcl(sdb, 'b');
    seeded.pub = addDoc(sdb, { title: 'Public memo', text: 'budget overview for everyone' });
    seeded.a = addDoc(sdb, { title: 'Alice plan', text: 'budget secret hovercraft plan', aclId: aclA });
    seeded.b = addDoc(sdb, { title: 'Bob notes', text: 'budget notes zeppelin', aclId: aclB });
    for (let i = 0; i < 5; i++)
      addDoc(sdb, { title: `Hidden ${i}`, text: `budget hidden ${i}`, aclId: aclB });
  });

  afterAll(() => {
    sdb.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  const as = (aclIds: number[]): SearchContext => ({ acl: { mode: 'ids', aclIds } });

  it('totals and pages count only visible documents', () => {
    expect(search(sdb, { query: 'budget' }, ALL).total).toBe(8);
    const alice = search(sdb, { query: 'budget', limit: 1 }, as([aclA]));
    expect(alice.total).toBe(2);
    const page2 = search(sdb, { query: 'budget', limit: 1, offset: 1 }, as([aclA]));
    expect([alice.hits[0].id, page2.hits[0].id].sort()).toEqual([seeded.pub, seeded.a].sort());
    expect(search(sdb, { query: 'budget' }, as([])).hits.map((h) => h.id)).toEqual([seeded.pub]);
    expect(search(sdb, { query: 'zeppelin' }, as([aclA])).total).toBe(0);
    expect(search(sdb, { query: 'zeppelin' }, as([aclB])).total).toBe(1);
  });

  it('trims filter-only listings and relaxed results too', () => {
    expect(search(sdb, { query: 'ext:txt' }, as([aclA])).total).toBe(2);
    const r = search(sdb, { query: 'zeppelin hovercraft' }, as([aclA]));
    expect(r.hits.map((h) => h.id)).toEqual([seeded.a]);
    expect(r.total).toBe(1);
  });

  it('trims large match sets (the id-set path) exactly, in every sort order', () => {
    const bulk = db.transaction(() => {
      const made: { id: number; acl: number | null; mtime: number }[] = [];
      for (let i = 0; i < 1_500; i++) {
        const acl = i % 3 === 0 ? null : i % 3 === 1 ? aclA : aclB;
        const mtime = day(2020, 1, 1) + i * 3_600_000;
        made.push({
          id: addDoc(sdb, { title: `bulk ${i}`, text: `bulkword item ${i}`, aclId: acl, mtime }),
          acl,
          mtime,
        });
      }
      return made;
    });
    const made = bulk();
    const visibleToA = made.filter((m) => m.acl === null || m.acl === aclA);
    for (const sort of ['relevance', 'date', 'name'] as const) {
      const r = search(sdb, { query: 'bulkword', sort, limit: 50 }, as([aclA]));
      expect(r.total).toBe(visibleToA.length);
      const allowed = new Set(visibleToA.map((m) => m.id));
      expect(r.hits.every((h) => allowed.has(h.id))).toBe(true);
      expect(r.hits).toHaveLength(50);
    }
    const newest = search(sdb, { query: 'bulkword', sort: 'date', limit: 3 }, as([aclA])).hits.map(
      (h) => h.id,
    );
    expect(newest).toEqual(
      [...visibleToA]
        .sort((a, b) => b.mtime - a.mtime)
        .slice(0, 3)
        .map((m) => m.id),
    );
    expect(search(sdb, { query: 'bulkword' }, as([])).total).toBe(made.filter((m) => m.acl === null).length);
    expect(search(sdb, { query: 'bulkword', types: ['txt'] }, as([aclB])).total).toBe(1_000);
  });

  it('preview of a hidden id looks exactly like a missing id', () => {
    expect(preview(sdb, seeded.b, 'budget', as([aclA]))).toBeNull();
    expect(preview(sdb, 999_999, 'budget', as([aclA]))).toBeNull();
    expect(preview(sdb, seeded.b, 'budget', as([aclB]))?.title).toBe('Bob notes');
    expect(preview(sdb, seeded.pub, undefined, as([]))?.title).toBe('Public memo');
  });
});

describe('preview', () => {
  it('returns the full text, properties and hit ranges', () => {
    const p = preview(db, ids.report, 'budget quarters', ALL)!;
    expect(p).toMatchObject({
      id: ids.report,
      title: 'Quarterly report',
      author: 'Bob Jones',
      keywords: 'finance, budget',
      type: 'application/pdf',
      truncated: false,
    });
    expect(p.text).toBe('Revenue grew. The budget for the next quarter is attached.');
    expect(p.hits.map(([s, e]) => p.text.slice(s, e))).toEqual(['budget', 'quarter']);
  });

  it('has no hits without a query or with a malformed one', () => {
    expect(preview(db, ids.report, undefined, ALL)!.hits).toEqual([]);
    expect(preview(db, ids.report, '-budget', ALL)!.hits).toEqual([]);
  });
});
