import { describe, expect, it } from 'vitest';
import { expectFilterError, fixtureBytes, inputOf } from '../../../../test/fixtures/filters/support.js';
import { buildZip, coreXml, type ZipSpec } from '../../../../test/fixtures/filters/zip-builder.js';
import { extractInProcess } from './filter-runner.js';
import { pickFilter, SNIFF_BYTES } from './filter-table.js';
import { OFFICE_MAX_XML } from './office-package.js';
import { docFilter } from './doc-filter.js';
import { odfFilter } from './odf-filter.js';
import { pptxFilter } from './pptx-filter.js';
import { xlsxFilter } from './xlsx-filter.js';

/** XLSX, PPTX and OpenDocument: real LibreOffice files, and packages built part by part. */

const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const PKG_REL = 'http://schemas.openxmlformats.org/package/2006/relationships';

function rels(list: [id: string, type: string, target: string][]): string {
  const items = list.map(
    ([id, type, target]) => `<Relationship Id="${id}" Type="${type}" Target="${target}"/>`,
  );
  return `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="${PKG_REL}">${items.join('')}</Relationships>`;
}

function pkg(parts: Record<string, string>, extra: ZipSpec[] = []): Buffer {
  return buildZip([
    ...Object.entries(parts).map(([name, xml]) => ({ name, data: Buffer.from(xml) })),
    ...extra,
  ]);
}

const SHEET_NS = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';

function xlsx(sheets: [name: string, file: string, xml: string][], shared?: string, core?: string): Buffer {
  const parts: Record<string, string> = {
    '_rels/.rels': rels([
      ['rId1', `${REL}/officeDocument`, 'xl/workbook.xml'],
      ...(core
        ? ([['rId2', `${PKG_REL}/metadata/core-properties`, 'docProps/core.xml']] as [
            string,
            string,
            string,
          ][])
        : []),
    ]),
    'xl/workbook.xml': `<workbook xmlns="${SHEET_NS}" xmlns:r="${REL}"><sheets>${sheets
      .map(([name], i) => `<sheet name="${name}" sheetId="${i + 1}" r:id="rS${i}"/>`)
      .join('')}</sheets></workbook>`,
    'xl/_rels/workbook.xml.rels': rels([
      ...sheets.map(
        ([, file], i) => [`rS${i}`, `${REL}/worksheet`, `worksheets/${file}`] as [string, string, string],
      ),
      ...(shared
        ? ([['rSS', `${REL}/sharedStrings`, 'sharedStrings.xml']] as [string, string, string][])
        : []),
    ]),
  };
  for (const [, file, xml] of sheets) parts[`xl/worksheets/${file}`] = xml;
  if (shared) parts['xl/sharedStrings.xml'] = shared;
  if (core) parts['docProps/core.xml'] = core;
  return pkg(parts);
}

const sheet = (rows: string) => `<worksheet xmlns="${SHEET_NS}"><sheetData>${rows}</sheetData></worksheet>`;

