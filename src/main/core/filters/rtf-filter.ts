import iconv from 'iconv-lite';
import { FilterError, type Filter, type FilterInput, type FilterOutput } from './filter.js';
import { garbageRatio } from './text-decoding.js';
import { normalizeLine } from './text-normalization.js';

/**
 * RTF (WordPad, TextEdit, Word's "Rich Text Format"): the document text — `\uN` characters with
 * their `\ucN` fallbacks skipped, `\'hh` bytes decoded in the code page of the document
 * (`\ansicpg`) or of the current font (`\fcharset`), so Chinese, Japanese and Cyrillic RTF read
 * right — with paragraphs, line breaks, tabs and table cells kept; plus title, author, keywords
 * and description from the `\info` group. Font, colour and style tables, pictures, embedded
 * objects, field instructions and every `\*` destination are left out.
 *
 * No maintained npm package turns RTF into plain text (the ones there render HTML in a browser
 * or only unwrap HTML encapsulated by Outlook), so this small reader follows the RTF 1.9.1
 * specification.
 */

const RTF_MIME = 'application/rtf';
/** Groups nested deeper than this are not RTF any program wrote. */
const MAX_DEPTH = 2048;
/** Above this share of control or undecodable characters in the text, the input is not RTF. */
const MAX_GARBAGE = 0.05;

/** Destinations whose content is never document text. */
// prettier-ignore
const SKIPPED = new Set([
  'fonttbl', 'colortbl', 'stylesheet', 'listtable', 'listoverridetable', 'revtbl', 'rsidtbl', 'filetbl',
  'pict', 'objdata', 'fldinst', 'themedata', 'colorschememapping', 'datastore', 'latentstyles',
  'xmlnstbl', 'generator', 'mmathpr', 'pgdsctbl', 'protusertbl', 'userprops', 'bkmkstart', 'bkmkend',
  'header', 'headerl', 'headerr', 'headerf', 'footer', 'footerl', 'footerr', 'footerf', 'nonshppict',
  'shpinst', 'sp', 'sn', 'sv', 'private', 'txe', 'xe', 'tc', 'template', 'comment', 'operator', 'company',
  'category', 'manager', 'hlinkbase', 'password', 'creatim', 'revtim', 'printim', 'buptim',
]);

/** Properties read from `\info`. */
const INFO_FIELDS = new Set(['title', 'author', 'subject', 'keywords', 'doccomm']);

/** Control words that stand for text. */
const SYMBOLS: Record<string, string> = {
  par: '\n',
  line: '\n',
  sect: '\n',
  page: '\n',
  row: '\n',
  tab: '\t',
  cell: '\t',
  nestcell: '\t',
  emdash: '\u2014',
  endash: '\u2013',
  emspace: ' ',
  enspace: ' ',
  qmspace: ' ',
  bullet: '\u2022',
  lquote: '\u2018',
  rquote: '\u2019',
  ldblquote: '\u201c',
  rdblquote: '\u201d',
};

/** Windows code pages of the `\fcharset` values that have one. */
// prettier-ignore
const CHARSET_CODEPAGES: Record<number, number> = {
  77: 10000, 128: 932, 129: 949, 130: 1361, 134: 936, 136: 950, 161: 1253, 162: 1254, 163: 1258,
  177: 1255, 178: 1256, 186: 1257, 204: 1251, 222: 874, 238: 1250, 254: 437,
};

interface GroupState {
  /** Inside a destination whose text is dropped. */
  skip: boolean;
  /** Characters of fallback after `\uN` (`\ucN`). */
  uc: number;
  /** Code page of `\'hh` bytes here (the font's, else the document's). */
  codepage: number;
  /** Inside an `\object` (only its `\result`, the rendered object, is text). */
  object: boolean;
  /** Inside the `\info` group (its fields are read, the rest of it is skipped). */
  inInfo: boolean;
  /** The `\info` field being read, if any. */
  info: string | null;
}

function decoderFor(codepage: number): string {
  const name = codepage === 65001 ? 'utf-8' : `cp${codepage}`;
  return iconv.encodingExists(name) ? name : 'cp1252';
}

