import { describe, expect, it } from 'vitest';
import { compileQuery, dateRange } from './query-compiler.js';
import { parseQuery, QuerySyntaxError } from './query-parser.js';

const NOW = new Date(2024, 5, 15, 13, 30).getTime(); // 15 June 2024, 13:30 local

function c(q: string, sourceNames?: Map<string, number>) {
  const ast = parseQuery(q);
  if (!ast) throw new Error('empty');
  return compileQuery(ast, { now: NOW, sourceNames });
}

describe('compileQuery: MATCH expressions', () => {
  it('quotes every word as an FTS5 string', () => {
    expect(c('annual report').match).toBe('"annual" AND "report"');
    expect(c('say "hi" there').match).toBe('"say" AND "hi" AND "there"');
    expect(c('NEAR(a b)').match).toBe('"NEAR" AND ("a" AND "b")');
    expect(c('AND').match).toBe('"AND"');
    expect(c('a"b').match).toBe('"a" AND "b"');
  });

  it('doubles quotes inside phrases and keeps FTS5 operators inert', () => {
    expect(c('x:"a NOT b"').match).toBe('"x:" AND "a NOT b"');
    expect(c('ab"c').match).toBe('"ab" AND "c"');
  });

  it('writes phrases, prefixes, OR groups and column filters', () => {
    expect(c('"exact phrase"').match).toBe('"exact phrase"');
    expect(c('repo*').match).toBe('"repo"*');
    expect(c('(a OR b) c').match).toBe('("a" OR "b") AND "c"');
    expect(c('title:report').match).toBe('{title} : "report"');
    expect(c('path:"docs 2024"').match).toBe('{url} : "docs 2024"');
  });

  it('puts text negations behind NOT', () => {
    expect(c('report -draft -"old copy"').match).toBe('("report") NOT ("draft" OR "old copy")');
    expect(c('report -(a b)').match).toBe('("report") NOT (("a" AND "b"))');
    expect(c('(a -b) OR c').match).toBe('((("a") NOT ("b")) OR "c")');
  });

  it('turns CJK words into phrases of bigrams, and one CJK character into a prefix', () => {
    expect(c('协议处理程序').match).toBe('"协议 议处 处理 理程 程序"');
    expect(c('搜索').match).toBe('"搜索"');
    expect(c('协').match).toBe('"协"*');
    expect(c('abc中文').match).toBe('"abc 中文"');
    expect(c('"企业级 搜索"').match).toBe('"企业 业级 搜索"');
  });

  it('reduces pasted URLs to the words the index holds for them', () => {
    expect(c('https://intranet.example/docs/a_b.html').match).toBe('"intranet example docs a b html"');
  });
});

