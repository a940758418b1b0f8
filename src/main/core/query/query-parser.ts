/**
 * Trawl's query language → syntax tree. Hand-written so that every input has a defined outcome:
 * a tree, or a {@link QuerySyntaxError} whose message says where the problem is and what to type
 * instead. Nothing the user types ever reaches SQLite as syntax (see query-compiler.ts).
 *
 * The language (docs/QUERY.md): words are ANDed; `"exact phrase"`; `-word`, `-"phrase"`, `-(…)`,
 * `NOT word`; `OR` or `|`; parentheses; `prefix*`; fields `title:` `path:`/`url:` `keywords:`
 * `description:` `author:` `ext:`/`type:` `source:` `modified:` `size:`.
 *
 * Leniency, chosen for search-as-you-type: an unclosed quote or parenthesis is closed at the end;
 * a dangling or doubled `OR`/`AND`, a lone `-`, `*` or punctuation are ignored; `OR`, `AND`,
 * `NOT` typed where no operator fits are searched as words. Errors: a stray `)`, a field without
 * a value, an unreadable date or size, and a query with nothing to look for.
 */

/** A query the parser or compiler rejects. `position` is the 0-based offset of the problem. */
export class QuerySyntaxError extends Error {
  override readonly name = 'QuerySyntaxError';
  constructor(
    message: string,
    readonly position: number,
  ) {
    super(message);
  }
}

/** Full-text columns a term can be restricted to. */
export type TextField = 'title' | 'keywords' | 'description' | 'url';

/** A calendar date (local time) of year, month or day precision, or a relative period. */
export type DateSpec =
  | { kind: 'date'; y: number; m?: number; d?: number }
  | { kind: 'relative'; name: 'today' | 'yesterday' | 'week' | 'month' | 'year' };

export type Comparison = '>' | '>=' | '<' | '<=' | '=';

/** Field filters: conditions on document properties, evaluated in SQL. */
export type FilterSpec =
  | { field: 'ext'; values: string[] }
  | { field: 'mime'; values: string[] }
  | { field: 'author'; text: string }
  | { field: 'source'; value: string }
  | { field: 'modified'; op: Comparison | 'range'; a: DateSpec; b?: DateSpec }
  /** Inclusive byte bounds. */
  | { field: 'size'; min: number | null; max: number | null };

export type QueryNode =
  | { type: 'term'; text: string; prefix: boolean; field: TextField | null; pos: number }
  | { type: 'phrase'; text: string; prefix: boolean; field: TextField | null; pos: number }
  | { type: 'and'; children: QueryNode[] }
  | { type: 'or'; children: QueryNode[] }
  | { type: 'not'; child: QueryNode }
  | { type: 'filter'; filter: FilterSpec; pos: number };

const TEXT_FIELDS: Record<string, TextField> = {
  title: 'title',
  path: 'url',
  url: 'url',
  keywords: 'keywords',
  keyword: 'keywords',
  description: 'description',
};
const FILTER_FIELDS = new Set(['ext', 'type', 'author', 'source', 'modified', 'size']);

/** Letters or digits: a word without them has nothing for the index to match. */
const SEARCHABLE = /[\p{L}\p{N}]/u;

type Tok =
  | { k: 'word'; text: string; pos: number }
  | { k: 'phrase'; text: string; prefix: boolean; pos: number }
  | { k: 'field'; name: string; value: string; pos: number }
  | { k: 'lparen'; pos: number }
  | { k: 'rparen'; pos: number }
  | { k: 'minus'; pos: number }
  | { k: 'or'; pos: number; raw: string }
  | { k: 'and'; pos: number; raw: string }
  | { k: 'not'; pos: number; raw: string };

const DELIM = new Set(['(', ')', '"', '|']);
const isSpace = (c: string): boolean => /\s/u.test(c);

