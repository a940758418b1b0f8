import { describe, expect, it } from 'vitest';
import { HitMatcher, highlightTermsOf, makeSnippet, markHits, stemWord } from './highlight.js';

const marked = (terms: Parameters<typeof highlightTermsOf>[0], text: string, prefix = false): string =>
  markHits(text, new HitMatcher(highlightTermsOf(terms, prefix)).find(text));

describe('HitMatcher', () => {
  it('matches by stem, case and diacritics as the index does', () => {
    expect(marked('encouraging', 'We ENCOURAGE it; encouragement is not encouraged.')).toBe(
      'We <mark>ENCOURAGE</mark> it; <mark>encouragement</mark> is not <mark>encouraged</mark>.',
    );
    expect(marked('cafe', 'Café, CAFÉ, cafés and cafeteria')).toBe(
      '<mark>Café</mark>, <mark>CAFÉ</mark>, <mark>cafés</mark> and cafeteria',
    );
    expect(marked('happy', 'happiness, happily, happy')).toBe(
      '<mark>happiness</mark>, happily, <mark>happy</mark>',
    );
    expect(stemWord('Possibility')).toBe(stemWord('possible'));
    expect(marked('possible', 'possibility')).toBe('<mark>possibility</mark>');
  });

  it('respects word boundaries and marks whole words for prefixes', () => {
    expect(marked('port', 'report portal port')).toBe('report portal <mark>port</mark>');
    expect(marked('port', 'report portal port', true)).toBe('report <mark>portal</mark> <mark>port</mark>');
    expect(marked('report', 'report_2024 report-final')).toBe(
      '<mark>report</mark>_2024 <mark>report</mark>-final',
    );
  });

  it('matches CJK as substrings, next to Latin text', () => {
    expect(marked('搜索', '企业级搜索协议abc搜索')).toBe('企业级<mark>搜索</mark>协议abc<mark>搜索</mark>');
    expect(marked('abc', '中文abc中文')).toBe('中文<mark>abc</mark>中文');
  });

  it('numbers hits by distinct term and honours limits', () => {
    const m = new HitMatcher(highlightTermsOf('alpha beta', false));
    const hits = m.find('alpha beta alpha beta alpha');
    expect(hits.map((h) => h.term)).toEqual([0, 1, 0, 1, 0]);
    expect(m.find('alpha beta alpha beta alpha', 2)).toHaveLength(2);
    expect(m.find('alpha beta alpha beta alpha', Infinity, 7)).toHaveLength(2);
    expect(new HitMatcher([]).find('anything')).toEqual([]);
  });
});

describe('makeSnippet', () => {
  it('escapes all HTML, including quotes, and only emits <mark> tags', () => {
    const text = `<img src=x onerror="alert('x')"> & report`;
    const s = makeSnippet(text, new HitMatcher(highlightTermsOf('report', false)).find(text));
    expect(s).toBe('&lt;img src=x onerror=&quot;alert(&#39;x&#39;)&quot;&gt; &amp; <mark>report</mark>');
  });

  it('never cuts a surrogate pair and collapses whitespace', () => {
    const text = `${'😀'.repeat(150)} target\n\n\tend`;
    const s = makeSnippet(text, new HitMatcher(highlightTermsOf('target', false)).find(text), { width: 40 });
    expect(s).toContain('<mark>target</mark> end');
    expect(s).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/);
  });

  it('shows the words before a hit, from the start of its line or of a word', () => {
    const snippet = (text: string, term: string) =>
      makeSnippet(text, new HitMatcher(highlightTermsOf(term, false)).find(text), { width: 80 });
    const prose = `${'lorem ipsum dolor sit amet '.repeat(10)}the ferry leaves at dawn and the lighthouse keeps the time`;
    expect(snippet(prose, 'lighthouse')).toBe(
      '…amet the ferry leaves at dawn and the <mark>lighthouse</mark> keeps the time',
    );
    const lines = `Camera: Canon EOS 5D Mark IV\nPlace: Skeppsholmen, Stockholm\nPeople: Ingrid Lindqvist, Olof Berg\nSize: 96 × 64`;
    expect(snippet(`${'x '.repeat(100)}${lines}`, 'lindqvist')).toMatch(
      /^…People: Ingrid <mark>Lindqvist<\/mark>, Olof Berg/,
    );
  });

  it('starts at the beginning without hits', () => {
    expect(makeSnippet('short text', [])).toBe('short text');
    expect(makeSnippet('', [])).toBe('');
    expect(makeSnippet('word '.repeat(100), [], { width: 20 })).toMatch(/^word word word word…$/);
  });
});

describe('agreement with the index tokenizer', () => {
  it('marks a word exactly when FTS5 (porter unicode61 remove_diacritics 2) matches it', async () => {
    const { default: Database } = await import('better-sqlite3');
    const db = new Database(':memory:');
    db.exec(`CREATE VIRTUAL TABLE t USING fts5(body, tokenize = 'porter unicode61 remove_diacritics 2')`);
    const words = [
      'encourage',
      'encouraging',
      'encouragement',
      'happy',
      'happiness',
      'happily',
      'possible',
      'possibility',
      'relational',
      'relate',
      'running',
      'runner',
      'generalization',
      'general',
      'café',
      'cafes',
      'naïve',
      'naive',
      'Über',
      'uber',
      'connection',
      'connected',
      'hopping',
      'hope',
      'organization',
      'organ',
      'sky',
      'skies',
    ];
    const ins = db.prepare('INSERT INTO t (rowid, body) VALUES (?, ?)');
    words.forEach((w, i) => ins.run(i + 1, w));
    const q = db.prepare('SELECT rowid FROM t WHERE t MATCH ?').pluck();
    for (const query of words) {
      const byIndex = new Set((q.all(`"${query}"`) as number[]).map((id) => words[id - 1]));
      const matcher = new HitMatcher(highlightTermsOf(query, false));
      const byMatcher = new Set(words.filter((w) => matcher.find(w).length > 0));
      expect([...byMatcher].sort(), query).toEqual([...byIndex].sort());
    }
    db.close();
  });
});
