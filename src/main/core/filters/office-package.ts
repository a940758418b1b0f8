import path from 'node:path/posix';
import { Parser } from 'htmlparser2';
import { FilterError } from './filter.js';
import { normalizeLine } from './text-normalization.js';
import { readZipDirectory, readZipEntry, type ZipEntry } from './zip-directory.js';

/**
 * What the office filters (DOCX, XLSX, PPTX, OpenDocument) share: a ZIP package whose sizes are
 * checked before anything is inflated, its XML parts read with their output capped, OOXML
 * relationships and core properties, and an XML walk by local element name (the namespace
 * prefixes a producer writes vary; the local names do not). The XML parser resolves no external
 * entities and loads nothing.
 */

/** Cap on the declared uncompressed size of a whole package (media included). */
export const OFFICE_MAX_UNCOMPRESSED = 512 * 1024 * 1024;
/** Cap on the XML a filter inflates from one package, declared and actual. */
export const OFFICE_MAX_XML = 48 * 1024 * 1024;

function isXmlPart(name: string): boolean {
  return /\.(xml|rels)$/i.test(name);
}

const mb = (n: number): string => `${Math.round(n / 1024 / 1024)} MB`;

/** An opened package: its directory by name, and its XML parts read within one budget. */
export class OfficePackage {
  readonly entries: ZipEntry[];
  private readonly byName: Map<string, ZipEntry>;
  private xmlRead = 0;

  /**
   * Reads the directory and refuses a zip bomb by its declared sizes (`label` names the format in
   * the message). Throws `FilterError('corrupt')` for what is not a readable ZIP.
   */
  constructor(
    private readonly bytes: Uint8Array,
    private readonly label: string,
    private readonly maxXml = OFFICE_MAX_XML,
    maxUncompressed = OFFICE_MAX_UNCOMPRESSED,
  ) {
    if (bytes.length === 0) throw new FilterError('corrupt', `unreadable ${label}: empty file`);
    this.entries = readZipDirectory(bytes);
    this.byName = new Map(this.entries.map((e) => [e.name, e]));
    let total = 0;
    let xml = 0;
    for (const e of this.entries) {
      total += e.uncompressedSize;
      if (isXmlPart(e.name)) xml += e.uncompressedSize;
    }
    if (total > maxUncompressed)
      throw new FilterError(
        'corrupt',
        `zip bomb: ${label} declares ${mb(total)} uncompressed (cap ${mb(maxUncompressed)})`,
      );
    if (xml > maxXml)
      throw new FilterError('corrupt', `zip bomb: ${label} declares ${mb(xml)} of XML (cap ${mb(maxXml)})`);
  }

  has(name: string): boolean {
    return this.byName.has(name);
  }

  /**
   * A part's bytes, or undefined when the package has no such part. Everything read through one
   * package counts against its XML cap; an entry that inflates past its declared size throws.
   */
  read(name: string): Buffer | undefined {
    const e = this.byName.get(name);
    if (!e) return undefined;
    const left = this.maxXml - this.xmlRead;
    if (e.uncompressedSize > left)
      throw new FilterError('corrupt', `zip bomb: ${this.label} holds over ${mb(this.maxXml)} of XML`);
    const out = readZipEntry(this.bytes, e, left);
    this.xmlRead += out.length;
    return out;
  }

  /** A part as UTF-8 text (OOXML and ODF XML are UTF-8), or undefined. */
  text(name: string): string | undefined {
    return this.read(name)?.toString('utf8');
  }

  /** Reads every XML part once: a lying header anywhere is caught before a library parses them. */
  testXml(): void {
    for (const e of this.entries) if (isXmlPart(e.name)) this.read(e.name);
    this.xmlRead = 0;
  }
}

/** The part after the last `:` of a qualified XML name, lowercased. */
export function localName(name: string): string {
  return name.slice(name.indexOf(':') + 1).toLowerCase();
}

/** Callbacks of {@link walkXml}, by local element name; attribute names are lowercased. */
export interface XmlHandlers {
  open?(local: string, attrs: Record<string, string>): void;
  text?(text: string): void;
  close?(local: string): void;
}

