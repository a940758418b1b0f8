import { createRequire } from 'node:module';
import path from 'node:path';
import type { PDFParse as PdfParser } from 'pdf-parse';
import { FilterError, type Filter, type FilterInput, type FilterOutput } from './filter.js';
import { MAX_TEXT_CHARS, normalizeLine } from './text-normalization.js';

/**
 * PDF (pdf-parse on pdf.js): text of every page, title/author/keywords/subject from the document
 * info (XMP as fallback). Encrypted PDFs are `unsupported`; unreadable ones `corrupt`.
 */

/** Pages extracted per pdf.js call; extraction stops once the text cap is reached. */
const PAGE_BATCH = 32;

function pdfjsAssets(): { cMapUrl?: string; standardFontDataUrl?: string } {
  try {
    const require = createRequire(import.meta.url);
    const fromPdfParse = createRequire(require.resolve('pdf-parse'));
    const root = path.dirname(fromPdfParse.resolve('pdfjs-dist/package.json'));
    return {
      cMapUrl: path.join(root, 'cmaps') + path.sep,
      standardFontDataUrl: path.join(root, 'standard_fonts') + path.sep,
    };
  } catch {
    return {};
  }
}

let assets: ReturnType<typeof pdfjsAssets> | undefined;
let parserClass: Promise<typeof PdfParser> | undefined;

/** pdf.js is large: load it on the first PDF, not when the filter module loads. */
function loadParser(): Promise<typeof PdfParser> {
  parserClass ??= import('pdf-parse').then(
    (m) => m.PDFParse,
    (err: unknown) => {
      parserClass = undefined;
      throw new FilterError(
        'unsupported',
        `PDF support unavailable: ${(err as Error)?.message ?? String(err)}`,
      );
    },
  );
  return parserClass;
}

function toFilterError(err: unknown): FilterError {
  if (err instanceof FilterError) return err;
  const e = err as { name?: string; message?: string };
  const message = (e?.message ?? String(err)).replace(/\s+/g, ' ').trim();
  if (e?.name === 'PasswordException' || /password/i.test(message))
    return new FilterError('unsupported', `PDF is password-protected: ${message}`);
  return new FilterError('corrupt', `unreadable PDF: ${message || 'unknown error'}`);
}

function infoString(value: unknown): string | undefined {
  return typeof value === 'string' ? normalizeLine(value) : undefined;
}

export const pdfFilter: Filter = {
  id: 'pdf',
  async extract(input: FilterInput): Promise<FilterOutput> {
    if (input.bytes.length === 0) throw new FilterError('corrupt', 'unreadable PDF: empty file');
    assets ??= pdfjsAssets();
    const PDFParse = await loadParser();
    // pdf.js transfers (detaches) the buffer it is given: hand it a copy so the caller's stays usable.
    let parser: PdfParser | undefined;
    try {
      parser = new PDFParse({
        data: input.bytes.slice(),
        verbosity: 0,
        isEvalSupported: false,
        useSystemFonts: false,
        disableFontFace: true,
        cMapPacked: true,
        ...assets,
      });
      const info = await parser.getInfo();
      const dict = (info.info ?? {}) as Record<string, unknown>;
      const xmp = info.metadata;
      const xmpGet = (key: string): string | undefined => {
        try {
          return infoString(xmp?.get(key));
        } catch {
          return undefined;
        }
      };
      const total = info.total;
      const pages: string[] = [];
      let length = 0;
      for (let first = 1; first <= total && length < MAX_TEXT_CHARS; first += PAGE_BATCH) {
        const last = Math.min(total, first + PAGE_BATCH - 1);
        const result = await parser.getText({ first, last, pageJoiner: '' });
        for (const page of result.pages) {
          pages.push(page.text);
          length += page.text.length;
        }
      }
      return {
        text: pages.join('\n'),
        title: infoString(dict.Title) ?? xmpGet('dc:title'),
        author: infoString(dict.Author) ?? xmpGet('dc:creator'),
        keywords: infoString(dict.Keywords) ?? xmpGet('pdf:keywords'),
        description: infoString(dict.Subject) ?? xmpGet('dc:description'),
        mime: 'application/pdf',
      };
    } catch (err) {
      throw toFilterError(err);
    } finally {
      await parser?.destroy().catch(() => undefined);
    }
  },
};
