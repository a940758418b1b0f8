import fc from 'fast-check';
import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import { expectFilterError, inputOf, seededBytes } from '../../../../test/fixtures/filters/support.js';
import { decodeStrictUtf8, decodeText, resolveCharset } from './text-decoding.js';
import { textFilter } from './text-filter.js';
import { MAX_TEXT_CHARS, normalizeLine, normalizeText } from './text-normalization.js';

const ZH_HANS =
  '企业级搜索协议处理程序支持全文检索和增量爬取。这是一个用于测试编码识别的中文文件，内容足够长以便统计检测。';
const ZH_HANT =
  '企業級搜索協議處理程序支持全文檢索和增量爬取。這是一個用於測試編碼識別的中文文件，內容足夠長以便統計檢測。';
const JA =
  '日本語のテキストです。全文検索エンジンのテストを行います。文字コードの自動判別が正しく動くことを確かめます。';
const KO = '한국어 텍스트입니다. 전체 텍스트 검색 엔진 테스트를 합니다. 문자 인코딩 자동 감지를 확인합니다.';
const FR = 'Un café crème, s’il vous plaît. Déjà vu à la façon de Noël, où l’été est très doux.';
const RU = 'Привет, мир! Это тестовый документ для полнотекстового поиска и определения кодировки.';

async function extract(bytes: Uint8Array, name = 'doc.txt', charset?: string) {
  return textFilter.extract(inputOf(name, bytes, charset ? { charset } : {}));
}

describe('text filter: encodings', () => {
  it.each([
    ['GBK', 'gbk', ZH_HANS, 'gb18030'],
    ['GB18030', 'gb18030', ZH_HANS, 'gb18030'],
    ['Big5', 'big5', ZH_HANT, 'big5'],
    ['Shift_JIS', 'shift_jis', JA, 'shift_jis'],
    ['EUC-JP', 'euc-jp', JA, 'euc-jp'],
    ['EUC-KR', 'euc-kr', KO, 'euc-kr'],
    ['windows-1252', 'windows-1252', FR, 'windows-1252'],
    ['windows-1251', 'windows-1251', RU, 'windows-1251'],
  ])('detects %s without a hint', async (_label, encoding, text, expected) => {
    const out = await extract(iconv.encode(text, encoding));
    expect(out.text).toBe(text);
    expect(out.encoding).toBe(expected);
  });

  it('reads a lone "café" in windows-1252 (not mistaken for truncated UTF-8)', async () => {
    const out = await extract(iconv.encode('café', 'windows-1252'));
    expect(out.text).toBe('café');
    expect(out.encoding).toBe('windows-1252');
  });

  it('reads Chinese UTF-8 with and without a BOM', async () => {
    expect((await extract(Buffer.from(ZH_HANS, 'utf8'))).text).toBe(ZH_HANS);
    const withBom = await extract(
      Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(ZH_HANS, 'utf8')]),
    );
    expect(withBom.text).toBe(ZH_HANS);
    expect(withBom.encoding).toBe('utf-8');
  });

  it.each([
    ['utf-16le', [0xff, 0xfe]],
    ['utf-16be', [0xfe, 0xff]],
  ])('reads %s with a BOM', async (encoding, bom) => {
    const body = iconv.encode(`${FR}\n${ZH_HANS}`, encoding, { addBOM: false });
    const out = await extract(Buffer.concat([Buffer.from(bom), body]));
    expect(out.text).toBe(`${FR}\n${ZH_HANS}`);
    expect(out.encoding).toBe(encoding);
  });

  it('reads UTF-16LE without a BOM (ASCII-range text)', async () => {
    const out = await extract(
      iconv.encode('Plain notes written by a Windows tool.\r\n', 'utf-16le', { addBOM: false }),
    );
    expect(out.text).toBe('Plain notes written by a Windows tool.\r\n');
  });

  it('uses the charset hint, mapping legacy labels to their supersets', async () => {
    const out = await extract(iconv.encode(ZH_HANS.slice(0, 6), 'gbk'), 'page.txt', 'GB2312');
    expect(out.text).toBe(ZH_HANS.slice(0, 6));
    expect(out.encoding).toBe('gb18030');
    expect((await extract(iconv.encode('naïve', 'latin1'), 'a.txt', 'ISO-8859-1')).text).toBe('naïve');
  });

  it('lets valid UTF-8 win over a Latin-1 hint (servers default to one)', async () => {
    const out = await extract(Buffer.from('Crème brûlée', 'utf8'), 'a.txt', 'iso-8859-1');
    expect(out.text).toBe('Crème brûlée');
  });

  it('keeps UTF-8 cut mid-character at a size cap', async () => {
    const bytes = Buffer.from(`${ZH_HANS}${ZH_HANS}`, 'utf8');
    const out = await extract(bytes.subarray(0, bytes.length - 2));
    expect(out.encoding).toBe('utf-8');
    expect(out.text.startsWith(ZH_HANS)).toBe(true);
  });

  it('refuses binary content with a readable reason', async () => {
    const err = await expectFilterError(extract(seededBytes(4096)), 'corrupt');
    expect(err.message).toMatch(/binary/);
    const nulHeavy = Buffer.from('header\0\0\0\0\x01\x02 text \0\0\0 more \0\0'.repeat(50), 'latin1');
    await expectFilterError(extract(nulHeavy), 'corrupt');
    const controls = Buffer.from('\x01\x02\x03\x04\x05\x06ab'.repeat(100), 'latin1');
    await expectFilterError(extract(controls), 'corrupt');
  });

  it('reports the MIME type of the extension or the protocol', async () => {
    expect((await extract(Buffer.from('x = 1'), 'a.py')).mime).toBe('text/x-python');
    expect((await extract(Buffer.from('x'), 'README')).mime).toBe('text/plain');
    expect((await textFilter.extract(inputOf('a', Buffer.from('x'), { mime: 'text/csv' }))).mime).toBe(
      'text/csv',
    );
  });
});

