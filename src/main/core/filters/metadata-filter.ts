import type { Filter, FilterInput, FilterOutput } from './filter.js';
import { METADATA_FILTER_ID, mimeForExtension, normaliseMime } from './filter-table.js';

/**
 * The catch-all filter: extracts no text, only decides the MIME type, so the item is indexed by
 * its metadata (name, path, extension, size, dates). Never reads the bytes; never fails.
 */
export const metadataFilter: Filter = {
  id: METADATA_FILTER_ID,
  async extract(input: FilterInput): Promise<FilterOutput> {
    const given = input.mime ? normaliseMime(input.mime) : '';
    return { text: '', mime: given || mimeForExtension(input.ext) };
  },
};
