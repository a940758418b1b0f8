import zlib from 'node:zlib';
import type { Filter, FilterInput, FilterOutput } from './filter.js';
import { FilterError, loadLibrary, unreadable } from './filter.js';
import { mimeForExtension } from './filter-table.js';
import { distinctValues, normalizeLine } from './text-normalization.js';

/**
 * Photos and other images (JPEG, PNG, TIFF, WebP, AVIF, HEIC): the properties embedded in them —
 * EXIF, IPTC, XMP and PNG text — read by ExifReader; the pixels are never decoded.
 *
 * Title, author, keywords and description come from the fields photo managers write (XMP Dublin
 * Core, IPTC, EXIF, Windows' XP tags, PNG text); the body is one labelled line per other property
 * a user searches photos by: camera and lens, date taken, place (IPTC/XMP location fields), the
 * people named in face regions (MWG, Microsoft Photo, IPTC Extension), GPS position, headline,
 * comments, copyright, software and size. A large JPEG is given its head first (the `jpeg` row of
 * the filter table has `headBytes`): its metadata segments all precede the image data, and only
 * when they run past the head does the filter ask for the whole file.
 */

/** Largest decompressed size of one compressed metadata block (PNG zTXt/iTXt, iCCP). */
const MAX_INFLATED_BYTES = 4 * 1024 * 1024;

/** Types the library names (`file.FileType`), as MIME types. */
const MIMES: Readonly<Record<string, string>> = {
  jpeg: 'image/jpeg',
  png: 'image/png',
  tiff: 'image/tiff',
  webp: 'image/webp',
  heic: 'image/heic',
  avif: 'image/avif',
  gif: 'image/gif',
};

/** How a damaged file is named in its failure. */
const LABELS: Readonly<Record<string, string>> = {
  jpg: 'JPEG',
  jpeg: 'JPEG',
  jpe: 'JPEG',
  jfif: 'JPEG',
  tif: 'TIFF',
  tiff: 'TIFF',
  heif: 'HEIC',
};

/** A tag as the library gives it in its expanded form: a value and its readable description. */
interface Tag {
  value?: unknown;
  description?: unknown;
  attributes?: Record<string, string>;
}
type Group = Record<string, Tag | Tag[] | undefined>;
type Tags = Record<string, Group | undefined>;

type ExifReaderModule = typeof import('exifreader');

/** ExifReader and the XML parser it needs for XMP (imported once by the module system). */
const load = () =>
  loadLibrary('Image metadata support', async () => {
    const [exif, xml] = await Promise.all([import('exifreader'), import('@xmldom/xmldom')]);
    return { exif: ((exif as { default?: ExifReaderModule }).default ?? exif) as ExifReaderModule, xml };
  });

export const imageFilter: Filter = {
  id: 'image',
  async extract(input: FilterInput): Promise<FilterOutput> {
    if (input.partial && !jpegSegmentsEndWithin(input.bytes))
      throw new FilterError('needs-whole', `its metadata runs past the first ${input.bytes.length} bytes`);
    const { exif, xml } = await load();
    const fallbackMime = mimeForExtension(input.ext) || 'application/octet-stream';
    let tags: Tags;
    try {
      const bytes = Buffer.from(input.bytes.buffer, input.bytes.byteOffset, input.bytes.byteLength);
      tags = (await exif.load(bytes, {
        expanded: true,
        async: true,
        includeUnknown: false,
        // Strict: a damaged XMP packet is dropped rather than half read; DTD entities are never expanded.
        domParser: new xml.DOMParser({ onError: xml.onErrorStopParsing }),
        excludeTags: { thumbnail: true, icc: true, makerNotes: true, mpf: true },
        decompress: {
          deflate: (data: Uint8Array) => zlib.inflateSync(data, { maxOutputLength: MAX_INFLATED_BYTES }),
          maxDecompressedSize: MAX_INFLATED_BYTES,
        },
      })) as unknown as Tags;
    } catch (err) {
      // No metadata at all is not damage: the image is indexed by name, like any other.
      if ((err as Error)?.name === 'MetadataMissingError') return { text: '', mime: fallbackMime };
      throw unreadable(`${LABELS[input.ext] ?? (input.ext.toUpperCase() || 'image')} image`, err);
    }
    const type = text(tags.file?.FileType, 'value');
    if (!type && !tags.exif && !tags.xmp && !tags.iptc)
      throw new FilterError('corrupt', `unreadable image: no image format recognised`);
    return describeImage(tags, (type && MIMES[type]) || fallbackMime);
  },
};

