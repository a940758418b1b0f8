import { isUtf8 } from 'node:buffer';
import chardet from 'chardet';
import iconv from 'iconv-lite';
import { FilterError } from './filter.js';

/**
 * Byte → string decoding for the text and HTML filters: BOM, protocol/`<meta>` hint, UTF-8
 * validation, then statistical detection (chardet) for legacy encodings, decoded by iconv-lite.
 */

/** Decoded text and the encoding it was read as (lowercase, iconv-lite spelling). */
export interface DecodedText {
  text: string;
  encoding: string;
}

/** Bytes chardet sees; detection is statistical, more adds time and no accuracy. */
const DETECT_SAMPLE = 64 * 1024;
/** Bytes scanned for NUL (git's binary heuristic looks at 8000). */
const BINARY_SCAN = 8000;

/** Reads a byte-order mark. */
export function detectBom(bytes: Uint8Array): { encoding: string; length: number } | undefined {
  if (bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf)
    return { encoding: 'utf-8', length: 3 };
  if (bytes.length >= 4 && bytes[0] === 0xff && bytes[1] === 0xfe && bytes[2] === 0 && bytes[3] === 0)
    return { encoding: 'utf-32le', length: 4 };
  if (bytes.length >= 4 && bytes[0] === 0 && bytes[1] === 0 && bytes[2] === 0xfe && bytes[3] === 0xff)
    return { encoding: 'utf-32be', length: 4 };
  if (bytes.length >= 2 && bytes[0] === 0xff && bytes[1] === 0xfe) return { encoding: 'utf-16le', length: 2 };
  if (bytes.length >= 2 && bytes[0] === 0xfe && bytes[1] === 0xff) return { encoding: 'utf-16be', length: 2 };
  return undefined;
}

// prettier-ignore
const CHARSET_ALIASES: Record<string, string> = {
  // Browsers read Latin-1 and ASCII labels as windows-1252 (its superset); so do we.
  'iso-8859-1': 'windows-1252', iso8859_1: 'windows-1252', 'iso8859-1': 'windows-1252', latin1: 'windows-1252',
  'latin-1': 'windows-1252', l1: 'windows-1252', 'us-ascii': 'windows-1252', ascii: 'windows-1252', cp1252: 'windows-1252',
  'x-cp1252': 'windows-1252', 'ansi_x3.4-1968': 'windows-1252',
  // GB18030 is a superset of GBK and GB2312.
  gb2312: 'gb18030', gbk: 'gb18030', 'x-gbk': 'gb18030', cp936: 'gb18030', 'euc-cn': 'gb18030', 'csgb2312': 'gb18030',
  'big5-hkscs': 'big5hkscs', 'x-x-big5': 'big5', cp950: 'big5',
  sjis: 'shift_jis', 'x-sjis': 'shift_jis', 'shift-jis': 'shift_jis', ms_kanji: 'shift_jis', 'windows-31j': 'cp932',
  'x-euc-jp': 'euc-jp', 'ks_c_5601-1987': 'euc-kr', 'windows-949': 'cp949',
  utf8: 'utf-8', 'unicode-1-1-utf-8': 'utf-8', 'utf-16': 'utf-16le', unicode: 'utf-16le', ucs2: 'utf-16le', 'ucs-2': 'utf-16le',
};

/**
 * Maps a charset label (HTTP header, `<meta>`, chardet) to a decoder name, or `undefined` when no
 * decoder knows it.
 */