/** Parses XML (entities decoded, nothing external loaded) and reports elements by local name. */
export function walkXml(xml: string, h: XmlHandlers): void {
  const parser = new Parser(
    {
      onopentag: h.open ? (name, attrs) => h.open!(localName(name), attrs) : undefined,
      ontext: h.text,
      onclosetag: h.close ? (name) => h.close!(localName(name)) : undefined,
    },
    { xmlMode: true, decodeEntities: true, lowerCaseAttributeNames: true },
  );
  parser.write(xml);
  parser.end();
}

/** The relationship id of an element (`r:id`, whatever the prefix; not a plain `id`). */
export function relationshipId(attrs: Record<string, string>): string | undefined {
  for (const [k, v] of Object.entries(attrs)) if (k.includes(':') && localName(k) === 'id') return v;
  return undefined;
}

/** One OOXML relationship: its type URI and the package path of its target. */
export interface Relationship {
  type: string;
  target: string;
}

/**
 * The relationships of `part` (`xl/workbook.xml` → `xl/_rels/workbook.xml.rels`; `''` for the
 * package's own `_rels/.rels`), by id, with targets resolved to package paths. External targets
 * are left out. Empty when there is no relationships part.
 */
export function relationships(pkg: OfficePackage, part: string): Map<string, Relationship> {
  const dir = path.dirname(part);
  const relsPath = part === '' ? '_rels/.rels' : path.join(dir, '_rels', `${path.basename(part)}.rels`);
  const out = new Map<string, Relationship>();
  const xml = pkg.text(relsPath);
  if (xml === undefined) return out;
  walkXml(xml, {
    open(local, attrs) {
      if (local !== 'relationship' || !attrs.id || !attrs.target) return;
      if ((attrs.targetmode ?? '').toLowerCase() === 'external') return;
      const target = attrs.target.startsWith('/')
        ? attrs.target.slice(1)
        : path.normalize(path.join(part === '' ? '' : dir, attrs.target));
      out.set(attrs.id, { type: attrs.type ?? '', target });
    },
  });
  return out;
}

/** Title, author, keywords and description of a document. */
export interface DocumentProperties {
  title?: string;
  author?: string;
  keywords?: string;
  description?: string;
}

/**
 * The first value of each simple element of a properties part, by local name (`dc:title` →
 * `title`); repeated elements (ODF's `meta:keyword`) are joined with `, `.
 */
export function propertyValues(
  xml: string,
  repeated: ReadonlySet<string> = new Set(),
): Record<string, string> {
  const values: Record<string, string> = {};
  let current: string | null = null;
  let buf: string[] = [];
  walkXml(xml, {
    open(local) {
      current = local;
      buf = [];
    },
    text(t) {
      if (current) buf.push(t);
    },
    close(local) {
      if (current === local) {
        const v = buf.join('');
        if (values[local] === undefined) values[local] = v;
        else if (repeated.has(local) && v.trim()) values[local] += `, ${v}`;
      }
      current = null;
    },
  });
  return values;
}

/** An OOXML package's core properties (`docProps/core.xml`, or where `_rels/.rels` points). */
export function ooxmlCoreProperties(pkg: OfficePackage): DocumentProperties {
  let target: string | undefined;
  for (const r of relationships(pkg, '').values()) {
    if (r.type.endsWith('/core-properties')) {
      target = r.target;
      break;
    }
  }
  const xml = (target !== undefined ? pkg.text(target) : undefined) ?? pkg.text('docProps/core.xml');
  if (xml === undefined) return {};
  const v = propertyValues(xml);
  return {
    title: normalizeLine(v.title),
    author: normalizeLine(v.creator),
    keywords: normalizeLine(v.keywords),
    description: normalizeLine(v.description) ?? normalizeLine(v.subject),
  };
}

/** Properties are optional: a damaged properties part must not cost the document its text. */
export function optionalProperties(read: () => DocumentProperties): DocumentProperties {
  try {
    return read();
  } catch {
    return {};
  }
}
