/**
 * The MIME/extension → filter table, as data (after Recoll's `mimeconf`): which filter reads which
 * types, and each filter's per-item limits. `pickFilter` is the only place a filter is chosen.
 */

/** One row of the filter table. */
export interface FilterSpec {
  /** Filter id; names the implementation (`builtin-filters.ts`) or a test filter. */
  readonly id: string;
  /** MIME types (lowercase, without parameters) this filter reads. */
  readonly mimes: readonly string[];
  /** Extensions (lowercase, no dot) this filter reads. */
  readonly extensions: readonly string[];
  /** Inputs larger than this are refused with `FilterError('too-large')`: index metadata only. */
  readonly maxBytes: number;
  /**
   * The filter's metadata is usually at the start of a file (a JPEG's segments, an MP3's ID3 tag):
   * a larger item is read this far first and the filter gets that head, flagged
   * `FilterInput.partial`. A filter for which the head is not enough throws
   * `FilterError('needs-whole')`, and the item is read again whole (up to `maxBytes`).
   */
  readonly headBytes?: number;
  /** Per-item time cap in the filter runner; past it the worker is killed (`FilterError('timeout')`). */
  readonly maxMs: number;
}

const MB = 1024 * 1024;

/** Id of the catch-all filter that extracts no text (the item stays findable by its metadata). */
export const METADATA_FILTER_ID = 'metadata';

// prettier-ignore
const TEXT_EXTENSIONS = [
  // prose, markup and documentation
  'txt', 'text', 'md', 'markdown', 'mdown', 'mkd', 'rst', 'adoc', 'asciidoc', 'org', 'textile', 'wiki',
  'tex', 'latex', 'ltx', 'sty', 'cls', 'bib', 'me', 'nfo', 'readme', '1st', 'diz', 'man', 'pod',
  'srt', 'vtt', 'sbv', 'po', 'pot', 'strings', 'dot', 'gv',
  // data and configuration
  'csv', 'tsv', 'tab', 'psv', 'json', 'jsonl', 'ndjson', 'json5', 'jsonc', 'geojson', 'ipynb', 'har',
  'xml', 'xsd', 'xsl', 'xslt', 'dtd', 'rss', 'atom', 'opml', 'resx', 'xaml', 'xlf', 'xliff',
  'kml', 'gpx', 'wsdl', 'csproj', 'vbproj', 'fsproj', 'vcxproj', 'props', 'targets', 'nuspec', 'pom',
  'yaml', 'yml', 'toml', 'ini', 'cfg', 'conf', 'config', 'cnf', 'properties', 'prefs', 'env', 'editorconfig',
  'gitignore', 'gitattributes', 'gitmodules', 'dockerignore', 'npmrc', 'nvmrc', 'lock', 'reg', 'inf',
  'log', 'err', 'diff', 'patch', 'sql', 'graphql', 'gql', 'proto', 'thrift', 'avsc', 'prisma',
  'ics', 'vcf', 'mbox', 'url', 'desktop', 'service', 'socket', 'timer', 'rules',
  // source code
  'c', 'h', 'cc', 'cpp', 'cxx', 'c++', 'hh', 'hpp', 'hxx', 'h++', 'inl', 'ipp', 'tpp', 'm', 'mm',
  'cs', 'csx', 'vb', 'fs', 'fsx', 'fsi', 'java', 'kt', 'kts', 'scala', 'sc', 'groovy', 'gradle', 'clj',
  'cljs', 'cljc', 'edn', 'go', 'rs', 'swift', 'dart', 'zig', 'nim', 'v', 'd', 'cr', 'jl', 'r', 'rmd',
  'py', 'pyw', 'pyi', 'pyx', 'pxd', 'rb', 'rake', 'gemspec', 'erb', 'php', 'phtml', 'pl', 'pm', 't',
  'lua', 'tcl', 'awk', 'sed', 'js', 'mjs', 'cjs', 'jsx', 'ts', 'mts', 'cts', 'tsx', 'vue', 'svelte',
  'astro', 'coffee', 'elm', 'purs', 'css', 'scss', 'sass', 'less', 'styl', 'hbs', 'handlebars',
  'mustache', 'ejs', 'pug', 'jade', 'haml', 'slim', 'liquid', 'njk', 'twig', 'jinja', 'j2', 'tmpl', 'tpl',
  'sh', 'bash', 'zsh', 'fish', 'ksh', 'csh', 'tcsh', 'ps1', 'psm1', 'psd1', 'bat', 'cmd', 'vbs', 'ahk',
  'hs', 'lhs', 'ml', 'mli', 'mll', 'mly', 'ex', 'exs', 'erl', 'hrl', 'el', 'lisp', 'lsp', 'cl', 'scm',
  'ss', 'rkt', 'f', 'for', 'f77', 'f90', 'f95', 'f03', 'pas', 'pp', 'dpr', 'lpr', 'ada', 'adb', 'ads',
  'asm', 's', 'nasm', 'cob', 'cbl', 'sol', 'vhd', 'vhdl', 'sv', 'svh', 'verilog', 'sas', 'do',
  'cmake', 'mk', 'mak', 'make', 'ninja', 'bazel', 'bzl', 'gn', 'gni', 'nix', 'tf', 'tfvars', 'hcl',
  'dockerfile', 'containerfile', 'jenkinsfile', 'vim', 'glsl', 'hlsl', 'frag', 'vert', 'wgsl', 'cu',
  'cuh', 'ino', 'pde', 'applescript', 'feature', 'http', 'rest',
];

