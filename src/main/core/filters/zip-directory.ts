import { isUtf8 } from 'node:buffer';
import zlib from 'node:zlib';
import iconv from 'iconv-lite';
import { FilterError } from './filter.js';

/**
 * A minimal ZIP reader for OOXML containers: lists the central directory with each entry's
 * *declared* sizes (so a zip bomb is refused before anything is inflated) and inflates single
 * entries with the output capped at the declared size (so a lying header is caught too).
 */

/** One central-directory entry. */
export interface ZipEntry {
  name: string;
  /** 0 = stored, 8 = deflate. */
  method: number;
  flags: number;
  compressedSize: number;
  uncompressedSize: number;
  localHeaderOffset: number;
}

const EOCD_SIG = 0x06054b50;
const ZIP64_LOCATOR_SIG = 0x07064b50;
const ZIP64_EOCD_SIG = 0x06064b50;
const CENTRAL_SIG = 0x02014b50;
const LOCAL_SIG = 0x04034b50;
const U32_MAX = 0xffffffff;

function corrupt(why: string): FilterError {
  return new FilterError('corrupt', `corrupt ZIP container: ${why}`);
}

function u64(view: DataView, at: number): number {
  const value = view.getBigUint64(at, true);
  if (value > BigInt(Number.MAX_SAFE_INTEGER)) throw corrupt('64-bit field out of range');
  return Number(value);
}

/**
 * An entry name: UTF-8 when it is valid UTF-8 (flagged or not: most tools write UTF-8 now),
 * else CP437, the ZIP specification's default for unflagged names (old Windows archives).
 */
function entryName(raw: Uint8Array): string {
  return isUtf8(raw) ? Buffer.from(raw).toString('utf8') : iconv.decode(Buffer.from(raw), 'cp437');
}

function findEocd(view: DataView): number {
  const min = Math.max(0, view.byteLength - 22 - 0xffff);
  for (let i = view.byteLength - 22; i >= min; i--) {
    if (view.getUint32(i, true) === EOCD_SIG) return i;
  }
  return -1;
}

/**
 * Reads the central directory. Throws `FilterError('corrupt')` when `bytes` is not a readable ZIP
 * (no end-of-central-directory record, directory outside the data, bad signatures).
 */
export function readZipDirectory(bytes: Uint8Array): ZipEntry[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length < 22) throw corrupt('too short to be a ZIP archive');
  const eocd = findEocd(view);
  if (eocd < 0) throw corrupt('no end-of-central-directory record (truncated or not a ZIP archive)');
  let count = view.getUint16(eocd + 10, true);
  let dirSize = view.getUint32(eocd + 12, true);
  let dirOffset = view.getUint32(eocd + 16, true);
  if (count === 0xffff || dirSize === U32_MAX || dirOffset === U32_MAX) {
    const locator = eocd - 20;
    if (locator < 0 || view.getUint32(locator, true) !== ZIP64_LOCATOR_SIG)
      throw corrupt('ZIP64 locator missing');
    const z64 = u64(view, locator + 8);
    if (z64 + 56 > bytes.length || view.getUint32(z64, true) !== ZIP64_EOCD_SIG)
      throw corrupt('ZIP64 end record missing');
    count = u64(view, z64 + 32);
    dirSize = u64(view, z64 + 40);
    dirOffset = u64(view, z64 + 48);
  }
  if (dirOffset + dirSize > bytes.length)
    throw corrupt('central directory lies outside the file (truncated?)');
  const entries: ZipEntry[] = [];
  let p = dirOffset;
  for (let i = 0; i < count; i++) {
    if (p + 46 > bytes.length || view.getUint32(p, true) !== CENTRAL_SIG)
      throw corrupt(`bad central directory entry ${i}`);
    const nameLength = view.getUint16(p + 28, true);
    const extraLength = view.getUint16(p + 30, true);
    const commentLength = view.getUint16(p + 32, true);
    if (p + 46 + nameLength + extraLength > bytes.length)
      throw corrupt(`central directory entry ${i} runs past the end`);
    const entry: ZipEntry = {
      name: entryName(bytes.subarray(p + 46, p + 46 + nameLength)),
      method: view.getUint16(p + 10, true),
      flags: view.getUint16(p + 8, true),
      compressedSize: view.getUint32(p + 20, true),
      uncompressedSize: view.getUint32(p + 24, true),
      localHeaderOffset: view.getUint32(p + 42, true),
    };
    if (
      entry.uncompressedSize === U32_MAX ||
      entry.compressedSize === U32_MAX ||
      entry.localHeaderOffset === U32_MAX
    ) {
      readZip64Extra(view, p + 46 + nameLength, extraLength, entry);
    }
    entries.push(entry);
    p += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

function readZip64Extra(view: DataView, start: number, length: number, entry: ZipEntry): void {
  for (let q = start; q + 4 <= start + length;) {
    const id = view.getUint16(q, true);
    const size = view.getUint16(q + 2, true);
    if (id === 0x0001) {
      let r = q + 4;
      if (entry.uncompressedSize === U32_MAX) {
        entry.uncompressedSize = u64(view, r);
        r += 8;
      }
      if (entry.compressedSize === U32_MAX) {
        entry.compressedSize = u64(view, r);
        r += 8;
      }
      if (entry.localHeaderOffset === U32_MAX) entry.localHeaderOffset = u64(view, r);
      return;
    }
    q += 4 + size;
  }
  throw corrupt(`entry ${entry.name} lacks its ZIP64 sizes`);
}

/**
 * Inflates one entry. The output may not exceed the entry's declared size nor `maxBytes`;
 * otherwise (a zip bomb, a lying header) or on damaged data this throws `FilterError('corrupt')`.
 * Encrypted entries and unknown methods throw `FilterError('unsupported')`.
 */
export function readZipEntry(bytes: Uint8Array, entry: ZipEntry, maxBytes: number): Buffer {
  if (entry.flags & 0x1) throw new FilterError('unsupported', `ZIP entry ${entry.name} is encrypted`);
  if (entry.uncompressedSize > maxBytes) {
    throw corrupt(
      `entry ${entry.name} declares ${entry.uncompressedSize} bytes, over the ${maxBytes}-byte cap (zip bomb?)`,
    );
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const at = entry.localHeaderOffset;
  if (at + 30 > bytes.length || view.getUint32(at, true) !== LOCAL_SIG)
    throw corrupt(`bad local header for ${entry.name}`);
  const start = at + 30 + view.getUint16(at + 26, true) + view.getUint16(at + 28, true);
  const end = start + entry.compressedSize;
  if (end > bytes.length) throw corrupt(`entry ${entry.name} runs past the end of the file (truncated?)`);
  const data = bytes.subarray(start, end);
  let out: Buffer;
  if (entry.method === 0) {
    out = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  } else if (entry.method === 8) {
    try {
      out = zlib.inflateRawSync(data, { maxOutputLength: Math.max(1, entry.uncompressedSize) });
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code === 'ERR_BUFFER_TOO_LARGE' || err instanceof RangeError) {
        throw corrupt(
          `entry ${entry.name} inflates beyond its declared ${entry.uncompressedSize} bytes (zip bomb?)`,
        );
      }
      throw corrupt(`entry ${entry.name}: ${(err as Error).message}`);
    }
  } else {
    throw new FilterError('unsupported', `ZIP entry ${entry.name} uses compression method ${entry.method}`);
  }
  if (out.length !== entry.uncompressedSize) {
    throw corrupt(
      `entry ${entry.name} holds ${out.length} bytes, not the declared ${entry.uncompressedSize}`,
    );
  }
  return out;
}