function lex(input: string): Tok[] {
  const toks: Tok[] = [];
  let i = 0;
  const n = input.length;
  while (i < n) {
    const c = input[i];
    if (isSpace(c)) {
      i++;
    } else if (c === '(') {
      toks.push({ k: 'lparen', pos: i++ });
    } else if (c === ')') {
      toks.push({ k: 'rparen', pos: i++ });
    } else if (c === '|') {
      const pos = i;
      while (input[i] === '|') i++;
      toks.push({ k: 'or', pos, raw: input.slice(pos, i) });
    } else if (c === '"') {
      const pos = i;
      const close = input.indexOf('"', i + 1);
      const end = close < 0 ? n : close;
      const text = input.slice(i + 1, end);
      i = close < 0 ? n : close + 1;
      let prefix = false;
      while (input[i] === '*') {
        prefix = true;
        i++;
      }
      toks.push({ k: 'phrase', text, prefix, pos });
    } else if ((c === '-' || c === '+') && atTokenStart(input, i)) {
      // `-x` negates (`--x` does not); `+x` (required, as in other engines) is what AND means.
      const pos = i;
      let minuses = 0;
      while (input[i] === '-' || input[i] === '+') if (input[i++] === '-') minuses++;
      if (minuses % 2 === 1 && i < n && !isSpace(input[i])) toks.push({ k: 'minus', pos });
    } else {
      const pos = i;
      while (i < n && !isSpace(input[i]) && !DELIM.has(input[i])) i++;
      pushWord(toks, input.slice(pos, i), pos);
    }
  }
  return toks;
}

function atTokenStart(input: string, i: number): boolean {
  return i === 0 || isSpace(input[i - 1]) || input[i - 1] === '(';
}

function pushWord(toks: Tok[], text: string, pos: number): void {
  if (text === 'OR' || text === 'AND' || text === 'NOT') {
    toks.push({ k: text.toLowerCase() as 'or' | 'and' | 'not', pos, raw: text });
    return;
  }
  if (text === '&&') {
    toks.push({ k: 'and', pos, raw: text });
    return;
  }
  const m = /^([a-z]+):(.*)$/is.exec(text);
  if (m) {
    const name = m[1].toLowerCase();
    if (name in TEXT_FIELDS || FILTER_FIELDS.has(name)) {
      toks.push({ k: 'field', name, value: m[2], pos });
      return;
    }
  }
  toks.push({ k: 'word', text, pos });
}

/** Parse a query. Throws {@link QuerySyntaxError}; never anything else. */
export function parseQuery(input: string): QueryNode | null {
  return new Parser(input, lex(input)).parse();
}

class Parser {
  private i = 0;
  private readonly toks: Tok[];

  constructor(
    private readonly input: string,
    toks: Tok[],
  ) {
    this.toks = resolveKeywords(toks);
  }

  parse(): QueryNode | null {
    const node = this.parseOr(0);
    if (this.i < this.toks.length) {
      const t = this.toks[this.i];
      throw new QuerySyntaxError(
        `Unmatched ')' at position ${t.pos + 1}: remove it, or add a '(' before it.`,
        t.pos,
      );
    }
    return node;
  }

  private peek(): Tok | undefined {
    return this.toks[this.i];
  }

  private parseOr(depth: number): QueryNode | null {
    const alts: QueryNode[] = [];
    for (;;) {
      const a = this.parseAnd(depth);
      if (a) alts.push(a);
      const t = this.peek();
      if (t?.k === 'or') {
        this.i++;
        continue;
      }
      break;
    }
    if (alts.length === 0) return null;
    return alts.length === 1 ? alts[0] : { type: 'or', children: alts };
  }