// prettier-ignore
const TEXT_MIMES = [
  'text/plain', 'text/markdown', 'text/x-markdown', 'text/csv', 'text/tab-separated-values',
  'text/xml', 'application/xml', 'application/json', 'application/ld+json', 'application/x-ndjson',
  'application/rss+xml', 'application/atom+xml', 'application/javascript', 'application/x-javascript',
  'text/javascript', 'text/css', 'application/x-sh', 'application/x-shellscript', 'application/x-yaml',
  'application/yaml', 'text/yaml', 'text/x-yaml', 'application/toml', 'application/sql', 'text/x-python',
  'application/x-python', 'text/x-java-source', 'text/x-c', 'text/x-c++', 'text/x-csrc', 'text/x-chdr',
  'text/x-go', 'text/x-rust', 'text/x-log', 'text/calendar', 'text/vcard',
  'application/x-tex', 'text/x-tex', 'application/x-subrip', 'text/vtt', 'text/troff',
];

/** OpenDocument extensions and their MIME types (text, spreadsheet, presentation, drawing; templates). */
// prettier-ignore
const ODF_TYPES: readonly (readonly [string, string])[] = [
  ['odt', 'application/vnd.oasis.opendocument.text'], ['ott', 'application/vnd.oasis.opendocument.text-template'],
  ['ods', 'application/vnd.oasis.opendocument.spreadsheet'], ['ots', 'application/vnd.oasis.opendocument.spreadsheet-template'],
  ['odp', 'application/vnd.oasis.opendocument.presentation'], ['otp', 'application/vnd.oasis.opendocument.presentation-template'],
  ['odg', 'application/vnd.oasis.opendocument.graphics'], ['otg', 'application/vnd.oasis.opendocument.graphics-template'],
];

/**
 * The filter table, most specific first. `metadata` is the catch-all and matches nothing by itself:
 * `pickFilter` falls back to it.
 */
