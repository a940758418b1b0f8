import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import { expectFilterError, fixtureBytes, inputOf } from '../../../../test/fixtures/filters/support.js';
import { extractInProcess } from './filter-runner.js';
import { pickFilter } from './filter-table.js';
import { rtfFilter } from './rtf-filter.js';

/** `\'hh` escapes of `text` in a legacy encoding, as WordPad writes them. */
function hexEscapes(text: string, encoding: string): string {
  return [...iconv.encode(text, encoding)].map((b) => `\\'${b.toString(16).padStart(2, '0')}`).join('');
}

const rtf = (body: string) => inputOf('doc.rtf', Buffer.from(body, 'latin1'));

describe('rtf filter', () => {
  it("reads LibreOffice's RTF: text, accents as \\u with fallbacks, and the \\info properties", async () => {
    const out = await extractInProcess(inputOf('sample.rtf', fixtureBytes('sample.rtf')));
    expect(out).toMatchObject({
      filter: 'rtf',
      mime: 'application/rtf',
      text: 'Encouraging results\nThe analytical engine weaves algebraic patterns just as the Jacquard loom weaves flowers and leaves.\nUn café crème costs three coins at the quayside.',
      title: 'Trawl Filter Sample',
      author: 'Ada Lovelace',
      keywords: 'analytical engine, filters',
      description: 'A small document for the filter conformance suite.',
    });
  });

  it("decodes \\'hh bytes in the document code page and in each font's charset", async () => {
    const zh = '企业级搜索协议处理程序';
    const ja = '日本語のテキスト';
    const ru = 'Привет';
    const body =
      `{\\rtf1\\ansi\\ansicpg936\\deff0{\\fonttbl{\\f0\\fnil\\fcharset134 ${hexEscapes('宋体', 'gbk')};}` +
      `{\\f1\\fnil\\fcharset128 MS Gothic;}{\\f2\\fnil\\fcharset204 Arial Cyr;}{\\f3\\fnil\\fcharset0 Calibri;}}\n` +
      `{\\*\\generator Riched20 10.0.19041}\\viewkind4\\uc1\n` +
      `\\pard\\f0\\fs22 ${hexEscapes(zh, 'gbk')}\\par\n` +
      `\\f1 ${hexEscapes(ja, 'shift_jis')}\\par\n\\f2 ${hexEscapes(ru, 'windows-1251')}\\f3  and English\\par\n}`;
    const out = await extractInProcess(rtf(body));
    expect(out.text).toBe(`${zh}\n${ja}\n${ru} and English`);
  });

  it('honours \\uc fallbacks, escapes and special characters', async () => {
    const body =
      "{\\rtf1\\ansi{\\fonttbl{\\f0 Arial;}}\\uc1\\u20225?\\u19994?\\uc2 \\u32423\\'3f\\'3f end " +
      '\\{braces\\} and \\\\backslash\\tab tabbed\\line next\\~nbsp\\emdash dash\\lquote q\\rquote\\par}';
    const out = await extractInProcess(rtf(body));
    expect(out.text).toBe('企业级 end {braces} and \\backslash tabbed\nnext nbsp—dash‘q’');
  });

  it('leaves out tables of fonts, colours and styles, pictures, objects, field codes and \\* destinations', async () => {
    const body =
      '{\\rtf1\\ansi{\\fonttbl{\\f0 Fontname;}}{\\colortbl;\\red255\\green0\\blue0;}{\\stylesheet{\\s1 Heading Style;}}' +
      '{\\*\\unknowndest hidden words}{\\pict\\pngblip 89504e47}{\\object{\\*\\objdata 0102}{\\result shown result}} ' +
      '{\\field{\\*\\fldinst HYPERLINK "http://example.com/"}{\\fldrslt visible link}} ' +
      'cells: \\intbl one\\cell two\\cell\\row after\\bin4 \x00\x01\x02\x03 binary skipped\\par}';
    const out = await extractInProcess(rtf(body));
    expect(out.text).toBe('shown result visible link cells: one two\nafter binary skipped');
    expect(out.text).not.toMatch(/Fontname|Heading Style|hidden|HYPERLINK|89504e47/);
  });

  it('is chosen by extension, MIME type or its {\\rtf signature, and refuses what is not RTF', async () => {
    expect(pickFilter('rtf').id).toBe('rtf');
    expect(pickFilter('bin', 'text/rtf').id).toBe('rtf');
    // Word's "save as RTF" under a .doc name.
    expect(pickFilter('doc', undefined, fixtureBytes('sample.rtf').subarray(0, 8192)).id).toBe('rtf');
    const err = await expectFilterError(
      rtfFilter.extract(inputOf('x.rtf', Buffer.from('plain text'))),
      'corrupt',
    );
    expect(err.message).toMatch(/RTF/);
    const deep = `{\\rtf1 ${'{'.repeat(100_000)}text${'}'.repeat(100_000)}}`;
    expect((await expectFilterError(rtfFilter.extract(rtf(deep)), 'corrupt')).message).toMatch(/nested/);
  });
});