/** The same filter for the JPEG row of the table, which reads only the head of a file. */
export const jpegFilter: Filter = { ...imageFilter, id: 'jpeg' };

/**
 * Whether a JPEG's metadata segments (everything before its start-of-scan marker) lie within
 * `bytes`: false for a head that ends inside them, or for bytes that are no JPEG.
 */
export function jpegSegmentsEndWithin(bytes: Uint8Array): boolean {
  if (bytes.length < 4 || bytes[0] !== 0xff || bytes[1] !== 0xd8) return false;
  let at = 2;
  while (at + 4 <= bytes.length) {
    if (bytes[at] !== 0xff) return false;
    const marker = bytes[at + 1];
    if (marker === 0xff) {
      at++; // fill byte
      continue;
    }
    if (marker === 0xda) return true; // start of scan: the image data follows
    if (marker === 0xd9) return true; // end of image (no image data at all)
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      at += 2; // markers without a length
      continue;
    }
    at += 2 + ((bytes[at + 2] << 8) | bytes[at + 3]);
  }
  return false;
}

/** The filter output for a set of tags. */
function describeImage(tags: Tags, mime: string): FilterOutput {
  const exifTags = tags.exif ?? {};
  const iptc = tags.iptc ?? {};
  const xmp = tags.xmp ?? {};
  const png = tags.png ?? {};

  const title = first(altText(xmp.title), text(iptc['Object Name']), text(exifTags.XPTitle), text(png.Title));
  const description = first(
    altText(xmp.description),
    text(iptc['Caption/Abstract']),
    text(exifTags.ImageDescription),
    text(png.Description),
    text(exifTags.XPSubject),
  );
  const author = first(
    list(xmp.creator).join(', '),
    texts(iptc['By-line']).join(', '),
    text(exifTags.Artist),
    text(exifTags.XPAuthor),
    text(png.Author),
  );
  const keywords = distinctValues([
    ...list(xmp.subject),
    ...texts(iptc.Keywords),
    ...split(text(exifTags.XPKeywords), /[;,]/),
    ...list(xmp.hierarchicalSubject).flatMap((s) => s.split('|')),
  ]);

  const lines: string[] = [];
  const add = (label: string, value: string | undefined): void => {
    const v = normalizeLine(value);
    if (v) lines.push(`${label}: ${v}`);
  };
  add('Headline', first(text(iptc.Headline), text(xmp.Headline)));
  add('Camera', camera(text(exifTags.Make), text(exifTags.Model)));
  add('Lens', first(text(exifTags.LensModel), text(xmp.Lens)));
  add(
    'Taken',
    exifDate(
      first(text(exifTags.DateTimeOriginal), text(exifTags.DateTimeDigitized), text(exifTags.DateTime)),
    ),
  );
  add(
    'Place',
    distinctValues([
      first(text(iptc['Sub-location']), text(xmp.Location)),
      first(text(iptc.City), text(xmp.City)),
      first(text(iptc['Province/State']), text(xmp.State)),
      first(text(iptc['Country/Primary Location Name']), text(xmp.Country)),
    ]).join(', '),
  );
  add('People', distinctValues([...people(xmp), ...list(xmp.PersonInImage)]).join(', '));
  add('GPS', gps(tags.gps));
  add(
    'Comment',
    distinctValues([text(exifTags.UserComment), text(exifTags.XPComment), text(png.Comment)]).join(' · '),
  );
  add(
    'Copyright',
    first(altText(xmp.rights), text(iptc['Copyright Notice']), text(exifTags.Copyright), text(png.Copyright)),
  );
  add('Software', first(text(exifTags.Software), text(png.Software)));
  add('Size', dimensions(tags));

  return {
    text: lines.join('\n'),
    title: normalizeLine(title),
    description: normalizeLine(description),
    author: normalizeLine(author),
    keywords: normalizeLine(keywords.join(', ')),
    mime,
  };
}