export const FILTER_TABLE: readonly FilterSpec[] = [
  {
    id: 'pdf',
    mimes: ['application/pdf', 'application/x-pdf', 'application/acrobat'],
    extensions: ['pdf'],
    maxBytes: 64 * MB,
    maxMs: 60_000,
  },
  {
    id: 'docx',
    mimes: [
      'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
      'application/vnd.ms-word.document.macroenabled.12',
      'application/vnd.openxmlformats-officedocument.wordprocessingml.template',
    ],
    extensions: ['docx', 'docm', 'dotx'],
    maxBytes: 32 * MB,
    maxMs: 30_000,
  },
  {
    id: 'doc',
    mimes: ['application/msword', 'application/vnd.ms-word'],
    // Not `.dot`: far more of those are Graphviz graphs (text) than Word 97 templates.
    extensions: ['doc'],
    maxBytes: 32 * MB,
    maxMs: 30_000,
  },
  {
    id: 'email',
    mimes: ['message/rfc822'],
    extensions: ['eml'],
    maxBytes: 64 * MB,
    maxMs: 60_000,
  },
  {
    id: 'msg',
    mimes: ['application/vnd.ms-outlook'],
    extensions: ['msg'],
    maxBytes: 64 * MB,
    maxMs: 60_000,
  },
  {
    id: 'zip',
    mimes: ['application/zip', 'application/x-zip-compressed', 'application/x-zip'],
    extensions: ['zip'],
    // Read whole into memory (and sent to a worker): bigger archives are indexed by name.
    maxBytes: 64 * MB,
    maxMs: 60_000,
  },
  {
    id: 'gzip',
    mimes: ['application/gzip', 'application/x-gzip'],
    extensions: ['gz', 'gzip'],
    maxBytes: 32 * MB,
    maxMs: 60_000,
  },
  {
    id: 'rtf',
    mimes: ['application/rtf', 'text/rtf', 'application/x-rtf', 'text/richtext'],
    extensions: ['rtf'],
    maxBytes: 32 * MB,
    maxMs: 20_000,
  },
  {
    id: 'xls',
    mimes: ['application/vnd.ms-excel', 'application/msexcel', 'application/x-msexcel'],
    extensions: ['xls', 'xlt'],
    maxBytes: 32 * MB,
    maxMs: 30_000,
  },
  {
    id: 'ppt',
    mimes: ['application/vnd.ms-powerpoint', 'application/mspowerpoint'],
    // Not `.pot`: those are gettext templates (text) far more often than PowerPoint ones.
    extensions: ['ppt', 'pps'],
    maxBytes: 64 * MB,
    maxMs: 30_000,
  },
  {
    id: 'xlsx',
    mimes: [
      'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
      'application/vnd.ms-excel.sheet.macroenabled.12',
      'application/vnd.openxmlformats-officedocument.spreadsheetml.template',
    ],
    extensions: ['xlsx', 'xlsm', 'xltx'],
    maxBytes: 32 * MB,
    maxMs: 30_000,
  },
  {
    id: 'pptx',
    mimes: [
      'application/vnd.openxmlformats-officedocument.presentationml.presentation',
      'application/vnd.ms-powerpoint.presentation.macroenabled.12',
      'application/vnd.openxmlformats-officedocument.presentationml.slideshow',
      'application/vnd.openxmlformats-officedocument.presentationml.template',
    ],
    extensions: ['pptx', 'pptm', 'ppsx', 'potx'],
    maxBytes: 64 * MB,
    maxMs: 30_000,
  },
  {
    id: 'epub',
    mimes: ['application/epub+zip'],
    extensions: ['epub'],
    maxBytes: 64 * MB,
    maxMs: 30_000,
  },
  {
    id: 'odf',
    mimes: ODF_TYPES.map(([, m]) => m),
    extensions: ODF_TYPES.map(([e]) => e),
    maxBytes: 32 * MB,
    maxMs: 30_000,
  },
  {
    id: 'jpeg',
    mimes: ['image/jpeg', 'image/pjpeg', 'image/jpg'],
    extensions: ['jpg', 'jpeg', 'jpe', 'jfif'],
    // EXIF, XMP and IPTC segments precede the image data: a photo library is read 512 KiB a photo.
    maxBytes: 64 * MB,
    headBytes: 512 * 1024,
    maxMs: 10_000,
  },
  {
    id: 'audio',
    // prettier-ignore
    mimes: [
      'audio/mpeg', 'audio/mp3', 'audio/flac', 'audio/x-flac', 'audio/ogg', 'audio/vorbis', 'audio/opus',
      'audio/mp4', 'audio/x-m4a', 'audio/m4a', 'audio/wav', 'audio/x-wav', 'audio/wave', 'audio/vnd.wave',
      'audio/aiff', 'audio/x-aiff', 'audio/x-ms-wma',
    ],
    extensions: ['mp3', 'flac', 'ogg', 'oga', 'opus', 'm4a', 'm4b', 'wav', 'aif', 'aiff', 'wma'],
    // Tags mostly come first: a music library is read 1 MiB a song (whole when they do not).
    maxBytes: 128 * MB,
    headBytes: 1 * MB,
    maxMs: 20_000,
  },
  {
    // Metadata may follow the image data (TIFF directories, WebP and PNG chunks, HEIF items).
    id: 'image',
    mimes: ['image/png', 'image/tiff', 'image/webp', 'image/avif', 'image/heic', 'image/heif'],
    extensions: ['png', 'tif', 'tiff', 'webp', 'avif', 'heic', 'heif'],
    maxBytes: 64 * MB,
    maxMs: 20_000,
  },
  {
    id: 'html',
    mimes: ['text/html', 'application/xhtml+xml'],
    extensions: ['html', 'htm', 'xhtml', 'xht', 'shtml'],
    maxBytes: 16 * MB,
    maxMs: 20_000,
  },
  { id: 'text', mimes: TEXT_MIMES, extensions: TEXT_EXTENSIONS, maxBytes: 32 * MB, maxMs: 20_000 },
  { id: METADATA_FILTER_ID, mimes: [], extensions: [], maxBytes: Number.POSITIVE_INFINITY, maxMs: 1_000 },
];

