import {
  FILTER_TABLE,
  METADATA_FILTER_ID,
  mimeForExtension,
  normaliseMime,
  pickFilter,
  SNIFF_BYTES,
} from '../../filters/filter-table.js';

/**
 * What a fetched body is: its MIME type (Content-Type checked against the bytes), charset, name and
 * extension for the filter table.
 */

/** A MIME type each filter reads (its table row's first), to hand on for a body the bytes identify. */
const MIME_BY_FILTER: Record<string, string> = Object.fromEntries(
  FILTER_TABLE.filter((s) => s.mimes.length > 0).map((s) => [s.id, s.mimes[0]]),
);

/** `text/html; charset=GBK` → `{ mime: 'text/html', charset: 'GBK' }`. */
export function parseContentType(value: string | undefined): { mime?: string; charset?: string } {
  if (!value) return {};
  const mime = normaliseMime(value) || undefined;
  const m = /;\s*charset\s*=\s*("?)([^";\s]+)\1/i.exec(value);
  return { mime, charset: m ? m[2] : undefined };
}

/**
 * The MIME type to hand the filter table: a binary signature in the body (`%PDF-`, a DOCX zip) wins
 * over the label; a known label is kept; a generic or missing one is replaced by what the extension
 * and the bytes say. Returns `application/octet-stream` for bytes no filter reads.
 */
export function effectiveMime(declared: string | undefined, ext: string, body: Uint8Array): string {
  const head = body.subarray(0, SNIFF_BYTES);
  const spec = pickFilter(ext, declared, head);
  if (spec.id === METADATA_FILTER_ID) return declared || mimeForExtension(ext);
  const filterOfLabel = declared ? pickFilter('', declared).id : METADATA_FILTER_ID;
  if (declared && filterOfLabel === spec.id) return declared;
  return MIME_BY_FILTER[spec.id] ?? declared ?? mimeForExtension(ext);
}

/** Last path segment (decoded) of a URL, or its host for `/`. */
export function nameOfUrl(u: URL): string {
  const segs = u.pathname.split('/');
  const last = segs[segs.length - 1] || segs[segs.length - 2] || '';
  let name = last;
  try {
    name = decodeURIComponent(last);
  } catch {}
  return name || u.hostname;
}

/** Lowercase extension of a URL's last path segment (`''` for `/docs/` or `/page`). */
export function extOfUrl(u: URL): string {
  const segs = u.pathname.split('/');
  const last = segs[segs.length - 1];
  const dot = last.lastIndexOf('.');
  return dot > 0 ? last.slice(dot + 1).toLowerCase() : '';
}

/** A parsed HTTP date in ms, or undefined. */
export function httpDate(value: string | undefined): number | undefined {
  if (!value) return undefined;
  const t = Date.parse(value);
  return Number.isFinite(t) ? t : undefined;
}