/** RTF → text and `\info` properties. Throws `FilterError('corrupt')` for what is not RTF. */
export function parseRtf(bytes: Uint8Array): { text: string; info: Record<string, string> } {
  const src = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  if (!/^\s*\{\\rtf/.test(src.slice(0, 64)))
    throw new FilterError('corrupt', 'unreadable RTF: no {\\rtf header');
  const out: string[] = [];
  const info: Record<string, string> = {};
  const fontCodepage = new Map<number, number>();
  let docCodepage = 1252;
  let state: GroupState = { skip: false, uc: 1, codepage: 1252, object: false, inInfo: false, info: null };
  const stack: GroupState[] = [];
  let pendingBytes: number[] = [];
  let skipFallback = 0; // fallback characters still to drop after \uN
  let inFontTable = 0; // group depth of \fonttbl, to read font charsets
  let currentFont: number | null = null;
  let destinationNext = false; // after \*: the next control word names an ignorable destination

  const emit = (s: string) => {
    if (state.skip || s === '') return;
    if (state.info !== null) info[state.info] = (info[state.info] ?? '') + s;
    else out.push(s);
  };
  const flush = () => {
    if (pendingBytes.length === 0) return;
    const text = iconv.decode(Buffer.from(pendingBytes), decoderFor(state.codepage));
    pendingBytes = [];
    emit(text);
  };

  const n = src.length;
  let i = 0;
  while (i < n) {
    const c = src.charCodeAt(i);
    if (c === 0x7b /* { */) {
      flush();
      if (stack.length >= MAX_DEPTH)
        throw new FilterError('corrupt', `unreadable RTF: groups nested over ${MAX_DEPTH} deep`);
      stack.push(state);
      state = { ...state };
      if (inFontTable > 0) inFontTable++;
      i++;
      continue;
    }
    if (c === 0x7d /* } */) {
      flush();
      if (inFontTable > 0) inFontTable--;
      state = stack.pop() ?? state;
      skipFallback = 0;
      i++;
      continue;
    }
    if (c === 0x0d || c === 0x0a) {
      i++;
      continue;
    }
    if (c !== 0x5c /* \ */) {
      let j = i;
      while (j < n) {
        const d = src.charCodeAt(j);
        if (d === 0x5c || d === 0x7b || d === 0x7d || d === 0x0d || d === 0x0a) break;
        j++;
      }
      let k = i;
      while (skipFallback > 0 && k < j) {
        k++;
        skipFallback--;
      }
      for (; k < j; k++) {
        const b = src.charCodeAt(k);
        if (b < 0x80 && pendingBytes.length === 0) {
          let e = k;
          while (e < j && src.charCodeAt(e) < 0x80) e++;
          emit(src.slice(k, e));
          k = e - 1;
        } else pendingBytes.push(b);
      }
      if (pendingBytes.length > 0 && j < n && src.charCodeAt(j) !== 0x5c) flush();
      i = j;
      continue;
    }
    // A control symbol or word.
    const next = src.charCodeAt(i + 1);
    if (Number.isNaN(next)) break;
    if (next === 0x27 /* ' */) {
      const hex = parseInt(src.slice(i + 2, i + 4), 16);
      i += 4;
      if (skipFallback > 0) {
        skipFallback--;
        continue;
      }
      if (!Number.isNaN(hex)) pendingBytes.push(hex);
      continue;
    }
    if (!((next >= 0x61 && next <= 0x7a) || (next >= 0x41 && next <= 0x5a))) {
      flush();
      i += 2;
      const ch = String.fromCharCode(next);
      if (ch === '*') destinationNext = true;
      else if (ch === '\\' || ch === '{' || ch === '}') emit(ch);
      else if (ch === '~') emit('\u00a0');
      else if (ch === '_') emit('-');
      else if (next === 0x0a || next === 0x0d) emit('\n');
      continue;
    }
    let j = i + 1;
    while (j < n && /[a-zA-Z]/.test(src[j])) j++;
    const word = src.slice(i + 1, j).toLowerCase();
    let param: number | null = null;
    const m = /^-?\d{1,10}/.exec(src.slice(j, j + 11));
    if (m) {
      param = Number(m[0]);
      j += m[0].length;
    }
    if (src[j] === ' ') j++;
    i = j;
    if (word === 'bin') {
      flush();
      i += Math.max(0, param ?? 0);
      continue;
    }
    if (word !== 'u') flush();
    if (destinationNext) {
      destinationNext = false;
      state.skip = true;
      continue;
    }
    switch (word) {
      case 'u': {
        flush();
        const code = param === null ? 0xfffd : param < 0 ? param + 65536 : param;
        emit(String.fromCharCode(code));
        skipFallback = state.uc;
        continue;
      }
      case 'uc':
        state.uc = Math.max(0, param ?? 1);
        continue;
      case 'ansicpg':
        if (param !== null && param > 0) docCodepage = state.codepage = param;
        continue;
      case 'fonttbl':
        inFontTable = 1;
        state.skip = true;
        continue;
      case 'f':
        if (param === null) continue;
        if (inFontTable > 0) currentFont = param;
        else state.codepage = fontCodepage.get(param) ?? docCodepage;
        continue;
      case 'fcharset':
        if (inFontTable > 0 && currentFont !== null && param !== null && CHARSET_CODEPAGES[param])
          fontCodepage.set(currentFont, CHARSET_CODEPAGES[param]);
        continue;
      case 'cpg':
        if (inFontTable > 0 && currentFont !== null && param !== null && param > 0)
          fontCodepage.set(currentFont, param);
        continue;
    }
    if (word === 'object') {
      state.object = true;
      state.skip = true;
      continue;
    }
    if (word === 'result' && state.object) {
      state.skip = false;
      continue;
    }
    if (word === 'info') {
      state.inInfo = true;
      state.skip = true;
      continue;
    }
    if (state.inInfo && state.info === null && INFO_FIELDS.has(word)) {
      state.info = word;
      state.skip = false;
      continue;
    }
    if (SKIPPED.has(word)) {
      state.skip = true;
      continue;
    }
    const sym = SYMBOLS[word];
    if (sym !== undefined) emit(sym);
  }
  flush();
  return { text: out.join(''), info };
}

export const rtfFilter: Filter = {
  id: 'rtf',
  extract: async (input) => extractRtf(input),
};

function extractRtf(input: FilterInput): FilterOutput {
  if (input.bytes.length === 0) throw new FilterError('corrupt', 'unreadable RTF: empty file');
  const { text, info } = parseRtf(input.bytes);
  const garbage = garbageRatio(text);
  if (garbage > MAX_GARBAGE)
    throw new FilterError('corrupt', `unreadable RTF: ${Math.round(garbage * 100)}% of its text is not text`);
  return {
    text,
    title: normalizeLine(info.title),
    author: normalizeLine(info.author),
    keywords: normalizeLine(info.keywords),
    description: normalizeLine(info.doccomm) ?? normalizeLine(info.subject),
    mime: RTF_MIME,
  };
}