  private parseAnd(depth: number): QueryNode | null {
    const parts: QueryNode[] = [];
    for (;;) {
      const t = this.peek();
      if (!t || t.k === 'or') break;
      if (t.k === 'rparen') {
        if (depth > 0) break;
        throw new QuerySyntaxError(
          `Unmatched ')' at position ${t.pos + 1}: remove it, or add a '(' before it.`,
          t.pos,
        );
      }
      if (t.k === 'and') {
        this.i++;
        continue;
      }
      const u = this.parseUnary(depth);
      if (u) parts.push(u);
    }
    if (parts.length === 0) return null;
    return parts.length === 1 ? parts[0] : { type: 'and', children: parts };
  }

  private parseUnary(depth: number): QueryNode | null {
    const t = this.peek()!;
    if (t.k === 'minus' || t.k === 'not') {
      this.i++;
      const next = this.peek();
      if (!next || next.k === 'or' || next.k === 'rparen' || next.k === 'and') return null;
      const child = this.parseUnary(depth);
      if (!child) return null;
      return child.type === 'not' ? child.child : { type: 'not', child };
    }
    return this.parsePrimary(depth, null);
  }

  private parsePrimary(depth: number, field: TextField | null): QueryNode | null {
    const t = this.toks[this.i++];
    switch (t.k) {
      case 'word':
        return wordNode(t.text, t.pos, field);
      case 'phrase':
        return SEARCHABLE.test(t.text)
          ? { type: 'phrase', text: t.text.trim(), prefix: t.prefix, field, pos: t.pos }
          : null;
      case 'lparen': {
        const inner = this.parseOr(depth + 1);
        if (this.peek()?.k === 'rparen') this.i++;
        return inner && field ? withField(inner, field) : inner;
      }
      case 'field':
        return this.parseField(t, depth);
      default:
        // Keywords were resolved to operators or words; anything else here is a stray operator.
        return null;
    }
  }

  private parseField(t: Extract<Tok, { k: 'field' }>, depth: number): QueryNode | null {
    const textField = TEXT_FIELDS[t.name];
    let value = t.value;
    let valuePos = t.pos + t.name.length + 1;
    const next = this.peek();
    const glued = value === '' && next && next.pos === valuePos;
    if (textField) {
      if (glued && (next.k === 'phrase' || next.k === 'lparen')) {
        const node = this.parsePrimary(depth, textField);
        if (!node) throw emptyField(t);
        return node;
      }
      if (!SEARCHABLE.test(value)) throw emptyField(t);
      return wordNode(value, valuePos, textField);
    }
    if (glued && next.k === 'phrase') {
      this.i++;
      value = next.text;
      valuePos = next.pos + 1;
    }
    if (value.trim() === '') throw emptyField(t);
    return { type: 'filter', filter: parseFilter(t.name, value.trim(), valuePos), pos: t.pos };
  }
}

function emptyField(t: Extract<Tok, { k: 'field' }>): QuerySyntaxError {
  return new QuerySyntaxError(
    `'${t.name}:' at position ${t.pos + 1} needs a value right after the colon, e.g. ${FIELD_EXAMPLES[t.name] ?? `${t.name}:report`}.`,
    t.pos,
  );
}

const FIELD_EXAMPLES: Record<string, string> = {
  ext: 'ext:pdf or ext:pdf,docx',
  type: 'type:pdf or type:text/html',
  author: 'author:smith or author:"Ann Smith"',
  source: 'source:2 or source:Documents',
  modified: 'modified:>2024-01-01, modified:2024-01..2024-03 or modified:week',
  size: 'size:>1mb, size:<10kb or size:1mb..5mb',
  title: 'title:report or title:"annual report"',
  path: 'path:invoices',
  url: 'url:intranet',
};

function wordNode(raw: string, pos: number, field: TextField | null): QueryNode | null {
  let text = raw;
  let prefix = false;
  if (/\*+$/.test(text)) {
    prefix = true;
    text = text.replace(/\*+$/, '');
  }
  text = text.replace(/^\*+/, '');
  if (!SEARCHABLE.test(text)) return null;
  return { type: 'term', text, prefix, field, pos };
}

