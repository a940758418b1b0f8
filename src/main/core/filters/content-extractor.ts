import type { ContentExtractor } from '../crawl/tree-crawler.js';
import { METADATA_FILTER_ID, pickFilter } from './filter-table.js';
import type { FilterRunner } from './filter-runner.js';

/**
 * The crawler's view of the filters: which filter an item gets (and whether its bytes are needed
 * at all), and running it under the runner's caps. Files without an extension (README, Makefile)
 * are read up to the text filter's limit and sniffed by the runner rather than skipped.
 */
export function createContentExtractor(runner: FilterRunner): ContentExtractor & { close(): Promise<void> } {
  const sniffBytes = pickFilter('txt').maxBytes;
  return {
    pick: (ext, mime) => {
      const spec = pickFilter(ext, mime);
      if (ext === '' && !mime && spec.id === METADATA_FILTER_ID)
        return { id: 'sniff', maxBytes: sniffBytes, metadataOnly: false };
      return {
        id: spec.id,
        maxBytes: spec.maxBytes,
        metadataOnly: spec.id === METADATA_FILTER_ID,
        ...(spec.headBytes !== undefined ? { headBytes: spec.headBytes } : {}),
      };
    },
    run: (input) => runner.run(input),
    close: () => runner.close(),
  };
}