describe('office filters: real files written by LibreOffice', () => {
  it('reads an XLSX: sheets in order, a line per row, core properties', async () => {
    const out = await extractInProcess(inputOf('sample.xlsx', fixtureBytes('sample.xlsx')));
    expect(out.filter).toBe('xlsx');
    expect(out.text).toBe(
      'Expenses\nItem Cost\nJacquard cards 1234.5\nCafé crème 3\nNotes\n企业级搜索 weaves flowers',
    );
    expect(out).toMatchObject({
      mime: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
      title: 'Quarterly Loom Budget',
      author: 'Ada Lovelace',
      description: 'A small spreadsheet for the filter conformance suite.',
    });
  });

  it('reads a PPTX: slides in order, each followed by its notes', async () => {
    const out = await extractInProcess(inputOf('sample.pptx', fixtureBytes('sample.pptx')));
    expect(out.filter).toBe('pptx');
    expect(out.text).toBe(
      'Encouraging results\nThe analytical engine weaves algebraic patterns.\nUn café crème at the quayside.\nSpeaker note about Jacquard cards.\nSecond slide: 企业级搜索',
    );
    expect(out).toMatchObject({ title: 'Loom Review', author: 'Ada Lovelace', keywords: 'review' });
  });

  it.each([
    [
      'sample.odt',
      'application/vnd.oasis.opendocument.text',
      'Trawl Filter Sample',
      'analytical engine, filters',
      'Encouraging results\nThe analytical engine weaves algebraic patterns just as the Jacquard loom weaves flowers and leaves.\nUn café crème costs three coins at the quayside.',
    ],
    [
      'sample.ods',
      'application/vnd.oasis.opendocument.spreadsheet',
      'Quarterly Loom Budget',
      'budget, looms',
      'Expenses\nItem Cost\nJacquard cards 1234.5\nCafé crème 3\nNotes\n企业级搜索 weaves flowers',
    ],
    [
      'sample.odp',
      'application/vnd.oasis.opendocument.presentation',
      'Loom Review',
      'review',
      'Encouraging results\nThe analytical engine weaves algebraic patterns.\nUn café crème at the quayside.\nSpeaker note about Jacquard cards.\nSecond slide: 企业级搜索',
    ],
  ])('reads %s (OpenDocument) with its meta.xml properties', async (name, mime, title, keywords, text) => {
    const out = await extractInProcess(inputOf(name, fixtureBytes(name)));
    expect(out.filter).toBe('odf');
    expect(out).toMatchObject({ text, mime, title, keywords, author: 'Ada Lovelace' });
  });

  it('reads a Word 97-2003 DOC', async () => {
    const out = await extractInProcess(inputOf('sample.doc', fixtureBytes('sample.doc')));
    expect(out).toMatchObject({
      filter: 'doc',
      mime: 'application/msword',
      text: 'Encouraging results\nThe analytical engine weaves algebraic patterns just as the Jacquard loom weaves flowers and leaves.\nUn café crème costs three coins at the quayside.',
    });
    // A DOCX saved as .doc is read as DOCX; a ZIP or text that is not either is refused.
    expect(pickFilter('doc', undefined, fixtureBytes('sample.docx').subarray(0, SNIFF_BYTES)).id).toBe(
      'docx',
    );
    const err = await expectFilterError(
      docFilter.extract(inputOf('x.doc', Buffer.alloc(4096, 'text '))),
      'corrupt',
    );
    expect(err.message).toMatch(/DOC/);
    // HTML or plain text saved under a .doc name is read as what it is; .dot is Graphviz text.
    const head = (s: string) => new Uint8Array(Buffer.from(s));
    expect(pickFilter('doc', undefined, head('<html><body><p>Word HTML</p></body></html>')).id).toBe('html');
    expect(pickFilter('doc', undefined, head('Dear Sir, plain text letter.\r\n')).id).toBe('text');
    expect(pickFilter('doc', undefined, fixtureBytes('sample.doc').subarray(0, SNIFF_BYTES)).id).toBe('doc');
    expect(pickFilter('dot').id).toBe('text');
  });

  it.each(['sample.xlsx', 'sample.pptx', 'sample.odt', 'sample.ods', 'sample.odp'])(
    'chooses the right filter for %s by extension, and by its bytes when misnamed',
    (name) => {
      const bytes = fixtureBytes(name);
      const want = { xlsx: 'xlsx', pptx: 'pptx', odt: 'odf', ods: 'odf', odp: 'odf' }[name.split('.')[1]];
      expect(pickFilter(name.split('.')[1]).id).toBe(want);
      expect(pickFilter('bin', 'application/octet-stream', bytes.subarray(0, SNIFF_BYTES)).id).toBe(want);
    },
  );
});