// prettier-ignore
/** Content types that say nothing about the content: decide by extension and sniffing instead. */
const GENERIC_MIMES = new Set([
  'application/octet-stream', 'binary/octet-stream', 'application/unknown', 'application/x-unknown',
  'application/binary', 'application/x-download', 'application/force-download', 'application/download',
  'unknown/unknown', 'content/unknown',
]);

/** Bytes of the head `pickFilter` looks at when sniffing. */
export const SNIFF_BYTES = 8192;

/**
 * Chooses the filter for an item.
 *
 * Order: a definitive signature in `head` (`%PDF-`, `{\rtf`, gzip's, JPEG's, PNG's, TIFF's, WebP's; a ZIP holding `word/`, `xl/` or `ppt/`
 * parts, or an OpenDocument or EPUB `mimetype`) wins over a wrong label; then a known, non-generic `mime`;
 * then the extension; then, for items with an unknown or missing type, a sniff of `head` (HTML
 * markers, mostly printable text). Anything else gets the metadata-only filter. Pure and cheap;
 * never throws.
 */
export function pickFilter(
  ext: string,
  mime?: string,
  head?: Uint8Array,
  table: readonly FilterSpec[] = FILTER_TABLE,
): FilterSpec {
  const byId = (id: string): FilterSpec => table.find((s) => s.id === id) ?? metadataSpec(table);
  const magic = head ? sniffSignature(head) : undefined;
  if (magic) return byId(magic);

  const m = mime ? normaliseMime(mime) : '';
  if (m && !GENERIC_MIMES.has(m)) {
    const spec = table.find((s) => s.mimes.includes(m));
    if (spec) return spec;
    if (m.startsWith('text/') || m.endsWith('+xml') || m.endsWith('+json')) return byId('text');
  }

  const e = ext.toLowerCase().replace(/^\./, '');
  if (e) {
    const spec = table.find((s) => s.extensions.includes(e));
    // Old archives hold plenty of "Word" files that are HTML or plain text under a .doc name, and
    // .msg is also the extension of Tcl and other message catalogs (text).
    if (spec && OLE_FORMATS.has(spec.id) && head && head.length > 0 && !startsWithBytes(head, OLE_MAGIC)) {
      const sniffed = sniffTextual(head);
      if (sniffed) return byId(sniffed);
    }
    if (spec) return spec;
  }

  if (head && head.length > 0) {
    const sniffed = sniffTextual(head);
    if (sniffed) return byId(sniffed);
  }
  return metadataSpec(table);
}

