import { describe, expect, it } from 'vitest';
import { parseQuery, QuerySyntaxError, type QueryNode } from './query-parser.js';

/** A compact rendering of the tree, so expectations read like the query language. */
function show(n: QueryNode | null): string {
  if (!n) return '∅';
  switch (n.type) {
    case 'term':
      return `${n.field ? `${n.field}:` : ''}${n.text}${n.prefix ? '*' : ''}`;
    case 'phrase':
      return `${n.field ? `${n.field}:` : ''}"${n.text}"${n.prefix ? '*' : ''}`;
    case 'and':
      return `AND(${n.children.map(show).join(' ')})`;
    case 'or':
      return `OR(${n.children.map(show).join(' ')})`;
    case 'not':
      return `-${show(n.child)}`;
    case 'filter':
      return `[${JSON.stringify(n.filter)}]`;
  }
}

const p = (q: string): string => show(parseQuery(q));

function syntaxError(q: string): QuerySyntaxError {
  try {
    parseQuery(q);
  } catch (e) {
    expect(e).toBeInstanceOf(QuerySyntaxError);
    return e as QuerySyntaxError;
  }
  throw new Error(`expected a QuerySyntaxError for ${q}`);
}

describe('parseQuery: basic syntax', () => {
  it('ANDs words by default', () => {
    expect(p('annual report')).toBe('AND(annual report)');
    expect(p('  single  ')).toBe('single');
  });

  it('reads exact phrases, also with a prefix star', () => {
    expect(p('"exact phrase" more')).toBe('AND("exact phrase" more)');
    expect(p('"quarterly rep"*')).toBe('"quarterly rep"*');
  });

  it('reads negation of words, phrases and groups', () => {
    expect(p('report -draft')).toBe('AND(report -draft)');
    expect(p('report -"first draft"')).toBe('AND(report -"first draft")');
    expect(p('report -(draft OR old)')).toBe('AND(report -OR(draft old))');
    expect(p('report NOT draft')).toBe('AND(report -draft)');
  });

  it('keeps hyphenated words whole: only a leading - negates', () => {
    expect(p('e-mail follow-up')).toBe('AND(e-mail follow-up)');
  });

  it('reads OR and | with AND binding tighter', () => {
    expect(p('a b OR c')).toBe('OR(AND(a b) c)');
    expect(p('a | b')).toBe('OR(a b)');
    expect(p('a||b')).toBe('OR(a b)');
    expect(p('a AND b')).toBe('AND(a b)');
  });

  it('reads parentheses, nested', () => {
    expect(p('(a OR b) c')).toBe('AND(OR(a b) c)');
    expect(p('((a OR b) (c OR d))')).toBe('AND(OR(a b) OR(c d))');
  });

  it('reads prefix*', () => {
    expect(p('repo*')).toBe('repo*');
    expect(p('repo** x')).toBe('AND(repo* x)');
  });

  it('treats lowercase and/or/not as words', () => {
    expect(p('to be or not to be')).toBe('AND(to be or not to be)');
  });
});

describe('parseQuery: fields', () => {
  it('maps text fields to index columns', () => {
    expect(p('title:report')).toBe('title:report');
    expect(p('path:invoices')).toBe('url:invoices');
    expect(p('url:intranet')).toBe('url:intranet');
    expect(p('title:"annual report"')).toBe('title:"annual report"');
    expect(p('title:(annual OR yearly) report')).toBe('AND(OR(title:annual title:yearly) report)');
    expect(p('title:rep*')).toBe('title:rep*');
    expect(p('Title:Report')).toBe('title:Report');
  });

  it('reads ext/type lists and MIME types', () => {
    expect(p('ext:pdf')).toBe('[{"field":"ext","values":["pdf"]}]');
    expect(p('ext:.PDF,docx')).toBe('[{"field":"ext","values":["pdf","docx"]}]');
    expect(p('type:pdf')).toBe('[{"field":"ext","values":["pdf"]}]');
    expect(p('type:text/html')).toBe('[{"field":"mime","values":["text/html"]}]');
    expect(p('type:image/*')).toBe('[{"field":"mime","values":["image/*"]}]');
  });

  it('reads author and source, with quoted values', () => {
    expect(p('author:smith')).toBe('[{"field":"author","text":"smith"}]');
    expect(p('author:"Ann Smith"')).toBe('[{"field":"author","text":"Ann Smith"}]');
    expect(p('source:2')).toBe('[{"field":"source","value":"2"}]');
    expect(p('source:"My Documents"')).toBe('[{"field":"source","value":"My Documents"}]');
  });

  it('reads modified: comparisons, ranges, partial dates and periods', () => {
    expect(p('modified:>2024-01-01')).toBe(
      '[{"field":"modified","op":">","a":{"kind":"date","y":2024,"m":1,"d":1}}]',
    );
    expect(p('modified:<=2024-02')).toBe(
      '[{"field":"modified","op":"<=","a":{"kind":"date","y":2024,"m":2}}]',
    );
    expect(p('modified:>=2023')).toBe('[{"field":"modified","op":">=","a":{"kind":"date","y":2023}}]');
    expect(p('modified:2024-01-01..2024-02-01')).toBe(
      '[{"field":"modified","op":"range","a":{"kind":"date","y":2024,"m":1,"d":1},"b":{"kind":"date","y":2024,"m":2,"d":1}}]',
    );
    for (const name of ['today', 'yesterday', 'week', 'month', 'year']) {
      expect(p(`modified:${name}`)).toBe(
        `[{"field":"modified","op":"=","a":{"kind":"relative","name":"${name}"}}]`,
      );
    }
  });

  it('reads size: with units and comparisons', () => {
    expect(p('size:>1mb')).toBe(`[{"field":"size","min":${1024 * 1024 + 1},"max":null}]`);
    expect(p('size:>=1mb')).toBe(`[{"field":"size","min":${1024 * 1024},"max":null}]`);
    expect(p('size:<10kb')).toBe(`[{"field":"size","min":null,"max":${10 * 1024 - 1}}]`);
    expect(p('size:<=2GB')).toBe(`[{"field":"size","min":null,"max":${2 * 1024 ** 3}}]`);
    expect(p('size:1.5kb..2mb')).toBe(`[{"field":"size","min":1536,"max":${2 * 1024 ** 2}}]`);
    expect(p('size:=100')).toBe('[{"field":"size","min":100,"max":100}]');
  });

  it('searches unknown fields, drive letters and URLs literally', () => {
    expect(p('foo:bar')).toBe('foo:bar');
    expect(p('C:\\Users\\ann')).toBe('C:\\Users\\ann');
    expect(p('https://intranet/x')).toBe('https://intranet/x');
  });
});

