import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { contentHash } from '../index/content-hash.js';
import { runFilterSync } from './filter-execution.js';
import type { Filter } from './filter.js';
import { pickFilter, SNIFF_BYTES } from './filter-table.js';
import { htmlFilter } from './html-filter.js';
import { textFilter } from './text-filter.js';

/**
 * Text left at the source. The full-text index is contentless, and most of a desktop corpus is
 * small local text and HTML files whose text is cheap to extract again; for those the index keeps
 * no compressed copy (about a third of its size) and snippets and the preview read the file again.
 * What they show is always the indexed text: the file's bytes must still hash to the row's
 * `content_hash`, or nothing is shown until a crawl indexes the new bytes (and their security).
 */

/** Largest file (bytes) whose text is left at the source; a copy of larger files' text is kept. */
export const TEXT_AT_SOURCE_MAX_BYTES = 256 * 1024;

/** The filters that can run again at query time: synchronous and cheap. */
const AGAIN: ReadonlyMap<string, Filter> = new Map([
  [textFilter.id, textFilter],
  [htmlFilter.id, htmlFilter],
]);

/** Whether the text a filter extracted from `bytes` bytes can be extracted again at query time. */
export function canLeaveTextAtSource(filterId: string | undefined, bytes: number): boolean {
  return filterId !== undefined && AGAIN.has(filterId) && bytes <= TEXT_AT_SOURCE_MAX_BYTES;
}

/** What {@link readTextAtSource} needs of a document row. */
export interface TextAtSourceRow {
  url: string;
  name: string;
  ext: string;
  content_hash: string | null;
}

/**
 * The indexed text of a local file whose text was left at the source: the file is read again
 * (synchronously, at most {@link TEXT_AT_SOURCE_MAX_BYTES}) and run through the filter the crawl
 * used. Returns null when the file is gone or unreadable, has grown past the limit, or no longer
 * hashes to `content_hash` (changed since it was indexed). Never throws.
 */
export function readTextAtSource(row: TextAtSourceRow): string | null {
  if (!row.content_hash || !row.url.startsWith('file:')) return null;
  const bytes = readSmallFile(fileURLToPath(row.url));
  if (!bytes || contentHash(bytes) !== row.content_hash) return null;
  const spec = pickFilter(row.ext, undefined, bytes.subarray(0, SNIFF_BYTES));
  const filter = AGAIN.get(spec.id);
  if (!filter) return null;
  try {
    return runFilterSync(filter, spec, { bytes, name: row.name, ext: row.ext, url: row.url }).text;
  } catch {
    return null;
  }
}

/** Non-blocking open: a FIFO put in a file's place must not hang the query (POSIX only). */
const OPEN_FLAGS =
  process.platform === 'win32' ? 'r' : fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0);

/** A regular file's bytes, or null (gone, not a regular file, over the limit, unreadable). */
function readSmallFile(p: string): Buffer | null {
  let fd: number | undefined;
  try {
    fd = fs.openSync(p, OPEN_FLAGS);
    const st = fs.fstatSync(fd);
    if (!st.isFile() || st.size > TEXT_AT_SOURCE_MAX_BYTES) return null;
    const size = st.size;
    const buf = Buffer.allocUnsafe(size);
    let off = 0;
    while (off < size) {
      const n = fs.readSync(fd, buf, off, size - off, off);
      if (n === 0) return null; // shrank while being read: not the indexed bytes
      off += n;
    }
    return buf;
  } catch {
    return null;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}