/** A tag's readable text (`description`), or its `value` when that is what is wanted. */
function text(
  tag: Tag | Tag[] | undefined,
  key: 'description' | 'value' = 'description',
): string | undefined {
  const t = Array.isArray(tag) ? tag[0] : tag;
  const v = t?.[key];
  if (typeof v === 'string') return v.replace(/\0+$/, '').trim() || undefined;
  if (typeof v === 'number') return String(v);
  return undefined;
}

/** Every text of a tag that may repeat (IPTC keywords and bylines). */
function texts(tag: Tag | Tag[] | undefined): string[] {
  if (!tag) return [];
  return (Array.isArray(tag) ? tag : [tag]).map((t) => text(t)).filter((s): s is string => !!s);
}

/** The items of an XMP bag or sequence (or the one value of a simple property). */
function list(tag: Tag | Tag[] | undefined): string[] {
  if (!tag || Array.isArray(tag)) return texts(tag);
  if (Array.isArray(tag.value)) return texts(tag.value as Tag[]);
  return texts(tag);
}

/** An XMP language alternative: the default language's text, else the first. */
function altText(tag: Tag | Tag[] | undefined): string | undefined {
  if (!tag || Array.isArray(tag) || !Array.isArray(tag.value)) return text(tag);
  const items = tag.value as Tag[];
  const preferred = items.find((i) => i.attributes?.lang === 'x-default') ?? items[0];
  return text(preferred);
}

/** Names of people in face regions: MWG (`mwg-rs:Regions`) and Microsoft Photo (`MPRI`). */
function people(xmp: Group): string[] {
  const names: string[] = [];
  const walk = (node: unknown, depth: number): void => {
    if (depth > 8 || node === null || typeof node !== 'object') return;
    if (Array.isArray(node)) {
      for (const n of node) walk(n, depth + 1);
      return;
    }
    const obj = node as Record<string, unknown>;
    const type = text(obj.Type as Tag | undefined);
    const name = text(obj.Name as Tag | undefined) ?? text(obj.PersonDisplayName as Tag | undefined);
    if (name && (type === undefined || /^face$/i.test(type))) names.push(name);
    for (const [k, v] of Object.entries(obj)) if (k !== 'attributes') walk(v, depth + 1);
  };
  walk(xmp.Regions, 0);
  walk(xmp.RegionInfo, 0);
  return names;
}

function camera(make: string | undefined, model: string | undefined): string | undefined {
  if (!model) return make;
  if (!make || model.toLowerCase().startsWith(make.toLowerCase().split(/\s+/)[0])) return model;
  return `${make} ${model}`;
}

/** `2024:05:01 05:42:10` → `2024-05-01 05:42:10` (EXIF writes dates with colons). */
function exifDate(s: string | undefined): string | undefined {
  return s?.replace(/^(\d{4}):(\d{2}):(\d{2})/, '$1-$2-$3');
}

function gps(group: Group | undefined): string | undefined {
  const lat = (group as Record<string, unknown> | undefined)?.Latitude;
  const lon = (group as Record<string, unknown> | undefined)?.Longitude;
  if (typeof lat !== 'number' || typeof lon !== 'number' || !Number.isFinite(lat) || !Number.isFinite(lon))
    return undefined;
  return `${lat.toFixed(5)}, ${lon.toFixed(5)}`;
}

function dimensions(tags: Tags): string | undefined {
  const pairs: [Tag | Tag[] | undefined, Tag | Tag[] | undefined][] = [
    [tags.file?.['Image Width'], tags.file?.['Image Height']],
    [tags.png?.['Image Width'], tags.png?.['Image Height']],
    [tags.riff?.ImageWidth, tags.riff?.ImageHeight],
    [tags.exif?.PixelXDimension, tags.exif?.PixelYDimension],
    [tags.exif?.ImageWidth, tags.exif?.ImageLength],
  ];
  for (const [w, h] of pairs) {
    const x = Number(text(w, 'value'));
    const y = Number(text(h, 'value'));
    if (x > 0 && y > 0) return `${x} × ${y}`;
  }
  return undefined;
}

function first(...xs: (string | undefined)[]): string | undefined {
  return xs.find((x) => x !== undefined && x.trim() !== '');
}

function split(s: string | undefined, sep: RegExp): string[] {
  return s ? s.split(sep).map((x) => x.trim()) : [];
}
