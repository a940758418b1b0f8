import type { Filter } from './filter.js';

/** Loads a filter implementation on first use, so a worker pays for pdf.js only when it meets a PDF. */
export type FilterLoader = () => Promise<Filter>;

/** The built-in filter implementations, by the ids of `FILTER_TABLE`. */
export const BUILTIN_FILTERS: Readonly<Record<string, FilterLoader>> = {
  text: async () => (await import('./text-filter.js')).textFilter,
  html: async () => (await import('./html-filter.js')).htmlFilter,
  pdf: async () => (await import('./pdf-filter.js')).pdfFilter,
  docx: async () => (await import('./docx-filter.js')).docxFilter,
  rtf: async () => (await import('./rtf-filter.js')).rtfFilter,
  doc: async () => (await import('./doc-filter.js')).docFilter,
  xlsx: async () => (await import('./xlsx-filter.js')).xlsxFilter,
  pptx: async () => (await import('./pptx-filter.js')).pptxFilter,
  epub: async () => (await import('./epub-filter.js')).epubFilter,
  odf: async () => (await import('./odf-filter.js')).odfFilter,
  metadata: async () => (await import('./metadata-filter.js')).metadataFilter,
};
