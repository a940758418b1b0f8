import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { highlightTerms, parseMarkedSnippet, splitByRanges, unescapeHtml } from './marked-text.js';
import { shortenPath } from './format.js';

const escape = (s: string) =>
  s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');

describe('parseMarkedSnippet', () => {
  it('only <mark> is structure; every other tag stays literal text', () => {
    expect(parseMarkedSnippet('a <mark>hit</mark> &lt;img onerror=x&gt; <b>b</b> &amp;amp;')).toEqual([
      { text: 'a ', hit: false },
      { text: 'hit', hit: true },
      { text: ' <img onerror=x> <b>b</b> &amp;', hit: false },
    ]);
    expect(parseMarkedSnippet('<MARK>x</MARK>')).toEqual([{ text: '<MARK>x</MARK>', hit: false }]);
    expect(parseMarkedSnippet('&#x3c;script&#62; &bogus; &#0;')).toEqual([
      { text: '<script> &bogus; &#0;', hit: false },
    ]);
  });

  it('round-trips any escaped text with marks around chosen parts (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.string(), fc.boolean()), { maxLength: 8 }), (parts) => {
        const html = parts
          .map(([text, hit]) => (hit ? `<mark>${escape(text)}</mark>` : escape(text)))
          .join('');
        const segments = parseMarkedSnippet(html);
        expect(segments.map((s) => s.text).join('')).toBe(parts.map(([t]) => t).join(''));
        const marked = parts
          .filter(([t, hit]) => hit && t !== '')
          .map(([t]) => t)
          .join('');
        expect(
          segments
            .filter((s) => s.hit)
            .map((s) => s.text)
            .join(''),
        ).toBe(marked);
      }),
    );
  });

  it('unescapes the standard entities', () => {
    expect(unescapeHtml('&lt;&gt;&amp;&quot;&#39;&apos;&#x1F600;')).toBe(`<>&"''😀`);
  });
});

describe('splitByRanges', () => {
  it('normalises unsorted, overlapping and out-of-range ranges', () => {
    expect(
      splitByRanges('hello world', [
        [6, 11],
        [0, 2],
        [1, 4],
        [20, 30],
        [5, 5],
      ]),
    ).toEqual([
      { text: 'hell', hit: true },
      { text: 'o ', hit: false },
      { text: 'world', hit: true },
    ]);
    expect(splitByRanges('', [[0, 3]])).toEqual([]);
  });
});

describe('highlightTerms', () => {
  it('marks case-insensitive occurrences, including CJK', () => {
    expect(highlightTerms('Search the SEARCH', ['search'])).toEqual([
      { text: 'Search', hit: true },
      { text: ' the ', hit: false },
      { text: 'SEARCH', hit: true },
    ]);
    expect(highlightTerms('企业级搜索协议', ['搜索'])).toEqual([
      { text: '企业级', hit: false },
      { text: '搜索', hit: true },
      { text: '协议', hit: false },
    ]);
    expect(highlightTerms('plain', [])).toEqual([{ text: 'plain', hit: false }]);
  });
});

describe('shortenPath', () => {
  it('keeps the head and as many trailing segments as fit', () => {
    const p = '/home/alice/projects/trawl/src/renderer/src/search/result-list.tsx';
    const short = shortenPath(p, 40);
    expect(short.length).toBeLessThanOrEqual(40);
    expect(short.startsWith('/home/…/')).toBe(true);
    expect(short.endsWith('search/result-list.tsx')).toBe(true);
    expect(shortenPath('/short/path.txt', 40)).toBe('/short/path.txt');
    expect(shortenPath('/home/alice/Documents/x.txt', 80, '/home/alice')).toBe('~/Documents/x.txt');
    const url = shortenPath('https://intranet.example.com/teams/sales/reports/2024/q3/summary.html', 48);
    expect(url.startsWith('https://intranet.example.com/…/')).toBe(true);
    expect(url.length).toBeLessThanOrEqual(48);
    expect(shortenPath('/' + 'x'.repeat(100), 30).length).toBe(30);
  });
});
