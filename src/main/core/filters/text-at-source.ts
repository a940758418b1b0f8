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

/**
 * Largest file (bytes) whose text each re-runnable filter leaves at the source: what it costs to
 * read, hash and filter again on a snippet, about a millisecond on a 2-core machine (text ≈ 13 ns
 * a byte, HTML ≈ 32 ns a byte, measured warm). Larger files keep a compressed copy of their text,
 * whose snippets read only its head.
 */
export const TEXT_AT_SOURCE_LIMITS: Readonly<Record<string, number>> = Object.freeze({
  [textFilter.id]: 64 * 1024,
  [htmlFilter.id]: 32 * 1024,
});

/** The largest of {@link TEXT_AT_SOURCE_LIMITS}. */
export const TEXT_AT_SOURCE_MAX_BYTES = Math.max(...Object.values(TEXT_AT_SOURCE_LIMITS));

/**
 * Largest file read again at query time: the limit indexes written before the per-filter limits
 * used (256 KiB for both filters). Schema migration 7 has the next crawl read such files again and
 * keep a copy of their text (until it runs they show no text: their content hash is cleared).
 */
const READ_MAX_BYTES = 256 * 1024;

/** The filters that can run again at query time: synchronous and cheap. */
const AGAIN: ReadonlyMap<string, Filter> = new Map([
  [textFilter.id, textFilter],
  [htmlFilter.id, htmlFilter],
]);

/** Whether the text a filter extracted from `bytes` bytes can be extracted again at query time. */
export function canLeaveTextAtSource(filterId: string | undefined, bytes: number): boolean {
  return filterId !== undefined && AGAIN.has(filterId) && bytes <= (TEXT_AT_SOURCE_LIMITS[filterId] ?? 0);
}

/** What {@link readTextAtSource} needs of a document row. */
export interface TextAtSourceRow {
  url: string;
  name: string;
  ext: string;
  content_hash: string | null;
}

/** A file's identity and state when its text was last extracted again. */
interface Extracted {
  text: string;
  dev: number;
  ino: number;
  size: number;
  mtimeMs: number;
  ctimeMs: number;
}

/**
 * Texts extracted again lately, by URL and content hash (search-as-you-type shows the same top
 * documents on every keystroke). An entry is used only while a stat of the file still gives the
 * state it was read in: any write or metadata change moves ctime and sends the read to the file
 * (and its hash check) again.
 */
const recent = new Map<string, Extracted>();
const RECENT_MAX_ENTRIES = 512;
const RECENT_MAX_CHARS = 2_000_000;
let recentChars = 0;

/**
 * The indexed text of a local file whose text was left at the source: the file is read again
 * (synchronously, at most 256 KiB) and run through the filter the crawl
 * used. Returns null when the file is gone or unreadable, has grown past the limit, or no longer
 * hashes to `content_hash` (changed since it was indexed). Never throws.
 */
export function readTextAtSource(row: TextAtSourceRow): string | null {
  if (!row.content_hash || !row.url.startsWith('file:')) return null;
  const file = fileURLToPath(row.url);
  const key = `${row.content_hash}\u0000${row.url}`;
  const seen = recent.get(key);
  if (seen) {
    recent.delete(key);
    const st = fs.statSync(file, { throwIfNoEntry: false });
    if (st && sameState(seen, st)) {
      recent.set(key, seen);
      return seen.text;
    }
    recentChars -= seen.text.length;
  }
  const read = readSmallFile(file);
  if (!read || contentHash(read.bytes) !== row.content_hash) return null;
  const { bytes, st } = read;
  const spec = pickFilter(row.ext, undefined, bytes.subarray(0, SNIFF_BYTES));
  const filter = AGAIN.get(spec.id);
  if (!filter) return null;
  let text: string;
  try {
    text = runFilterSync(filter, spec, { bytes, name: row.name, ext: row.ext, url: row.url }).text;
  } catch {
    return null;
  }
  remember(key, { text, dev: st.dev, ino: st.ino, size: st.size, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs });
  return text;
}

function sameState(e: Extracted, st: fs.Stats): boolean {
  return (
    st.isFile() &&
    st.dev === e.dev &&
    st.ino === e.ino &&
    st.size === e.size &&
    st.mtimeMs === e.mtimeMs &&
    st.ctimeMs === e.ctimeMs
  );
}

function remember(key: string, e: Extracted): void {
  recent.set(key, e);
  recentChars += e.text.length;
  while (recent.size > RECENT_MAX_ENTRIES || recentChars > RECENT_MAX_CHARS) {
    const [oldest, old] = recent.entries().next().value as [string, Extracted];
    recent.delete(oldest);
    recentChars -= old.text.length;
  }
}

/** Non-blocking open: a FIFO put in a file's place must not hang the query (POSIX only). */
const OPEN_FLAGS =
  process.platform === 'win32' ? 'r' : fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0);

/**
 * A regular file's bytes and the stat they were read under, or null (gone, not a regular file,
 * over the limit, unreadable).
 */
function readSmallFile(p: string): { bytes: Buffer; st: fs.Stats } | null {
  let fd: number | undefined;
  try {
    fd = fs.openSync(p, OPEN_FLAGS);
    const st = fs.fstatSync(fd);
    if (!st.isFile() || st.size > READ_MAX_BYTES) return null;
    const size = st.size;
    const buf = Buffer.allocUnsafe(size);
    let off = 0;
    while (off < size) {
      const n = fs.readSync(fd, buf, off, size - off, off);
      if (n === 0) return null; // shrank while being read: not the indexed bytes
      off += n;
    }
    return { bytes: buf, st };
  } catch {
    return null;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}
