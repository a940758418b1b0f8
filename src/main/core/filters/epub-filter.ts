import path from 'node:path/posix';
import type { Filter, FilterInput, FilterOutput } from './filter.js';
import { FilterError } from './filter.js';
import { htmlFilter } from './html-filter.js';
import { OfficePackage, propertyValues, walkXml } from './office-package.js';
import { normalizeLine } from './text-normalization.js';

/**
 * EPUB 2 and 3 books: the text of every XHTML document of the spine, in reading order (read by
 * the HTML filter, so scripts and styles are left out), plus title, author, subjects (as
 * keywords) and description from the package document. A book whose content is encrypted (DRM)
 * is refused as unsupported; obfuscated fonts alone are fine.
 */

const EPUB_MIME = 'application/epub+zip';
const XHTML_TYPES = new Set(['application/xhtml+xml', 'text/html', 'application/x-dtbook+xml']);
/** Font obfuscation (IDPF, Adobe): fonts only, not encryption of the text. */
const OBFUSCATION = new Set(['http://www.idpf.org/2008/embedding', 'http://ns.adobe.com/pdf/enc#rc']);

/** The package document (`.opf`) named by `META-INF/container.xml`. */
function packagePath(pkg: OfficePackage): string {
  const container = pkg.text('META-INF/container.xml');
  if (container === undefined) throw new FilterError('corrupt', 'unreadable EPUB: no META-INF/container.xml');
  let found: string | undefined;
  walkXml(container, {
    open(local, attrs) {
      if (local === 'rootfile' && found === undefined && attrs['full-path']) found = attrs['full-path'];
    },
  });
  if (!found) throw new FilterError('corrupt', 'unreadable EPUB: container.xml names no package document');
  return decodeURIComponent(found);
}

/** Spine documents in reading order, as package paths. */
function spine(opf: string, base: string): string[] {
  const manifest = new Map<string, { href: string; type: string }>();
  const order: string[] = [];
  walkXml(opf, {
    open(local, attrs) {
      if (local === 'item' && attrs.id && attrs.href)
        manifest.set(attrs.id, { href: attrs.href, type: (attrs['media-type'] ?? '').toLowerCase() });
      else if (local === 'itemref' && attrs.idref) order.push(attrs.idref);
    },
  });
  const out: string[] = [];
  for (const id of order) {
    const item = manifest.get(id);
    if (!item || !XHTML_TYPES.has(item.type)) continue;
    let href = item.href.split('#')[0];
    try {
      href = decodeURIComponent(href);
    } catch {
      // a malformed escape: use the name as written
    }
    out.push(path.normalize(path.join(base, href)));
  }
  return out;
}

/** Package paths whose content is encrypted (fonts obfuscated by the IDPF algorithm are not counted). */
function encryptedParts(pkg: OfficePackage): Set<string> {
  const xml = pkg.text('META-INF/encryption.xml');
  const out = new Set<string>();
  if (xml === undefined) return out;
  let algorithm = '';
  walkXml(xml, {
    open(local, attrs) {
      if (local === 'encryptionmethod') algorithm = attrs.algorithm ?? '';
      else if (local === 'cipherreference' && attrs.uri && !OBFUSCATION.has(algorithm.toLowerCase())) {
        try {
          out.add(path.normalize(decodeURIComponent(attrs.uri)));
        } catch {
          out.add(path.normalize(attrs.uri));
        }
      }
    },
    close(local) {
      if (local === 'encrypteddata') algorithm = '';
    },
  });
  return out;
}

export const epubFilter: Filter = {
  id: 'epub',
  extract: async (input) => extractEpub(input),
};

function extractEpub(input: FilterInput): FilterOutput {
  const pkg = new OfficePackage(input.bytes, 'EPUB');
  const opfPath = packagePath(pkg);
  const opf = pkg.text(opfPath);
  if (opf === undefined) throw new FilterError('corrupt', `unreadable EPUB: no package document ${opfPath}`);
  const docs = spine(opf, path.dirname(opfPath));
  const encrypted = encryptedParts(pkg);
  if (docs.some((d) => encrypted.has(d)))
    throw new FilterError('unsupported', 'EPUB content is encrypted (DRM)');
  const chapters: string[] = [];
  for (const doc of docs) {
    const bytes = pkg.read(doc);
    if (bytes === undefined) continue;
    const out = htmlFilter.extractSync!({
      bytes,
      name: path.basename(doc),
      ext: 'xhtml',
      url: input.url,
      charset: 'utf-8',
    });
    if (out.text.trim()) chapters.push(out.text);
  }
  const meta = propertyValues(opfMetadata(opf), new Set(['subject', 'creator']));
  return {
    text: chapters.join('\n'),
    title: normalizeLine(meta.title),
    author: normalizeLine(meta.creator),
    keywords: normalizeLine(meta.subject),
    description: normalizeLine(meta.description),
    mime: EPUB_MIME,
  };
}

/** The `<metadata>` element of a package document (its values, not the manifest's). */
function opfMetadata(opf: string): string {
  const m = /<(?:\w+:)?metadata\b[\s\S]*?<\/(?:\w+:)?metadata>/i.exec(opf);
  return m ? m[0] : '';
}
