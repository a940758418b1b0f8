import { Parser } from 'htmlparser2';
import type { Filter, FilterInput, FilterOutput } from './filter.js';
import { normaliseMime } from './filter-table.js';
import { decodeText } from './text-decoding.js';
import { normalizeLine } from './text-normalization.js';

/**
 * HTML and XHTML: title, meta description/keywords/author, body text (without script, style,
 * noscript and template content), outlinks (`a`, `area`, `link rel=alternate`) and embeds
 * (`frame`, `iframe`) resolved against `<base href>` or the item URL.
 */

/** Elements whose content is never body text. */
const SKIPPED = new Set(['script', 'style', 'noscript', 'template', 'title']);

/** Elements that break a line of text where they open and close. */
// prettier-ignore
const BLOCKS = new Set([
  'address', 'article', 'aside', 'blockquote', 'body', 'br', 'caption', 'dd', 'details', 'dialog', 'div', 'dl', 'dt',
  'fieldset', 'figcaption', 'figure', 'footer', 'form', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'header', 'hgroup', 'hr',
  'li', 'main', 'menu', 'nav', 'ol', 'p', 'pre', 'section', 'summary', 'table', 'tbody', 'tfoot', 'thead', 'tr', 'ul',
  'option', 'legend', 'center', 'frameset',
]);

/** Elements whose text is separated from its neighbours by a space. */
const CELLS = new Set(['td', 'th', 'img', 'input', 'button', 'label', 'select', 'textarea']);

/** Bytes scanned for a `<meta charset>` (the HTML spec's prescan looks at 1024). */
const META_PRESCAN = 4096;

const LINK_PROTOCOLS = new Set(['http:', 'https:', 'file:']);

/** Charset named by `<meta charset>` or `<meta http-equiv=content-type content="…; charset=…">`. */
export function sniffMetaCharset(bytes: Uint8Array): string | undefined {
  const head = new TextDecoder('windows-1252').decode(bytes.subarray(0, META_PRESCAN));
  const re = /<meta\b[^>]*?charset\s*=\s*["']?\s*([a-z0-9_:.+-]+)/gi;
  const m = re.exec(head);
  if (!m) return undefined;
  const label = m[1].toLowerCase();
  // A page that says it is UTF-16 but was found by an ASCII-compatible scan is not (HTML spec).
  return label.startsWith('utf-16') ? 'utf-8' : label;
}

interface RawLink {
  href: string;
  embed: boolean;
}

export const htmlFilter: Filter = {
  id: 'html',
  extract: async (input) => extractHtml(input),
  extractSync: extractHtml,
};

function extractHtml(input: FilterInput): FilterOutput {
  const { text: source, encoding } = decodeText(input.bytes, input.charset ?? sniffMetaCharset(input.bytes));
  const chunks: string[] = [];
  const rawLinks: RawLink[] = [];
  const meta: Record<string, string> = {};
  let baseHref: string | undefined;
  let title: string | undefined;
  let titleText: string[] | null = null;
  let skipDepth = 0;
  let svgDepth = 0;

  const parser = new Parser(
    {
      onopentag(name, attrs) {
        if (name === 'svg' || name === 'math') svgDepth++;
        if (SKIPPED.has(name)) {
          skipDepth++;
          if (name === 'title' && title === undefined && titleText === null && svgDepth === 0) titleText = [];
        }
        if (BLOCKS.has(name)) chunks.push('\n');
        else if (CELLS.has(name)) chunks.push(' ');
        switch (name) {
          case 'a':
          case 'area':
            if (attrs.href !== undefined) rawLinks.push({ href: attrs.href, embed: false });
            break;
          case 'frame':
          case 'iframe':
            if (attrs.src !== undefined) rawLinks.push({ href: attrs.src, embed: true });
            break;
          case 'link': {
            const rel = (attrs.rel ?? '').toLowerCase().split(/\s+/);
            if (attrs.href !== undefined && rel.includes('alternate') && !rel.includes('stylesheet')) {
              rawLinks.push({ href: attrs.href, embed: false });
            }
            break;
          }
          case 'base':
            if (baseHref === undefined && attrs.href !== undefined) baseHref = attrs.href;
            break;
          case 'meta': {
            const key = (attrs.name ?? attrs.property ?? '').toLowerCase();
            if (key && attrs.content !== undefined && meta[key] === undefined) meta[key] = attrs.content;
            break;
          }
        }
      },
      ontext(text) {
        if (titleText !== null) titleText.push(text);
        else if (skipDepth === 0) chunks.push(text);
      },
      onclosetag(name) {
        if (SKIPPED.has(name)) {
          skipDepth = Math.max(0, skipDepth - 1);
          if (name === 'title' && titleText !== null) {
            title = titleText.join('');
            titleText = null;
          }
        }
        if (name === 'svg' || name === 'math') svgDepth = Math.max(0, svgDepth - 1);
        if (BLOCKS.has(name)) chunks.push('\n');
        else if (CELLS.has(name)) chunks.push(' ');
      },
    },
    {
      decodeEntities: true,
      lowerCaseTags: true,
      lowerCaseAttributeNames: true,
      recognizeSelfClosing: true,
    },
  );
  parser.write(source);
  parser.end();

  const { links, embeds } = resolveLinks(rawLinks, baseHref, input.url);
  const mime =
    input.mime && normaliseMime(input.mime) === 'application/xhtml+xml'
      ? 'application/xhtml+xml'
      : 'text/html';
  return {
    text: chunks.join(''),
    title: normalizeLine(title) ?? normalizeLine(meta['og:title']),
    description: normalizeLine(meta.description) ?? normalizeLine(meta['og:description']),
    keywords: normalizeLine(meta.keywords),
    author: normalizeLine(meta.author),
    links,
    embeds,
    mime,
    encoding,
  };
}

function parseUrl(href: string, base: string | URL | undefined): URL | undefined {
  try {
    return new URL(href.trim(), base);
  } catch {
    return undefined;
  }
}

/** Resolves, filters (http/https/file), strips fragments and de-duplicates, keeping document order. */
function resolveLinks(
  raw: RawLink[],
  baseHref: string | undefined,
  pageUrl: string,
): { links: string[]; embeds: string[] } {
  const page = parseUrl(pageUrl, undefined);
  const base = (baseHref !== undefined ? parseUrl(baseHref, page) : undefined) ?? page;
  const links = new Set<string>();
  const embeds = new Set<string>();
  for (const { href, embed } of raw) {
    if (!href.trim() || href.trim().startsWith('#')) continue;
    const url = parseUrl(href, base);
    if (!url || !LINK_PROTOCOLS.has(url.protocol)) continue;
    url.hash = '';
    (embed ? embeds : links).add(url.href);
  }
  return { links: [...links], embeds: [...embeds] };
}
