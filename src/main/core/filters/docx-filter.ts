import { loadLibrary, unreadable, type Filter, type FilterInput, type FilterOutput } from './filter.js';
import {
  OFFICE_MAX_UNCOMPRESSED,
  OFFICE_MAX_XML,
  OfficePackage,
  ooxmlCoreProperties,
  optionalProperties,
} from './office-package.js';

/**
 * DOCX (mammoth): body text, plus title/author/keywords/description from the core properties
 * part. Zip bombs are refused before mammoth inflates anything: declared sizes are capped, and
 * every XML part is test-inflated with its output limited to its declared size.
 */

/** Cap on the declared uncompressed size of the whole package (media included). */
export const DOCX_MAX_UNCOMPRESSED = OFFICE_MAX_UNCOMPRESSED;
/** Cap on the XML parts mammoth parses (document, styles, numbering, notes…), declared and actual. */
export const DOCX_MAX_XML = OFFICE_MAX_XML;

const DOCX_MIME = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

/** mammoth (with JSZip) loads on the first DOCX, not when the filter module loads. */
const loadMammoth = () => loadLibrary('DOCX support', async () => (await import('mammoth')).default);

export const docxFilter: Filter = {
  id: 'docx',
  async extract(input: FilterInput): Promise<FilterOutput> {
    const { bytes } = input;
    const pkg = new OfficePackage(bytes, 'DOCX', DOCX_MAX_XML, DOCX_MAX_UNCOMPRESSED);
    pkg.testXml();
    const mammoth = await loadMammoth();
    let text: string;
    try {
      const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      text = (await mammoth.extractRawText({ buffer })).value;
    } catch (err) {
      throw unreadable('DOCX', err);
    }
    const props = optionalProperties(() => ooxmlCoreProperties(pkg));
    return { text, ...props, mime: DOCX_MIME };
  },
};