export function resolveCharset(label: string | undefined): string | undefined {
  if (!label) return undefined;
  const l = label
    .trim()
    .replace(/^["']|["']$/g, '')
    .toLowerCase();
  if (!l) return undefined;
  const name = CHARSET_ALIASES[l] ?? l;
  if (name === 'utf-8') return name;
  if (iconv.encodingExists(name)) return name;
  try {
    new TextDecoder(name);
    return name;
  } catch {
    return undefined;
  }
}

function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** Decodes with a resolved encoding name; invalid sequences become U+FFFD. */
/** Decoding without `stream` keeps no state between calls: one decoder serves every item. */
const LENIENT_UTF8 = new TextDecoder('utf-8', { ignoreBOM: false });

function decodeAs(bytes: Uint8Array, encoding: string): string {
  if (encoding === 'utf-8') return LENIENT_UTF8.decode(bytes);
  if (iconv.encodingExists(encoding)) return iconv.decode(asBuffer(bytes), encoding);
  return new TextDecoder(encoding).decode(bytes);
}

/**
 * Strict UTF-8 decode. Tolerates one incomplete sequence at the very end (input cut at a size
 * cap) only when earlier bytes hold a complete multi-byte sequence, so `caf\xe9` is not taken
 * for truncated UTF-8. Returns `undefined` when the bytes are not UTF-8.
 */
export function decodeStrictUtf8(bytes: Uint8Array): string | undefined {
  // isUtf8 validates natively; constructing a fatal TextDecoder per item cost more than the decode.
  if (isUtf8(bytes)) return utf8(bytes);
  let cut = bytes.length;
  for (let i = bytes.length - 1; i >= Math.max(0, bytes.length - 3); i--) {
    const b = bytes[i];
    if (b >= 0xc0) {
      const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : 2;
      if (bytes.length - i < need) cut = i;
      break;
    }
    if (b < 0x80) break;
  }
  if (cut === bytes.length || !isUtf8(bytes.subarray(0, cut))) return undefined;
  const text = utf8(bytes.subarray(0, cut));
  // eslint-disable-next-line no-control-regex
  return /[^\x00-\x7f]/.test(text) ? text + '\ufffd' : undefined;
}

/** Valid UTF-8 as a string; a leading BOM is dropped, as TextDecoder does. */
function utf8(bytes: Uint8Array): string {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return (b.length >= 3 && b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf ? b.subarray(3) : b).toString(
    'utf8',
  );
}

/** UTF-16 without a BOM: ASCII-range text leaves every other byte zero. */
function guessBomlessUtf16(bytes: Uint8Array): string | undefined {
  const n = Math.min(bytes.length, BINARY_SCAN) & ~1;
  if (n < 4) return undefined;
  let evenZero = 0;
  let oddZero = 0;
  for (let i = 0; i < n; i += 2) {
    if (bytes[i] === 0) evenZero++;
    if (bytes[i + 1] === 0) oddZero++;
  }
  const pairs = n / 2;
  if (oddZero / pairs > 0.4 && evenZero / pairs < 0.05) return 'utf-16le';
  if (evenZero / pairs > 0.4 && oddZero / pairs < 0.05) return 'utf-16be';
  return undefined;
}

function hasNul(bytes: Uint8Array): boolean {
  return bytes.subarray(0, BINARY_SCAN).indexOf(0) !== -1;
}

const SINGLE_BYTE_FALLBACK = 'windows-1252';
const UNICODE_NAMES = new Set(['utf-8', 'ascii', 'utf-16le', 'utf-16be', 'utf-32le', 'utf-32be']);

/** Statistical detection for bytes that are neither BOM-marked nor valid UTF-8. */
function detectLegacy(bytes: Uint8Array): string {
  const matches = chardet.analyse(bytes.subarray(0, DETECT_SAMPLE));
  for (const m of matches) {
    const name = resolveCharset(m.name);
    if (name && !UNICODE_NAMES.has(name)) return name;
  }
  return SINGLE_BYTE_FALLBACK;
}

/** Characters no text holds: C0 controls (bar whitespace and ESC), DEL, U+FFFD. */
// eslint-disable-next-line no-control-regex
const GARBAGE = /[\x00-\x08\x0e-\x1a\x1c-\x1f\x7f\ufffd]/g;

/** Share of decoded characters that no text holds: C0 controls (bar whitespace and ESC), DEL, U+FFFD. */
export function garbageRatio(text: string): number {
  const n = Math.min(text.length, DETECT_SAMPLE);
  if (n === 0) return 0;
  const bad = (n < text.length ? text.slice(0, n) : text).match(GARBAGE);
  return bad ? bad.length / n : 0;
}

/** Above this share of garbage characters the bytes are binary, not text. */
const MAX_GARBAGE = 0.05;

/**
 * Decodes text bytes. Precedence: BOM, then `hint` (protocol charset or `<meta>`; a Latin-1 hint
 * yields to bytes that are valid multi-byte UTF-8), then strict UTF-8, then chardet.
 *
 * Throws `FilterError('corrupt')` when the bytes are binary (NUL bytes that are not UTF-16, or
 * more than 5% control/undecodable characters).
 */
export function decodeText(bytes: Uint8Array, hint?: string): DecodedText {
  if (bytes.length === 0) return { text: '', encoding: resolveCharset(hint) ?? 'utf-8' };
  const bom = detectBom(bytes);
  let result: DecodedText | undefined;
  if (bom) {
    result = { text: decodeAs(bytes.subarray(bom.length), bom.encoding), encoding: bom.encoding };
  } else {
    const hinted = resolveCharset(hint);
    if (hinted && hinted !== SINGLE_BYTE_FALLBACK) {
      result = { text: decodeAs(bytes, hinted), encoding: hinted };
    } else if (hasNul(bytes)) {
      const utf16 = guessBomlessUtf16(bytes);
      if (!utf16) throw new FilterError('corrupt', 'binary content: NUL bytes in what should be text');
      result = { text: decodeAs(bytes, utf16), encoding: utf16 };
    } else {
      const utf8 = decodeStrictUtf8(bytes);
      if (utf8 !== undefined) result = { text: utf8, encoding: 'utf-8' };
      else {
        const encoding = hinted ?? detectLegacy(bytes);
        result = { text: decodeAs(bytes, encoding), encoding };
      }
    }
  }
  const garbage = garbageRatio(result.text);
  if (garbage > MAX_GARBAGE) {
    throw new FilterError(
      'corrupt',
      `binary content: ${Math.round(garbage * 100)}% of the characters are not text (read as ${result.encoding})`,
    );
  }
  return result;
}