describe('decoding helpers', () => {
  it('resolves charset labels', () => {
    expect(resolveCharset('"GBK"')).toBe('gb18030');
    expect(resolveCharset('x-sjis')).toBe('shift_jis');
    expect(resolveCharset('us-ascii')).toBe('windows-1252');
    expect(resolveCharset('UTF8')).toBe('utf-8');
    expect(resolveCharset('iso-2022-jp')).toBe('iso-2022-jp');
    expect(resolveCharset('no-such-charset')).toBeUndefined();
    expect(resolveCharset('')).toBeUndefined();
  });

  it('validates UTF-8 strictly', () => {
    expect(decodeStrictUtf8(Buffer.from('plain'))).toBe('plain');
    expect(decodeStrictUtf8(Buffer.from([0x63, 0x61, 0x66, 0xe9]))).toBeUndefined();
    expect(decodeStrictUtf8(Buffer.from([0xff, 0x41]))).toBeUndefined();
  });

  it('decodes empty input to empty text', () => {
    expect(decodeText(new Uint8Array(0))).toEqual({ text: '', encoding: 'utf-8' });
  });
});

describe('normalizeText', () => {
  it('collapses whitespace runs and keeps line breaks', () => {
    expect(normalizeText('  Title \r\n\r\n\r\n  first\t\tparagraph  \n\n second\u00a0para\f next ')).toBe(
      'Title\nfirst paragraph\nsecond para\nnext',
    );
    expect(normalizeText('a\u0000b\u0007c')).toBe('a b c');
  });

  it('agrees with the plain regular-expression definition on any text', () => {
    // The definition the one-pass implementation must match.
    const model = (t: string, max: number): string => {
      const s = (t.length > max * 2 ? t.slice(0, max * 2) : t)
        // eslint-disable-next-line no-control-regex
        .replace(/[\u0000-\u0008\u000e-\u001f\u007f\u200b\ufeff]/g, ' ')
        // eslint-disable-next-line no-control-regex
        .replace(/\r\n?|[\u000b\u000c\u0085\u2028\u2029]/g, '\n')
        .replace(/[^\S\n]*\n\s*/g, '\n')
        .replace(/[^\S\n]{2,}|[^\S\n ]/g, ' ')
        .trim();
      if (s.length <= max) return s;
      const last = s.charCodeAt(max - 1);
      return s.slice(0, last >= 0xd800 && last <= 0xdbff ? max - 1 : max);
    };
    const special = [
      ...'\u0000\u0007\t\n\u000b\f\r\u000e\u001f \u007f\u0085\u00a0\u1680\u2000\u200a\u200b\u2028\u2029\u202f\u205f\u3000\ufeff\u0080x.中😀',
    ];
    const text = fc
      .array(fc.oneof(fc.constantFrom(...special), fc.string({ maxLength: 3 })), { maxLength: 40 })
      .map((a) => a.join(''));
    fc.assert(
      fc.property(text, fc.integer({ min: 1, max: 60 }), (t, max) => {
        expect(normalizeText(t, max)).toBe(model(t, max));
        expect(normalizeText(t)).toBe(model(t, MAX_TEXT_CHARS));
      }),
      { numRuns: 3000 },
    );
  });

  it('caps the text without splitting a surrogate pair', () => {
    expect(normalizeText('x'.repeat(MAX_TEXT_CHARS + 10)).length).toBe(MAX_TEXT_CHARS);
    const capped = normalizeText('ab😀', 3);
    expect(capped).toBe('ab');
  });

  it('flattens property values to one line', () => {
    expect(normalizeLine('  A\n  title\t')).toBe('A title');
    expect(normalizeLine('   ')).toBeUndefined();
    expect(normalizeLine(undefined)).toBeUndefined();
  });
});
