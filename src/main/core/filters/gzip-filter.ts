import zlib from 'node:zlib';
import { BUILTIN_FILTERS } from './builtin-filters.js';
import { FilterError, type Filter, type FilterInput, type FilterOutput } from './filter.js';
import { METADATA_FILTER_ID, pickFilter, SNIFF_BYTES } from './filter-table.js';

/**
 * gzip-compressed files (`changelog.gz`, `app.log.1.gz`, `ls.1.gz`): decompressed, with the output
 * capped, and read by the filter of what is inside — chosen by the name stored in the gzip header,
 * else the file name without `.gz`, and by sniffing the content. An archive inside (`.tar.gz`) or
 * another compressed file yields no text: the item stays findable by its name.
 */

/** Largest decompressed size read; larger content is refused as too large (name only). */
export const GZIP_MAX_OUTPUT = 64 * 1024 * 1024;

const GZIP_MIME = 'application/gzip';

/** The original file name in a gzip header (FNAME), if the header holds one. */
function storedName(bytes: Uint8Array): string | undefined {
  const flags = bytes[3];
  if (!(flags & 0x08)) return undefined;
  let p = 10;
  if (flags & 0x04) p += 2 + (bytes[10] | (bytes[11] << 8)); // FEXTRA
  const end = bytes.indexOf(0, p);
  if (end < 0 || end - p > 1024) return undefined;
  const name = Buffer.from(bytes.subarray(p, end)).toString('latin1');
  return name.split(/[\\/]/).pop() || undefined;
}

function extOf(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(dot + 1).toLowerCase() : '';
}

export const gzipFilter: Filter = {
  id: 'gzip',
  async extract(input: FilterInput): Promise<FilterOutput> {
    const { bytes } = input;
    if (bytes.length < 18 || bytes[0] !== 0x1f || bytes[1] !== 0x8b)
      throw new FilterError('corrupt', 'unreadable gzip file: no gzip header');
    let inner: Buffer;
    try {
      inner = zlib.gunzipSync(bytes, { maxOutputLength: GZIP_MAX_OUTPUT });
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code === 'ERR_BUFFER_TOO_LARGE' || err instanceof RangeError)
        throw new FilterError('too-large', `gzip content decompresses to over ${GZIP_MAX_OUTPUT >> 20} MB`);
      throw new FilterError('corrupt', `unreadable gzip file: ${(err as Error).message}`);
    }
    const name = storedName(bytes) ?? input.name.replace(/\.(gz|gzip)$/i, '');
    const ext = extOf(name);
    const spec = pickFilter(ext, undefined, inner.subarray(0, SNIFF_BYTES));
    if (spec.id === METADATA_FILTER_ID || spec.id === gzipFilter.id) return { text: '', mime: GZIP_MIME };
    if (inner.length > spec.maxBytes)
      throw new FilterError(
        'too-large',
        `the ${spec.id} content of this gzip file is over ${spec.maxBytes} bytes`,
      );
    const load = BUILTIN_FILTERS[spec.id];
    if (!load) return { text: '', mime: GZIP_MIME };
    const filter = await load();
    const out = await filter.extract({ bytes: inner, name, ext, url: input.url });
    return { ...out, mime: GZIP_MIME };
  },
};
