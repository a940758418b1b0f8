import type { Filter, FilterInput, FilterOutput } from './filter.js';
import { mimeForExtension, normaliseMime } from './filter-table.js';
import { decodeText } from './text-decoding.js';

/**
 * Plain text and source code: detects the encoding (BOM, charset hint, UTF-8, chardet) and
 * returns the decoded text. Binary content is refused with `FilterError('corrupt')`.
 */
export const textFilter: Filter = {
  id: 'text',
  extract: async (input) => extractText(input),
  extractSync: extractText,
};

function extractText(input: FilterInput): FilterOutput {
  const { text, encoding } = decodeText(input.bytes, input.charset);
  const mime = input.mime ? normaliseMime(input.mime) : mimeForExtension(input.ext, 'text/plain');
  return { text, mime: mime.startsWith('application/octet') || !mime ? 'text/plain' : mime, encoding };
}
