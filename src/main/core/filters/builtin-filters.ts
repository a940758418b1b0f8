import type { Filter } from './filter.js';

/** Loads a filter implementation on first use, so a worker pays for pdf.js only when it meets a PDF. */
export type FilterLoader = () => Promise<Filter>;

/**
 * A loader that imports once: later calls get the same module without resolving its specifier
 * again (a filter worker preloads every filter while the TypeScript loader is still registered;
 * the gzip filter asks for its inner filter afterwards).
 */
function once(load: FilterLoader): FilterLoader {
  let loaded: Promise<Filter> | undefined;
  return () => {
    loaded ??= load();
    loaded.catch(() => {
      loaded = undefined; // a failed import may be retried
    });
    return loaded;
  };
}

/** The built-in filter implementations, by the ids of `FILTER_TABLE`. */
export const BUILTIN_FILTERS: Readonly<Record<string, FilterLoader>> = {
  text: once(async () => (await import('./text-filter.js')).textFilter),
  html: once(async () => (await import('./html-filter.js')).htmlFilter),
  pdf: once(async () => (await import('./pdf-filter.js')).pdfFilter),
  docx: once(async () => (await import('./docx-filter.js')).docxFilter),
  doc: once(async () => (await import('./doc-filter.js')).docFilter),
  rtf: once(async () => (await import('./rtf-filter.js')).rtfFilter),
  xls: once(async () => (await import('./xls-filter.js')).xlsFilter),
  ppt: once(async () => (await import('./ppt-filter.js')).pptFilter),
  xlsx: once(async () => (await import('./xlsx-filter.js')).xlsxFilter),
  pptx: once(async () => (await import('./pptx-filter.js')).pptxFilter),
  odf: once(async () => (await import('./odf-filter.js')).odfFilter),
  epub: once(async () => (await import('./epub-filter.js')).epubFilter),
  email: once(async () => (await import('./email-filter.js')).emailFilter),
  msg: once(async () => (await import('./msg-filter.js')).msgFilter),
  zip: once(async () => (await import('./zip-filter.js')).zipFilter),
  gzip: once(async () => (await import('./gzip-filter.js')).gzipFilter),
  jpeg: once(async () => (await import('./image-filter.js')).jpegFilter),
  image: once(async () => (await import('./image-filter.js')).imageFilter),
  audio: once(async () => (await import('./audio-filter.js')).audioFilter),
  metadata: once(async () => (await import('./metadata-filter.js')).metadataFilter),
};
