import { BUILTIN_FILTERS } from './builtin-filters.js';
import { pickFilter, SNIFF_BYTES } from './filter-table.js';

/**
 * The text of a file held inside another — a mail attachment, an archive member — read by the
 * filter its name, MIME type and bytes choose. Returns null when no filter reads it (the chosen
 * filter is in `skip`, has no implementation, or caps its size below it), and '' when the filter
 * fails: one unreadable member costs only its own text.
 */
export async function memberText(
  name: string,
  mime: string | undefined,
  bytes: Uint8Array,
  url: string,
  skip: ReadonlySet<string>,
): Promise<string | null> {
  const base = name.slice(name.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  const ext = dot > 0 ? base.slice(dot + 1).toLowerCase() : '';
  const spec = pickFilter(ext, mime || undefined, bytes.subarray(0, SNIFF_BYTES));
  const load = skip.has(spec.id) ? undefined : BUILTIN_FILTERS[spec.id];
  if (!load || bytes.length > spec.maxBytes) return null;
  try {
    return (await (await load()).extract({ bytes, name: base, ext, url })).text;
  } catch {
    return '';
  }
}
