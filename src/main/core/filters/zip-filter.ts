import { FilterError, type Filter, type FilterInput, type FilterOutput } from './filter.js';
import { METADATA_FILTER_ID, pickFilter } from './filter-table.js';
import { memberText } from './member-text.js';
import { readZipDirectory, readZipEntry } from './zip-directory.js';

/**
 * ZIP archives: the names of the files inside (so an archive is found by what it holds), then
 * the text of the members a filter reads — documents, text, mail — each under its filter's size
 * cap and all within one inflation budget, so a zip bomb inflates nothing past it. Archives
 * inside are listed, not opened; encrypted or damaged members are listed and skipped.
 */

const ZIP_MIME = 'application/zip';
/** Members whose text is read, at most. */
export const ZIP_MAX_MEMBERS = 50;
/** Bytes inflated from one archive, at most (members past it are listed only). */
export const ZIP_MAX_INFLATED = 64 * 1024 * 1024;
/** Largest member without an extension that is inflated to sniff its type. */
const UNNAMED_MAX = 1024 * 1024;
/** Filters a member is not read with. */
const NOT_FOR_MEMBERS = new Set([METADATA_FILTER_ID, 'zip', 'gzip']);

function extOf(name: string): string {
  const base = name.slice(name.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  return dot > 0 ? base.slice(dot + 1).toLowerCase() : '';
}

export const zipFilter: Filter = {
  id: 'zip',
  async extract(input: FilterInput): Promise<FilterOutput> {
    if (input.bytes.length === 0) throw new FilterError('corrupt', 'unreadable ZIP archive: empty file');
    const entries = readZipDirectory(input.bytes).filter((e) => !e.name.endsWith('/'));
    const parts: string[] = [];
    if (entries.length > 0) parts.push(entries.map((e) => e.name).join('\n'));
    let budget = ZIP_MAX_INFLATED;
    let read = 0;
    for (const e of entries) {
      if (read >= ZIP_MAX_MEMBERS) break;
      const ext = extOf(e.name);
      const byName = pickFilter(ext);
      // A known type no filter reads (images, media, programs) is not inflated; a name without
      // an extension (README, Makefile) is, up to 1 MB, to see whether it is text.
      const unknown = byName.id === METADATA_FILTER_ID;
      if ((unknown && ext !== '') || (NOT_FOR_MEMBERS.has(byName.id) && !unknown)) continue;
      const cap = Math.min(unknown ? UNNAMED_MAX : byName.maxBytes, budget);
      if (e.uncompressedSize > cap) continue;
      let bytes: Buffer;
      try {
        bytes = readZipEntry(input.bytes, e, cap);
      } catch {
        continue; // encrypted, damaged or lying about its size: listed, not read
      }
      budget -= bytes.length;
      const text = await memberText(e.name, undefined, bytes, input.url, NOT_FOR_MEMBERS);
      if (text === null) continue;
      read++;
      if (text.trim()) parts.push(text);
    }
    return { text: parts.join('\n\n'), mime: ZIP_MIME };
  },
};