describe('xlsx filter', () => {
  it('reads shared, rich, inline, boolean and numeric cells; leaves formulas and phonetic guides out', async () => {
    const shared = `<sst xmlns="${SHEET_NS}"><si><t>plain &amp; simple</t></si><si><r><t>rich</t></r><r><rPr><b/></rPr><t xml:space="preserve"> text</t></r><rPh sb="0" eb="1"><t>ルビ</t></rPh></si></sst>`;
    const rows =
      '<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c></row>' +
      '<row r="2"><c r="A2" t="inlineStr"><is><t>inline words</t></is></c><c r="B2" t="b"><v>1</v></c><c r="C2"><v>42.5</v></c></row>' +
      '<row r="3"><c r="A3" t="str"><f>CONCAT("secret","formula")</f><v>formula result</v></c><c r="B3" t="s"><v>99</v></c></row>' +
      '<row r="4"></row>';
    const out = await extractInProcess(
      inputOf('cells.xlsx', xlsx([['Data', 'sheet1.xml', sheet(rows)]], shared)),
    );
    expect(out.text).toBe('Data\nplain & simple rich text\ninline words TRUE 42.5\nformula result');
    expect(out.text).not.toMatch(/secret|ルビ/);
  });

  it('shows numbers in date and time formats as ISO dates, in either date system', async () => {
    const styles = `<styleSheet xmlns="${SHEET_NS}"><numFmts><numFmt numFmtId="164" formatCode="yyyy\\-mm\\-dd hh:mm"/><numFmt numFmtId="165" formatCode="0.00&quot;d&quot;"/><numFmt numFmtId="166" formatCode="[Red]0.00"/><numFmt numFmtId="167" formatCode="h:mm"/></numFmts><cellXfs><xf numFmtId="0"/><xf numFmtId="14"/><xf numFmtId="164"/><xf numFmtId="165"/><xf numFmtId="166"/><xf numFmtId="167"/></cellXfs></styleSheet>`;
    const rows =
      '<row><c s="1"><v>45366</v></c><c s="2"><v>45366.3958333333</v></c><c s="3"><v>2.5</v></c><c s="4"><v>-3</v></c><c s="5"><v>0.75</v></c><c><v>45366</v></c></row>';
    const book = (pr: string) =>
      pkg({
        'xl/workbook.xml': `<workbook xmlns="${SHEET_NS}" xmlns:r="${REL}">${pr}<sheets><sheet name="D" r:id="r1"/></sheets></workbook>`,
        'xl/_rels/workbook.xml.rels': rels([
          ['r1', `${REL}/worksheet`, 'worksheets/sheet1.xml'],
          ['r2', `${REL}/styles`, 'styles.xml'],
        ]),
        'xl/worksheets/sheet1.xml': sheet(rows),
        'xl/styles.xml': styles,
      });
    const out = await extractInProcess(inputOf('dates.xlsx', book('')));
    expect(out.text).toBe('D\n2024-03-15 2024-03-15 09:30 2.5 -3 18:00 45366');
    const mac = await extractInProcess(inputOf('mac.xlsx', book('<workbookPr date1904="1"/>')));
    expect(mac.text.split('\n')[1].split(' ')[0]).toBe('2028-03-16');
  });

  it('orders sheets as the workbook lists them, not by part name, and works without shared strings', async () => {
    const out = await xlsxFilter.extract(
      inputOf(
        'order.xlsx',
        xlsx(
          [
            ['Summary', 'sheet2.xml', sheet('<row><c t="inlineStr"><is><t>first listed</t></is></c></row>')],
            ['Raw', 'sheet1.xml', sheet('<row><c><v>7</v></c></row>')],
          ],
          undefined,
          coreXml({ title: 'Ordered', creator: 'Tester' }),
        ),
      ),
    );
    expect(out.text).toBe('Summary\nfirst listed\nRaw\n7');
    expect(out).toMatchObject({ title: 'Ordered', author: 'Tester' });
  });

  it('refuses a package that is not a workbook, and a zip bomb in a sheet', async () => {
    const notBook = pkg({ 'notes.txt': 'hello' });
    expect(
      (await expectFilterError(xlsxFilter.extract(inputOf('x.xlsx', notBook)), 'corrupt')).message,
    ).toMatch(/XLSX/);
    const huge = Buffer.alloc(OFFICE_MAX_XML + 1024, ' ');
    const bomb = buildZip([
      { name: 'xl/workbook.xml', data: Buffer.from(`<workbook xmlns="${SHEET_NS}"/>`) },
      { name: 'xl/worksheets/sheet1.xml', data: huge, declaredSize: 4096 },
    ]);
    expect(bomb.length).toBeLessThan(1024 * 1024);
    const lying = buildZip([
      {
        name: '_rels/.rels',
        data: Buffer.from(rels([['rId1', `${REL}/officeDocument`, 'xl/workbook.xml']])),
      },
      {
        name: 'xl/workbook.xml',
        data: Buffer.from(
          `<workbook xmlns="${SHEET_NS}" xmlns:r="${REL}"><sheets><sheet name="S" r:id="r1"/></sheets></workbook>`,
        ),
      },
      {
        name: 'xl/_rels/workbook.xml.rels',
        data: Buffer.from(rels([['r1', `${REL}/worksheet`, 'worksheets/sheet1.xml']])),
      },
      { name: 'xl/worksheets/sheet1.xml', data: huge, declaredSize: 4096 },
    ]);
    expect(
      (await expectFilterError(xlsxFilter.extract(inputOf('bomb.xlsx', lying)), 'corrupt')).message,
    ).toMatch(/zip bomb/);
    const honest = buildZip([{ name: 'xl/workbook.xml', data: huge }]);
    expect(
      (await expectFilterError(xlsxFilter.extract(inputOf('big.xlsx', honest)), 'corrupt')).message,
    ).toMatch(/zip bomb: XLSX declares/);
  });
});

describe('office XML', () => {
  it('expands no DTD entities and loads nothing external (billion laughs, XXE)', async () => {
    const lol = Array.from({ length: 9 }, (_, i) =>
      i === 0 ? '<!ENTITY lol0 "lol">' : `<!ENTITY lol${i} "${`&lol${i - 1};`.repeat(10)}">`,
    ).join('');
    const shared = `<?xml version="1.0"?><!DOCTYPE sst [${lol}<!ENTITY xxe SYSTEM "file:///etc/passwd">]><sst xmlns="${SHEET_NS}"><si><t>&lol8; and &xxe; here</t></si></sst>`;
    const rows = '<row><c t="s"><v>0</v></c></row>';
    const out = await extractInProcess(inputOf('lol.xlsx', xlsx([['S', 'sheet1.xml', sheet(rows)]], shared)));
    expect(out.text).toBe('S\n&lol8; and &xxe; here');
    expect(out.text).not.toContain('root:');
  });
});