describe('parseQuery: malformed input becomes a literal search', () => {
  it('closes an unclosed quote or parenthesis at the end', () => {
    expect(p('"exact phr')).toBe('"exact phr"');
    expect(p('(a OR b')).toBe('OR(a b)');
    expect(p('x (a (b')).toBe('AND(x AND(a b))');
  });

  it('ignores dangling and doubled OR/AND', () => {
    expect(p('cats OR')).toBe('cats');
    expect(p('OR cats')).toBe('cats');
    expect(p('a OR OR b')).toBe('OR(a b)');
    expect(p('a AND AND b')).toBe('AND(a b)');
    expect(p('a OR AND b')).toBe('AND(a b)');
    expect(p('(OR a)')).toBe('a');
  });

  it('searches operator words as words when nothing else is there', () => {
    expect(p('OR')).toBe('OR');
    expect(p('AND')).toBe('AND');
    expect(p('NOT')).toBe('NOT');
    expect(p('OR OR')).toBe('AND(OR OR)');
  });

  it('ignores a lone -, +, *, ^, :, NEAR( and bare punctuation', () => {
    expect(p('a - b')).toBe('AND(a b)');
    expect(p('a -')).toBe('a');
    expect(p('+a')).toBe('a');
    expect(p('* a')).toBe('a');
    expect(p('a ^ b')).toBe('AND(a b)');
    expect(p(': a')).toBe('a');
    expect(p('NEAR(a b)')).toBe('AND(NEAR AND(a b))');
    expect(p('a^2')).toBe('a^2');
    expect(p('{title}: x')).toBe('AND({title}: x)');
    expect(p('"')).toBe('∅');
    expect(p('*')).toBe('∅');
    expect(p('()')).toBe('∅');
    expect(p('!!! ???')).toBe('∅');
  });

  it('reads a doubled minus as no negation (searching for --flags)', () => {
    expect(p('a --b')).toBe('AND(a b)');
    expect(p('a ---b')).toBe('AND(a -b)');
    expect(p('a -+b')).toBe('AND(a -b)');
  });
});

describe('parseQuery: errors say where and what to do', () => {
  it('rejects a stray closing parenthesis', () => {
    const e = syntaxError('a b) c');
    expect(e.position).toBe(3);
    expect(e.message).toMatch(/Unmatched '\)' at position 4: remove it/);
  });

  it('rejects a field without a value', () => {
    expect(syntaxError('title: report').message).toMatch(
      /'title:' at position 1 needs a value.*title:report/,
    );
    expect(syntaxError('a ext:').message).toMatch(/'ext:' at position 3 needs a value.*ext:pdf/);
  });

  it('rejects unreadable dates with the accepted forms', () => {
    const e = syntaxError('report modified:>banana');
    expect(e.position).toBe(16);
    expect(e.message).toMatch(/Can't read the date '>banana'.*YYYY-MM-DD/);
    expect(() => parseQuery('modified:2024-13-01')).toThrow(QuerySyntaxError);
    expect(() => parseQuery('modified:2023-02-29')).toThrow(QuerySyntaxError);
    expect(() => parseQuery('modified:2024-01-01..')).toThrow(QuerySyntaxError);
  });

  it('rejects unreadable sizes, and sizes without a comparison', () => {
    expect(syntaxError('size:>lots').message).toMatch(/Can't read the size '>lots'.*size:>1mb/);
    expect(() => parseQuery('size:1mb')).toThrow(/needs|comparison|Can't read/);
    expect(() => parseQuery('size:>1zb')).toThrow(QuerySyntaxError);
  });

  it('rejects a type: list mixing extensions and MIME types', () => {
    expect(() => parseQuery('type:pdf,text/html')).toThrow(/mixes extensions and MIME types/);
  });
});