function withField(node: QueryNode, field: TextField): QueryNode {
  switch (node.type) {
    case 'term':
    case 'phrase':
      return { ...node, field };
    case 'and':
    case 'or':
      return { type: node.type, children: node.children.map((c) => withField(c, field)) };
    case 'not':
      return { type: 'not', child: withField(node.child, field) };
    case 'filter':
      return node;
  }
}

/**
 * Decide, for each `OR`/`AND`/`NOT`/`|` token, whether it is an operator. An operator needs
 * operands (`OR`/`AND` on both sides, `NOT` after it); one that has none is dropped, unless the
 * query consists of nothing but such words, in which case they are searched as words ("OR" alone
 * looks for the word "or").
 */
function resolveKeywords(toks: Tok[]): Tok[] {
  const startsOperand = (t: Tok | undefined): boolean =>
    !!t &&
    (t.k === 'word' ||
      t.k === 'phrase' ||
      t.k === 'field' ||
      t.k === 'lparen' ||
      t.k === 'minus' ||
      t.k === 'not');
  const endsOperand = (t: Tok | undefined): boolean =>
    !!t && (t.k === 'word' || t.k === 'phrase' || t.k === 'field' || t.k === 'rparen');
  const hasOperands = toks.some((t) => t.k === 'word' || t.k === 'phrase' || t.k === 'field');
  if (!hasOperands) {
    return toks
      .filter((t): t is Extract<Tok, { raw: string }> => 'raw' in t && /\p{L}/u.test(t.raw))
      .map((t) => ({ k: 'word', text: t.raw, pos: t.pos }));
  }
  const out: Tok[] = [];
  for (let j = 0; j < toks.length; j++) {
    const t = toks[j];
    if (t.k === 'or' || t.k === 'and') {
      if (endsOperand(out[out.length - 1]) && startsOperand(nextNonBinary(toks, j))) out.push(t);
    } else if (t.k === 'not') {
      if (startsOperand(toks[j + 1]) && toks[j + 1].k !== 'not') out.push(t);
    } else {
      out.push(t);
    }
  }
  return out;
}

/** The token after a run of binary operators (so `a OR OR b` keeps one OR). */
function nextNonBinary(toks: Tok[], j: number): Tok | undefined {
  let k = j + 1;
  while (k < toks.length && (toks[k].k === 'or' || toks[k].k === 'and')) k++;
  if (k > j + 1) return undefined;
  return toks[k];
}

// ---------------------------------------------------------------------------------------------
// Filter values

function parseFilter(name: string, value: string, pos: number): FilterSpec {
  switch (name) {
    case 'ext':
      return { field: 'ext', values: listValues(value, name, pos) };
    case 'type': {
      const values = listValues(value, name, pos);
      if (values.every((v) => v.includes('/'))) return { field: 'mime', values };
      if (values.some((v) => v.includes('/'))) {
        throw new QuerySyntaxError(
          `type: at position ${pos + 1} mixes extensions and MIME types: use ext:pdf,docx or type:text/html,text/plain.`,
          pos,
        );
      }
      return { field: 'ext', values };
    }
    case 'author':
      return { field: 'author', text: value };
    case 'source':
      return { field: 'source', value };
    case 'modified':
      return parseModified(value, pos);
    case 'size':
      return parseSize(value, pos);
  }
  throw new QuerySyntaxError(`Unknown field '${name}:' at position ${pos + 1}.`, pos);
}

