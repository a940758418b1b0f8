import { Parser } from 'htmlparser2';
import { FilterError, type Filter, type FilterInput, type FilterOutput } from './filter.js';
import { normalizeLine } from './text-normalization.js';
import { readZipDirectory, readZipEntry, type ZipEntry } from './zip-directory.js';

/**
 * DOCX (mammoth): body text, plus title/author/keywords/description from the core properties
 * part. Zip bombs are refused before mammoth inflates anything: declared sizes are capped, and
 * every XML part is test-inflated with its output limited to its declared size.
 */

/** Cap on the declared uncompressed size of the whole package (media included). */
export const DOCX_MAX_UNCOMPRESSED = 512 * 1024 * 1024;
/** Cap on the XML parts mammoth parses (document, styles, numbering, notes…), declared and actual. */
export const DOCX_MAX_XML = 48 * 1024 * 1024;

const DOCX_MIME = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

function isXmlPart(name: string): boolean {
  return /\.(xml|rels)$/i.test(name);
}

/** Refuses packages whose declared or actual XML would blow up when inflated. */
function checkBomb(bytes: Uint8Array, entries: ZipEntry[]): void {
  let total = 0;
  let xml = 0;
  for (const e of entries) {
    total += e.uncompressedSize;
    if (isXmlPart(e.name)) xml += e.uncompressedSize;
  }
  const mb = (n: number) => `${Math.round(n / 1024 / 1024)} MB`;
  if (total > DOCX_MAX_UNCOMPRESSED)
    throw new FilterError(
      'corrupt',
      `zip bomb: DOCX declares ${mb(total)} uncompressed (cap ${mb(DOCX_MAX_UNCOMPRESSED)})`,
    );
  if (xml > DOCX_MAX_XML)
    throw new FilterError('corrupt', `zip bomb: DOCX declares ${mb(xml)} of XML (cap ${mb(DOCX_MAX_XML)})`);
  for (const e of entries) if (isXmlPart(e.name)) readZipEntry(bytes, e, DOCX_MAX_XML);
}

interface CoreProperties {
  title?: string;
  author?: string;
  keywords?: string;
  description?: string;
}

/** Target of the package relationship of `type` (e.g. core-properties) in `_rels/.rels`. */
function relationshipTarget(rels: string, type: string): string | undefined {
  let target: string | undefined;
  const parser = new Parser(
    {
      onopentag(name, attrs) {
        if (
          target === undefined &&
          name.endsWith('relationship') &&
          (attrs.type ?? '').endsWith(type) &&
          attrs.target
        ) {
          target = attrs.target.replace(/^\//, '');
        }
      },
    },
    { xmlMode: true, lowerCaseAttributeNames: true, lowerCaseTags: true },
  );
  parser.write(rels);
  parser.end();
  return target;
}

function parseCoreProperties(xml: string): CoreProperties {
  const values: Record<string, string> = {};
  let current: string | null = null;
  let buf: string[] = [];
  const parser = new Parser(
    {
      onopentag(name) {
        current = name.slice(name.indexOf(':') + 1).toLowerCase();
        buf = [];
      },
      ontext(text) {
        if (current) buf.push(text);
      },
      onclosetag(name) {
        const local = name.slice(name.indexOf(':') + 1).toLowerCase();
        if (current === local && values[local] === undefined) values[local] = buf.join('');
        current = null;
      },
    },
    { xmlMode: true, decodeEntities: true },
  );
  parser.write(xml);
  parser.end();
  return {
    title: normalizeLine(values.title),
    author: normalizeLine(values.creator),
    keywords: normalizeLine(values.keywords),
    description: normalizeLine(values.description) ?? normalizeLine(values.subject),
  };
}

function readCoreProperties(bytes: Uint8Array, entries: ZipEntry[]): CoreProperties {
  const byName = new Map(entries.map((e) => [e.name, e]));
  const rels = byName.get('_rels/.rels');
  const target = rels
    ? relationshipTarget(readZipEntry(bytes, rels, DOCX_MAX_XML).toString('utf8'), '/core-properties')
    : undefined;
  const core = byName.get(target ?? 'docProps/core.xml') ?? byName.get('docProps/core.xml');
  return core ? parseCoreProperties(readZipEntry(bytes, core, DOCX_MAX_XML).toString('utf8')) : {};
}

/** mammoth (with JSZip) loads on the first DOCX, not when the filter module loads. */
async function loadMammoth(): Promise<typeof import('mammoth')> {
  try {
    return (await import('mammoth')).default;
  } catch (err) {
    throw new FilterError(
      'unsupported',
      `DOCX support unavailable: ${(err as Error)?.message ?? String(err)}`,
    );
  }
}

export const docxFilter: Filter = {
  id: 'docx',
  async extract(input: FilterInput): Promise<FilterOutput> {
    const { bytes } = input;
    if (bytes.length === 0) throw new FilterError('corrupt', 'unreadable DOCX: empty file');
    const entries = readZipDirectory(bytes);
    checkBomb(bytes, entries);
    const mammoth = await loadMammoth();
    let text: string;
    try {
      const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      text = (await mammoth.extractRawText({ buffer })).value;
    } catch (err) {
      throw new FilterError('corrupt', `unreadable DOCX: ${(err as Error)?.message ?? String(err)}`);
    }
    let props: CoreProperties = {};
    try {
      props = readCoreProperties(bytes, entries);
    } catch {
      // Properties are optional; the text is what matters.
    }
    return { text, ...props, mime: DOCX_MIME };
  },
};