function metadataSpec(table: readonly FilterSpec[]): FilterSpec {
  return table.find((s) => s.id === METADATA_FILTER_ID) ?? FILTER_TABLE[FILTER_TABLE.length - 1];
}

/** `Text/HTML; charset=x` → `text/html`. */
export function normaliseMime(mime: string): string {
  return mime.split(';', 1)[0].trim().toLowerCase();
}

const PDF_MAGIC = [0x25, 0x50, 0x44, 0x46, 0x2d]; // %PDF-
const ZIP_MAGIC = [0x50, 0x4b, 0x03, 0x04];
const ODF_SIGNATURE = 'application/vnd.oasis.opendocument.';
const EPUB_SIGNATURE = 'application/epub+zip';
const GZIP_MAGIC = [0x1f, 0x8b, 0x08];
const OLE_MAGIC = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];
/** Filters of OLE compound files: a file under their extensions without the signature is sniffed. */
const OLE_FORMATS = new Set(['doc', 'xls', 'ppt', 'msg']);
const RTF_MAGIC = [0x7b, 0x5c, 0x72, 0x74, 0x66]; // {\rtf
const JPEG_MAGIC = [0xff, 0xd8, 0xff];
const PNG_MAGIC = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const TIFF_LE_MAGIC = [0x49, 0x49, 0x2a, 0x00];
const TIFF_BE_MAGIC = [0x4d, 0x4d, 0x00, 0x2a];

function startsWithBytes(head: Uint8Array, sig: number[], at = 0): boolean {
  if (head.length < at + sig.length) return false;
  return sig.every((b, i) => head[at + i] === b);
}

function indexOfAscii(head: Uint8Array, needle: string): number {
  const n = needle.length;
  const end = head.length - n;
  outer: for (let i = 0; i <= end; i++) {
    for (let j = 0; j < n; j++) if (head[i + j] !== needle.charCodeAt(j)) continue outer;
    return i;
  }
  return -1;
}

/** Binary signatures that identify a type whatever the label says. */
function sniffSignature(head: Uint8Array): string | undefined {
  if (startsWithBytes(head, PDF_MAGIC)) return 'pdf';
  if (startsWithBytes(head, RTF_MAGIC)) return 'rtf';
  if (startsWithBytes(head, GZIP_MAGIC)) return 'gzip';
  if (startsWithBytes(head, JPEG_MAGIC)) return 'jpeg';
  if (
    startsWithBytes(head, PNG_MAGIC) ||
    startsWithBytes(head, TIFF_LE_MAGIC) ||
    startsWithBytes(head, TIFF_BE_MAGIC)
  )
    return 'image';
  if (indexOfAscii(head.subarray(0, 4), 'RIFF') === 0 && indexOfAscii(head.subarray(8, 12), 'WEBP') === 0)
    return 'image';
  if (startsWithBytes(head, ZIP_MAGIC)) {
    // ODF and EPUB store `mimetype` first, uncompressed: its name ends at 38, its content follows.
    if (indexOfAscii(head.subarray(30, 30 + 8 + ODF_SIGNATURE.length), `mimetype${ODF_SIGNATURE}`) === 0)
      return 'odf';
    if (indexOfAscii(head.subarray(30, 30 + 8 + EPUB_SIGNATURE.length), `mimetype${EPUB_SIGNATURE}`) === 0)
      return 'epub';
    if (indexOfAscii(head, 'word/') >= 0) return 'docx';
    if (indexOfAscii(head, 'xl/workbook.xml') >= 0 || indexOfAscii(head, 'xl/worksheets/') >= 0)
      return 'xlsx';
    if (indexOfAscii(head, 'ppt/presentation.xml') >= 0 || indexOfAscii(head, 'ppt/slides/') >= 0)
      return 'pptx';
  }
  return undefined;
}

