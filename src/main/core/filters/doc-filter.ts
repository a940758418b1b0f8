import { FilterError, type Filter, type FilterInput, type FilterOutput } from './filter.js';

/**
 * Word 97–2003 documents (`.doc`, `.dot`; word-extractor, which reads the OLE compound file and
 * its piece table): the body, then text boxes, footnotes, endnotes, comments, headers and footers.
 * The OLE property streams (title, author) are not read. Encrypted or damaged files are refused
 * as corrupt; only OLE input reaches the library (a DOCX named `.doc` is sniffed as DOCX first).
 */

const DOC_MIME = 'application/msword';
const OLE_MAGIC = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];

/** word-extractor loads on the first DOC, not when the filter module loads. */
async function loadExtractor(): Promise<typeof import('word-extractor').default> {
  try {
    return (await import('word-extractor')).default;
  } catch (err) {
    throw new FilterError(
      'unsupported',
      `DOC support unavailable: ${(err as Error)?.message ?? String(err)}`,
    );
  }
}

export const docFilter: Filter = {
  id: 'doc',
  async extract(input: FilterInput): Promise<FilterOutput> {
    const { bytes } = input;
    if (bytes.length < 512 || !OLE_MAGIC.every((b, i) => bytes[i] === b))
      throw new FilterError('corrupt', 'unreadable DOC: not an OLE compound file (Word 97–2003)');
    const WordExtractor = await loadExtractor();
    let parts: string[];
    try {
      const doc = await new WordExtractor().extract(
        Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength),
      );
      parts = [
        doc.getBody(),
        doc.getTextboxes({ includeHeadersAndFooters: false, includeBody: true }),
        doc.getFootnotes(),
        doc.getEndnotes(),
        doc.getAnnotations(),
        doc.getHeaders({ includeFooters: true }),
      ];
    } catch (err) {
      throw new FilterError('corrupt', `unreadable DOC: ${(err as Error)?.message ?? String(err)}`);
    }
    return { text: parts.filter((p) => p.trim()).join('\n'), mime: DOC_MIME };
  },
};
