import { describe, expect, it } from 'vitest';
import { expectFilterError, fixtureBytes, inputOf } from '../../../../test/fixtures/filters/support.js';
import { buildDocx, buildZip, coreXml, documentXml } from '../../../../test/fixtures/filters/zip-builder.js';
import { DOCX_MAX_UNCOMPRESSED, DOCX_MAX_XML, docxFilter } from './docx-filter.js';
import { extractInProcess } from './filter-runner.js';
import { readZipDirectory, readZipEntry } from './zip-directory.js';

describe('docx filter', () => {
  it('extracts text and core properties from a real DOCX (LibreOffice export)', async () => {
    const out = await extractInProcess(inputOf('sample.docx', fixtureBytes('sample.docx')));
    expect(out.mime).toBe('application/vnd.openxmlformats-officedocument.wordprocessingml.document');
    expect(out.title).toBe('Trawl Filter Sample');
    expect(out.author).toBe('Ada Lovelace');
    expect(out.keywords).toBe('analytical engine filters');
    expect(out.description).toBe('A small document for the filter conformance suite.');
    expect(out.text).toBe(
      'Encouraging results\nThe analytical engine weaves algebraic patterns just as the Jacquard loom weaves flowers and leaves.\nUn café crème costs three coins at the quayside.',
    );
  });

  it('reads a package built from parts, with escaped core properties', async () => {
    const docx = buildDocx({
      document: documentXml(['第一段 企业级搜索', 'Second & last paragraph']),
      core: coreXml({
        title: 'Built &amp; zipped',
        creator: 'Test Writer',
        keywords: 'zip, parts',
        description: 'Made by the test',
      }),
    });
    const out = await extractInProcess(inputOf('built.docx', docx));
    expect(out.text).toBe('第一段 企业级搜索\nSecond & last paragraph');
    expect(out).toMatchObject({
      title: 'Built & zipped',
      author: 'Test Writer',
      keywords: 'zip, parts',
      description: 'Made by the test',
    });
  });

  it('extracts text when core properties are missing', async () => {
    const out = await docxFilter.extract(
      inputOf('bare.docx', buildDocx({ document: documentXml(['only text']) })),
    );
    expect(out.text.trim()).toBe('only text');
    expect(out.title).toBeUndefined();
  });

  it('refuses a truncated DOCX', async () => {
    const bytes = fixtureBytes('sample.docx');
    for (const n of [100, Math.floor(bytes.length / 2), bytes.length - 10]) {
      const err = await expectFilterError(
        docxFilter.extract(inputOf('cut.docx', bytes.subarray(0, n))),
        'corrupt',
      );
      expect(err.message).toMatch(/ZIP|DOCX/);
    }
  });

  it('refuses a ZIP that is not a Word document', async () => {
    const zip = buildZip([{ name: 'notes.txt', data: Buffer.from('hello') }]);
    await expectFilterError(docxFilter.extract(inputOf('notes.docx', zip)), 'corrupt');
  });

  it('refuses a zip bomb whose header lies about the inflated size', async () => {
    // 64 MB of XML deflates to ~64 KB; the header claims 2 KB.
    const huge = Buffer.alloc(64 * 1024 * 1024, '<w:p/>');
    const docx = buildDocx({ document: { name: 'word/document.xml', data: huge, declaredSize: 2048 } });
    expect(docx.length).toBeLessThan(1024 * 1024);
    const err = await expectFilterError(docxFilter.extract(inputOf('bomb.docx', docx)), 'corrupt');
    expect(err.message).toMatch(/zip bomb/);
  });

  it('refuses a zip bomb that declares its size honestly', async () => {
    const xml = Buffer.alloc(DOCX_MAX_XML + 1024, ' ');
    const docx = buildDocx({ document: { name: 'word/document.xml', data: xml } });
    const err = await expectFilterError(docxFilter.extract(inputOf('bomb.docx', docx)), 'corrupt');
    expect(err.message).toMatch(/zip bomb.*XML/);
  });

  it('refuses a package declaring more than the total cap, media included', async () => {
    const media = {
      name: 'word/media/image1.png',
      data: Buffer.from('tiny'),
      declaredSize: DOCX_MAX_UNCOMPRESSED + 1,
    };
    const docx = buildDocx({ document: documentXml(['x']), extra: [media] });
    const err = await expectFilterError(docxFilter.extract(inputOf('bomb.docx', docx)), 'corrupt');
    expect(err.message).toMatch(/zip bomb/);
  });
});

describe('zip directory', () => {
  it('lists entries with declared sizes and inflates within them', () => {
    const zip = buildZip([
      { name: 'a.txt', data: Buffer.from('alpha'.repeat(100)) },
      { name: 'dir/b.bin', data: Buffer.from([1, 2, 3]), store: true },
    ]);
    const entries = readZipDirectory(zip);
    expect(entries.map((e) => [e.name, e.method, e.uncompressedSize])).toEqual([
      ['a.txt', 8, 500],
      ['dir/b.bin', 0, 3],
    ]);
    expect(readZipEntry(zip, entries[0], 1000).toString()).toBe('alpha'.repeat(100));
    expect([...readZipEntry(zip, entries[1], 1000)]).toEqual([1, 2, 3]);
  });

  it('refuses entries over the caller cap and damaged data', async () => {
    const zip = buildZip([{ name: 'a.txt', data: Buffer.from('x'.repeat(5000)) }]);
    const [entry] = readZipDirectory(zip);
    await expectFilterError(
      Promise.resolve().then(() => readZipEntry(zip, entry, 100)),
      'corrupt',
    );
    const damaged = Buffer.from(zip);
    const start = 30 + 'a.txt'.length;
    damaged.fill(0xff, start, start + 4);
    await expectFilterError(
      Promise.resolve().then(() => readZipEntry(damaged, entry, 10_000)),
      'corrupt',
    );
  });

  it("reads LibreOffice's ZIP: every XML part inflates to its declared size", () => {
    const docx = fixtureBytes('sample.docx');
    const entries = readZipDirectory(docx);
    expect(entries.map((e) => e.name)).toEqual(
      expect.arrayContaining(['word/document.xml', 'docProps/core.xml', '_rels/.rels']),
    );
    for (const e of entries) expect(readZipEntry(docx, e, DOCX_MAX_XML).length).toBe(e.uncompressedSize);
  });
});