describe('compileQuery: filters become SQL with bound parameters', () => {
  it('lists documents by filters alone, without MATCH', () => {
    const q = c('ext:pdf');
    expect(q.match).toBeNull();
    expect(q.conditions).toEqual([{ sql: 'd.ext = ?', params: ['pdf'] }]);
  });

  it('maps each filter', () => {
    expect(c('ext:pdf,docx x').conditions).toEqual([{ sql: 'd.ext IN (?, ?)', params: ['pdf', 'docx'] }]);
    expect(c('type:image/* x').conditions).toEqual([{ sql: '(d.mime LIKE ?)', params: ['image/%'] }]);
    expect(c('author:"O\'Neil_%" x').conditions).toEqual([
      { sql: "d.author LIKE ? ESCAPE '\\'", params: ["%O'Neil\\_\\%%"] },
    ]);
    expect(c('source:7 x').conditions).toEqual([{ sql: 'd.source_id = ?', params: [7] }]);
    expect(c('source:Docs x', new Map([['docs', 3]])).conditions).toEqual([
      { sql: 'd.source_id = ?', params: [3] },
    ]);
    expect(c('source:Other x').conditions[0].sql).toContain(
      'SELECT id FROM sources WHERE name = ? COLLATE NOCASE',
    );
    expect(c('size:>1kb x').conditions).toEqual([{ sql: '(d.size >= ?)', params: [1025] }]);
  });

  it('resolves dates in local time, day-precise', () => {
    const day = (y: number, m: number, d: number) => new Date(y, m - 1, d).getTime();
    expect(c('modified:>2024-01-01 x').conditions[0].params).toEqual([day(2024, 1, 2)]);
    expect(c('modified:>=2024-01-01 x').conditions[0].params).toEqual([day(2024, 1, 1)]);
    expect(c('modified:<2024-01-01 x').conditions[0]).toEqual({
      sql: '(d.mtime < ?)',
      params: [day(2024, 1, 1)],
    });
    expect(c('modified:<=2024-01 x').conditions[0].params).toEqual([day(2024, 2, 1)]);
    expect(c('modified:2024-01-01..2024-02-01 x').conditions[0]).toEqual({
      sql: '(d.mtime >= ? AND d.mtime < ?)',
      params: [day(2024, 1, 1), day(2024, 2, 2)],
    });
    expect(c('modified:today x').conditions[0].params).toEqual([day(2024, 6, 15)]);
    expect(c('modified:week x').conditions[0].params).toEqual([day(2024, 6, 9)]);
    expect(c('modified:month x').conditions[0].params).toEqual([day(2024, 5, 15)]);
    expect(c('modified:year x').conditions[0].params).toEqual([day(2023, 6, 15)]);
    expect(dateRange({ kind: 'relative', name: 'yesterday' }, NOW)).toEqual({
      start: day(2024, 6, 14),
      end: day(2024, 6, 15),
    });
  });

  it('keeps text mixed with filters under OR as full-text subqueries', () => {
    const q = c('report (budget OR ext:xlsx)');
    expect(q.match).toBe('"report"');
    expect(q.conditions).toEqual([
      {
        sql: '(d.id IN (SELECT rowid FROM fts WHERE fts MATCH ?) OR d.ext = ?)',
        params: ['"budget"', 'xlsx'],
      },
    ]);
  });

  it('excludes text from a filter-only query with NOT IN', () => {
    const q = c('ext:pdf -draft');
    expect(q.match).toBeNull();
    expect(q.conditions).toEqual([
      { sql: 'd.ext = ?', params: ['pdf'] },
      { sql: 'd.id NOT IN (SELECT rowid FROM fts WHERE fts MATCH ?)', params: ['"draft"'] },
    ]);
    expect(c('report -ext:tmp').conditions).toEqual([{ sql: 'NOT (d.ext = ?)', params: ['tmp'] }]);
  });
});

describe('compileQuery: errors and the sentence-query fallback', () => {
  it('rejects a query that only excludes, with a hint', () => {
    for (const q of ['-draft', '-a -b', 'NOT x', '-ext:pdf', '-(a OR b)']) {
      expect(() => c(q), q).toThrow(QuerySyntaxError);
    }
    expect(() => c('-draft')).toThrow(/only excludes: add a word or a filter/);
  });

  it('relaxes multi-word queries to their non-stop words, keeping negations', () => {
    const q = c('how do I configure the proxy -squid');
    expect(q.relaxedMatch).toBe(
      '(("configure" OR "proxy") NOT ("how" AND "do" AND "I" AND "configure" AND "the" AND "proxy")) NOT ("squid")',
    );
    expect(c('the who').relaxedMatch).toBe('(("the" OR "who") NOT ("the" AND "who"))');
    expect(c('single').relaxedMatch).toBeNull();
    expect(c('a OR b').relaxedMatch).toBeNull();
  });

  it('keeps field-scoped words in every relaxed match: only free words are relaxed', () => {
    expect(c('path:2024 quarterly invoice').relaxedMatch).toBe(
      '(({url} : "2024" AND ("quarterly" OR "invoice")) NOT ({url} : "2024" AND "quarterly" AND "invoice"))',
    );
    // One free word leaves nothing to relax.
    expect(c('title:budget review').relaxedMatch).toBeNull();
    expect(c('title:budget path:2024').relaxedMatch).toBeNull();
  });

  it('reports the positive terms, and marks no stop words when others exist', () => {
    const q = c('how to configure "proxy server" -squid title:setup*');
    expect(q.terms).toEqual(['how', 'to', 'configure', 'proxy server', 'setup']);
    expect(q.highlight).toEqual([
      { kind: 'word', text: 'configure' },
      { kind: 'word', text: 'proxy' },
      { kind: 'word', text: 'server' },
      { kind: 'prefix', text: 'setup' },
    ]);
  });
});