describe('pptx filter', () => {
  const DML = 'http://schemas.openxmlformats.org/drawingml/2006/main';
  const slide = (paras: string) =>
    `<p:sld xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main" xmlns:a="${DML}"><p:cSld><p:spTree><p:sp><p:txBody>${paras}</p:txBody></p:sp></p:spTree></p:cSld></p:sld>`;

  it('follows the slide list, breaks lines at a:br, and leaves field values out', async () => {
    const bytes = pkg({
      'ppt/presentation.xml': `<p:presentation xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main" xmlns:r="${REL}"><p:sldIdLst><p:sldId id="256" r:id="rB"/><p:sldId id="257" r:id="rA"/></p:sldIdLst></p:presentation>`,
      'ppt/_rels/presentation.xml.rels': rels([
        ['rA', `${REL}/slide`, 'slides/slide1.xml'],
        ['rB', `${REL}/slide`, 'slides/slide2.xml'],
      ]),
      'ppt/slides/slide1.xml': slide('<a:p><a:r><a:t>listed second</a:t></a:r></a:p>'),
      'ppt/slides/slide2.xml': slide(
        '<a:p><a:r><a:t>listed first</a:t></a:r><a:br/><a:r><a:t>after a break</a:t></a:r><a:fld type="slidenum"><a:t>9</a:t></a:fld></a:p>',
      ),
      'ppt/slides/_rels/slide2.xml.rels': rels([
        ['n1', `${REL}/notesSlide`, '../notesSlides/notesSlide1.xml'],
      ]),
      'ppt/notesSlides/notesSlide1.xml': slide(
        '<a:p><a:r><a:t>the notes &lt;of&gt; slide one</a:t></a:r></a:p>',
      ),
    });
    const out = await pptxFilter.extract(inputOf('deck.pptx', bytes));
    expect(out.text).toBe('listed first\nafter a break\nthe notes <of> slide one\nlisted second');
  });

  it('refuses a ZIP without a presentation', async () => {
    const err = await expectFilterError(
      pptxFilter.extract(inputOf('x.pptx', pkg({ 'a.xml': '<a/>' }))),
      'corrupt',
    );
    expect(err.message).toMatch(/PPTX/);
  });
});

describe('odf filter', () => {
  const NS =
    'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:dc="http://purl.org/dc/elements/1.1/"';
  const odt = (body: string, manifest = '') =>
    buildZip([
      { name: 'mimetype', data: Buffer.from('application/vnd.oasis.opendocument.text'), store: true },
      {
        name: 'content.xml',
        data: Buffer.from(
          `<office:document-content ${NS}><office:body><office:text>${body}</office:text></office:body></office:document-content>`,
        ),
      },
      ...(manifest ? [{ name: 'META-INF/manifest.xml', data: Buffer.from(manifest) }] : []),
    ]);

  it('keeps spaces, tabs and breaks; leaves deleted text and comment metadata out', async () => {
    const body =
      '<text:tracked-changes><text:changed-region><text:deletion><text:p>removed words</text:p></text:deletion></text:changed-region></text:tracked-changes>' +
      '<text:h>Heading</text:h><text:p>one<text:s text:c="3"/>two<text:tab/>three<text:line-break/>four</text:p>' +
      '<text:p>before<office:annotation><dc:creator>Reviewer Name</dc:creator><dc:date>2024-01-01</dc:date><text:p>comment text</text:p></office:annotation> after</text:p>';
    const out = await extractInProcess(inputOf('doc.odt', odt(body)));
    expect(out.text).toBe('Heading\none two three\nfour\nbefore comment text after');
    expect(out.text).not.toMatch(/removed|Reviewer|2024/);
    expect(out.mime).toBe('application/vnd.oasis.opendocument.text');
  });

  it('refuses an encrypted document as unsupported and a foreign package as corrupt', async () => {
    const manifest =
      '<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0"><manifest:file-entry manifest:full-path="content.xml"><manifest:encryption-data manifest:checksum-type="SHA1"/></manifest:file-entry></manifest:manifest>';
    const err = await expectFilterError(
      odfFilter.extract(inputOf('secret.odt', odt('<text:p>x</text:p>', manifest))),
      'unsupported',
    );
    expect(err.message).toMatch(/encrypted/);
    const epub = buildZip([{ name: 'mimetype', data: Buffer.from('application/epub+zip'), store: true }]);
    expect(
      (await expectFilterError(odfFilter.extract(inputOf('book.odt', epub)), 'corrupt')).message,
    ).toMatch(/epub/);
  });
});
