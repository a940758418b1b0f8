import { loadLibrary, unreadable, type Filter, type FilterInput, type FilterOutput } from './filter.js';
import { oleStreams } from './ole-package.js';

/**
 * Word 97–2003 documents (`.doc`, `.dot`; word-extractor, which reads the OLE compound file and
 * its piece table): the body, then text boxes, footnotes, endnotes, comments, headers and footers.
 * Title, author, keywords and comments come from the summary properties. Encrypted files are
 * refused as unsupported, damaged ones as corrupt; only OLE input reaches the library (a DOCX named `.doc` is sniffed as DOCX first).
 */

const DOC_MIME = 'application/msword';

/** word-extractor loads on the first DOC, not when the filter module loads. */
const loadExtractor = () => loadLibrary('DOC support', async () => (await import('word-extractor')).default);

export const docFilter: Filter = {
  id: 'doc',
  async extract(input: FilterInput): Promise<FilterOutput> {
    const { bytes } = input;
    // Opening it first refuses what is not OLE, or is encrypted, and gives the summary properties.
    const ole = await oleStreams(bytes, 'DOC');
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
      throw unreadable('DOC', err);
    }
    return { text: parts.filter((p) => p.trim()).join('\n'), ...ole.properties(), mime: DOC_MIME };
  },
};