/** Sniff for items of unknown type: HTML markers or mostly printable text. */
function sniffTextual(head: Uint8Array): string | undefined {
  const sample = head.subarray(0, Math.min(head.length, 1024));
  const prefix = new TextDecoder('latin1')
    .decode(sample)
    .replace(/^\ufeff|^\xef\xbb\xbf/, '')
    .trimStart()
    .toLowerCase();
  if (
    /^(<!doctype html|<html|<head[\s>]|<body[\s>]|<title[\s>]|<!--[\s\S]*?-->\s*<(!doctype html|html))/.test(
      prefix,
    )
  )
    return 'html';
  if (looksLikeText(head)) return 'text';
  return undefined;
}

/**
 * True when `bytes` look like text in some encoding: a UTF-16 BOM, or no NUL and almost no C0
 * control characters other than whitespace and ESC.
 */
export function looksLikeText(bytes: Uint8Array): boolean {
  if (
    bytes.length >= 2 &&
    ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff))
  )
    return true;
  const n = Math.min(bytes.length, SNIFF_BYTES);
  let controls = 0;
  for (let i = 0; i < n; i++) {
    const b = bytes[i];
    if (b === 0) return false;
    if (
      (b < 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0d && b !== 0x0c && b !== 0x0b && b !== 0x1b) ||
      b === 0x7f
    )
      controls++;
  }
  return n > 0 && controls / n < 0.02;
}

// prettier-ignore
const EXTENSION_MIMES: Record<string, string> = {
  txt: 'text/plain', md: 'text/markdown', markdown: 'text/markdown', csv: 'text/csv', tsv: 'text/tab-separated-values',
  json: 'application/json', xml: 'application/xml', yaml: 'application/yaml', yml: 'application/yaml',
  html: 'text/html', htm: 'text/html', xhtml: 'application/xhtml+xml', css: 'text/css', js: 'text/javascript',
  mjs: 'text/javascript', ts: 'text/x-typescript', py: 'text/x-python', java: 'text/x-java-source',
  c: 'text/x-c', h: 'text/x-c', cpp: 'text/x-c++', sh: 'application/x-sh', sql: 'application/sql',
  pdf: 'application/pdf', docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  doc: 'application/msword', xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  xls: 'application/vnd.ms-excel', pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  ppt: 'application/vnd.ms-powerpoint', ...Object.fromEntries(ODF_TYPES), rtf: 'application/rtf',
  png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp', svg: 'image/svg+xml',
  bmp: 'image/bmp', tif: 'image/tiff', tiff: 'image/tiff', ico: 'image/vnd.microsoft.icon', heic: 'image/heic',
  heif: 'image/heif', avif: 'image/avif', jpe: 'image/jpeg', jfif: 'image/jpeg',
  mp3: 'audio/mpeg', wav: 'audio/wav', flac: 'audio/flac', ogg: 'audio/ogg', m4a: 'audio/mp4',
  oga: 'audio/ogg', opus: 'audio/opus', m4b: 'audio/mp4', aif: 'audio/aiff', aiff: 'audio/aiff', wma: 'audio/x-ms-wma',
  mp4: 'video/mp4', mkv: 'video/x-matroska', mov: 'video/quicktime', avi: 'video/x-msvideo', webm: 'video/webm',
  zip: 'application/zip', gz: 'application/gzip', tgz: 'application/gzip', bz2: 'application/x-bzip2',
  xz: 'application/x-xz', '7z': 'application/x-7z-compressed', rar: 'application/vnd.rar', tar: 'application/x-tar',
  exe: 'application/vnd.microsoft.portable-executable', dll: 'application/vnd.microsoft.portable-executable',
  iso: 'application/x-iso9660-image', epub: 'application/epub+zip', woff: 'font/woff', woff2: 'font/woff2',
  ttf: 'font/ttf', otf: 'font/otf',
};

/** Best-known MIME type for an extension, or `fallback`. */
export function mimeForExtension(ext: string, fallback = 'application/octet-stream'): string {
  return EXTENSION_MIMES[ext.toLowerCase()] ?? fallback;
}