function listValues(value: string, name: string, pos: number): string[] {
  const values = value
    .split(',')
    .map((v) =>
      v
        .trim()
        .toLowerCase()
        .replace(/^\*?\./, ''),
    )
    .filter((v) => v.length > 0);
  if (values.length === 0 || values.some((v) => !/^[\p{L}\p{N}_+.\-/*]+$/u.test(v))) {
    throw new QuerySyntaxError(
      `Can't read '${value}' after ${name}: at position ${pos + 1}: use ${FIELD_EXAMPLES[name]}.`,
      pos,
    );
  }
  return values;
}

const RELATIVE = new Set(['today', 'yesterday', 'week', 'month', 'year']);

function parseComparison(value: string): { op: Comparison | null; rest: string } {
  const m = /^(>=|<=|>|<|=)/.exec(value);
  return m ? { op: m[1] as Comparison, rest: value.slice(m[1].length) } : { op: null, rest: value };
}

function parseModified(value: string, pos: number): FilterSpec {
  const bad = (what: string): QuerySyntaxError =>
    new QuerySyntaxError(
      `Can't read the date '${what}' in modified: at position ${pos + 1}: use YYYY-MM-DD (or YYYY-MM, YYYY), a range such as 2024-01-01..2024-02-01, or today, yesterday, week, month, year; e.g. modified:>2024-01-31.`,
      pos,
    );
  const { op, rest } = parseComparison(value);
  if (!op && rest.includes('..')) {
    const [a, b, ...more] = rest.split('..');
    const da = parseDate(a);
    const db = parseDate(b);
    if (more.length > 0 || !da || !db) throw bad(value);
    return { field: 'modified', op: 'range', a: da, b: db };
  }
  const d = parseDate(rest);
  if (!d) throw bad(value);
  return { field: 'modified', op: op ?? '=', a: d };
}

function parseDate(s: string): DateSpec | null {
  const v = s.trim().toLowerCase();
  if (RELATIVE.has(v)) return { kind: 'relative', name: v as 'today' };
  const m = /^(\d{4})(?:[-/](\d{1,2})(?:[-/](\d{1,2}))?)?$/.exec(v);
  if (!m) return null;
  const y = Number(m[1]);
  const mo = m[2] === undefined ? undefined : Number(m[2]);
  const d = m[3] === undefined ? undefined : Number(m[3]);
  if (y < 1970 || y > 9999) return null;
  if (mo !== undefined && (mo < 1 || mo > 12)) return null;
  if (d !== undefined && (d < 1 || d > new Date(y, mo!, 0).getDate())) return null;
  return { kind: 'date', y, m: mo, d };
}

const UNITS: Record<string, number> = {
  '': 1,
  b: 1,
  k: 1024,
  kb: 1024,
  m: 1024 ** 2,
  mb: 1024 ** 2,
  g: 1024 ** 3,
  gb: 1024 ** 3,
  t: 1024 ** 4,
  tb: 1024 ** 4,
};

function parseBytes(s: string): number | null {
  const m = /^(\d+(?:\.\d+)?)\s*([a-z]*)$/i.exec(s.trim());
  if (!m) return null;
  const unit = UNITS[m[2].toLowerCase()];
  if (unit === undefined) return null;
  const n = Math.floor(Number(m[1]) * unit);
  return Number.isSafeInteger(n) ? n : null;
}

function parseSize(value: string, pos: number): FilterSpec {
  const bad = (): QuerySyntaxError =>
    new QuerySyntaxError(
      `Can't read the size '${value}' in size: at position ${pos + 1}: use a comparison with b, kb, mb or gb, e.g. size:>1mb, size:<=10kb or size:1mb..5mb.`,
      pos,
    );
  const { op, rest } = parseComparison(value);
  if (!op) {
    if (!rest.includes('..')) throw bad();
    const [a, b, ...more] = rest.split('..');
    const lo = parseBytes(a);
    const hi = parseBytes(b);
    if (more.length > 0 || lo === null || hi === null) throw bad();
    return { field: 'size', min: lo, max: hi };
  }
  const n = parseBytes(rest);
  if (n === null) throw bad();
  switch (op) {
    case '>':
      return { field: 'size', min: n + 1, max: null };
    case '>=':
      return { field: 'size', min: n, max: null };
    case '<':
      return { field: 'size', min: null, max: n - 1 };
    case '<=':
      return { field: 'size', min: null, max: n };
    case '=':
      return { field: 'size', min: n, max: n };
  }
}
