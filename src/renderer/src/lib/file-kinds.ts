/** File-type families: for the type filter, the result icons and the stats. */

export type FileKind =
  | 'document'
  | 'pdf'
  | 'text'
  | 'code'
  | 'web'
  | 'sheet'
  | 'slides'
  | 'mail'
  | 'image'
  | 'audio'
  | 'archive'
  | 'other';

const EXTENSIONS: Record<Exclude<FileKind, 'other'>, string[]> = {
  pdf: ['pdf'],
  document: ['doc', 'docx', 'odt', 'rtf', 'pages', 'epub'],
  text: ['txt', 'md', 'markdown', 'rst', 'log', 'text', 'org', 'adoc', 'tex'],
  code: [
    'js',
    'mjs',
    'cjs',
    'ts',
    'tsx',
    'jsx',
    'py',
    'rb',
    'go',
    'rs',
    'java',
    'kt',
    'c',
    'h',
    'cc',
    'cpp',
    'hpp',
    'cs',
    'php',
    'sh',
    'bash',
    'ps1',
    'json',
    'yaml',
    'yml',
    'toml',
    'ini',
    'xml',
    'sql',
    'css',
    'scss',
    'swift',
    'lua',
    'pl',
    'r',
  ],
  web: ['html', 'htm', 'xhtml', 'mht'],
  sheet: ['xls', 'xlsx', 'xlsm', 'ods', 'csv', 'tsv', 'numbers'],
  slides: ['ppt', 'pptx', 'pptm', 'ppsx', 'odp', 'key'],
  mail: ['eml', 'msg', 'mbox'],
  image: [
    'png',
    'jpg',
    'jpeg',
    'jpe',
    'jfif',
    'gif',
    'svg',
    'webp',
    'bmp',
    'tif',
    'tiff',
    'heic',
    'heif',
    'avif',
  ],
  audio: ['mp3', 'flac', 'ogg', 'oga', 'opus', 'm4a', 'm4b', 'wav', 'aif', 'aiff', 'wma'],
  archive: ['zip', 'tar', 'gz', 'tgz', '7z', 'rar', 'bz2', 'xz', 'zst'],
};

const BY_EXT = new Map<string, FileKind>();
for (const [kind, exts] of Object.entries(EXTENSIONS)) for (const e of exts) BY_EXT.set(e, kind as FileKind);

/** Families offered in the type filter, in menu order. */
export const FILTER_KINDS: Exclude<FileKind, 'other'>[] = [
  'document',
  'pdf',
  'text',
  'code',
  'web',
  'sheet',
  'slides',
  'mail',
  'image',
  'audio',
  'archive',
];

export function kindOf(ext: string, mime?: string, url?: string): FileKind {
  const byExt = BY_EXT.get(ext.toLowerCase());
  if (byExt) return byExt;
  if (mime?.startsWith('text/html') || (url && /^https?:/i.test(url))) return 'web';
  if (mime?.startsWith('image/')) return 'image';
  if (mime?.startsWith('audio/')) return 'audio';
  if (mime?.startsWith('text/')) return 'text';
  return 'other';
}

export function extensionsOf(kind: Exclude<FileKind, 'other'>): string[] {
  return EXTENSIONS[kind];
}
