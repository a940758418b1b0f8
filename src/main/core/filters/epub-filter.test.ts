import { describe, expect, it } from 'vitest';
import { expectFilterError, fixtureBytes, inputOf } from '../../../../test/fixtures/filters/support.js';
import { buildZip } from '../../../../test/fixtures/filters/zip-builder.js';
import { epubFilter } from './epub-filter.js';
import { extractInProcess } from './filter-runner.js';
import { pickFilter, SNIFF_BYTES } from './filter-table.js';

const CONTAINER = `<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="book/package.opf" media-type="application/oebps-package+xml"/></rootfiles></container>`;

const chapter = (body: string) =>
  `<?xml version="1.0" encoding="utf-8"?><html xmlns="http://www.w3.org/1999/xhtml"><head><title>t</title><style>p { color: red }</style></head><body>${body}</body></html>`;

function epub(opts: { encryption?: string; spine?: string } = {}): Buffer {
  const opf = `<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>The Loom Book</dc:title><dc:creator>Ada Lovelace</dc:creator><dc:creator>Charles Babbage</dc:creator><dc:subject>weaving</dc:subject><dc:subject>engines</dc:subject><dc:description>Two chapters &amp; a cover.</dc:description></metadata><manifest><item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/><item id="c1" href="text/chapter%201.xhtml" media-type="application/xhtml+xml"/><item id="c2" href="text/chapter2.xhtml" media-type="application/xhtml+xml"/><item id="img" href="cover.png" media-type="image/png"/></manifest><spine>${opts.spine ?? '<itemref idref="c2"/><itemref idref="img"/><itemref idref="c1"/>'}</spine></package>`;
  return buildZip([
    { name: 'mimetype', data: Buffer.from('application/epub+zip'), store: true },
    { name: 'META-INF/container.xml', data: Buffer.from(CONTAINER) },
    ...(opts.encryption ? [{ name: 'META-INF/encryption.xml', data: Buffer.from(opts.encryption) }] : []),
    { name: 'book/package.opf', data: Buffer.from(opf) },
    { name: 'book/nav.xhtml', data: Buffer.from(chapter('<nav><ol><li>table of contents</li></ol></nav>')) },
    {
      name: 'book/text/chapter 1.xhtml',
      data: Buffer.from(chapter('<h1>Chapter one</h1><p>Jacquard cards.</p>')),
    },
    {
      name: 'book/text/chapter2.xhtml',
      data: Buffer.from(chapter('<h1>Chapter two</h1><p>Read first, café.</p><script>hidden()</script>')),
    },
    { name: 'book/cover.png', data: Buffer.from([0x89, 0x50, 0x4e, 0x47]) },
  ]);
}

const encryption = (algorithm: string, uri: string) =>
  `<encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:container" xmlns:enc="http://www.w3.org/2001/04/xmlenc#"><enc:EncryptedData><enc:EncryptionMethod Algorithm="${algorithm}"/><enc:CipherData><enc:CipherReference URI="${uri}"/></enc:CipherData></enc:EncryptedData></encryption>`;

describe('epub filter', () => {
  it("reads LibreOffice's EPUB export", async () => {
    const out = await extractInProcess(inputOf('sample.epub', fixtureBytes('sample.epub')));
    expect(out).toMatchObject({
      filter: 'epub',
      mime: 'application/epub+zip',
      title: 'Trawl Filter Sample',
      author: 'Ada Lovelace',
      text: 'Encouraging results\nThe analytical engine weaves algebraic patterns just as the Jacquard loom weaves flowers and leaves.\nUn café crème costs three coins at the quayside.',
    });
    expect(pickFilter('bin', undefined, fixtureBytes('sample.epub').subarray(0, SNIFF_BYTES)).id).toBe(
      'epub',
    );
  });

  it('reads the spine in order (escaped names too), leaves out what is not in it, and reads the metadata', async () => {
    const out = await extractInProcess(inputOf('book.epub', epub()));
    expect(out.text).toBe('Chapter two\nRead first, café.\nChapter one\nJacquard cards.');
    expect(out).toMatchObject({
      title: 'The Loom Book',
      author: 'Ada Lovelace, Charles Babbage',
      keywords: 'weaving, engines',
      description: 'Two chapters & a cover.',
    });
  });

  it('refuses a book whose chapters are encrypted, and reads one whose fonts alone are obfuscated', async () => {
    const drm = epub({
      encryption: encryption('http://www.w3.org/2001/04/xmlenc#aes128-cbc', 'book/text/chapter2.xhtml'),
    });
    expect(
      (await expectFilterError(epubFilter.extract(inputOf('drm.epub', drm)), 'unsupported')).message,
    ).toMatch(/encrypted/);
    const fonts = epub({
      encryption: encryption('http://www.idpf.org/2008/embedding', 'book/text/chapter2.xhtml'),
    });
    expect((await extractInProcess(inputOf('fonts.epub', fonts))).text).toContain('Jacquard');
  });

  it('refuses a ZIP that is not a book', async () => {
    const zip = buildZip([{ name: 'mimetype', data: Buffer.from('application/epub+zip'), store: true }]);
    expect((await expectFilterError(epubFilter.extract(inputOf('x.epub', zip)), 'corrupt')).message).toMatch(
      /EPUB/,
    );
  });
});
