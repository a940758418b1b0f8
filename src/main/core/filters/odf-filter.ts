import type { Filter, FilterInput, FilterOutput } from './filter.js';
import { FilterError } from './filter.js';
import {
  OfficePackage,
  optionalProperties,
  propertyValues,
  walkXml,
  type DocumentProperties,
} from './office-package.js';
import { normalizeLine } from './text-normalization.js';

/**
 * OpenDocument (ODT, ODS, ODP, ODG and their templates): the text of `content.xml` — paragraphs
 * and headings a line each, table cells separated by tabs and rows by lines, sheet names of
 * spreadsheets, speaker notes — plus title, author, keywords and description from `meta.xml`.
 * Deleted text kept for change tracking and comments' own metadata are left out. An encrypted
 * (password-protected) document is refused as unsupported.
 */

const ODF_PREFIX = 'application/vnd.oasis.opendocument.';

/** Elements that end a line of text. */
const LINE_ENDS = new Set(['p', 'h', 'table-row', 'line-break', 'page']);
/** Elements whose content is not document text. */
const SKIPPED = new Set([
  'tracked-changes',
  'creator',
  'date',
  'note-citation',
  'forms',
  'scripts',
  'font-face-decls',
  'automatic-styles',
]);

function bodyText(xml: string): string {
  const out: string[] = [];
  let skip = 0;
  let inline = 0; // depth of table cells and comments: their paragraphs share the line they are in
  walkXml(xml, {
    open(local, attrs) {
      if (SKIPPED.has(local)) skip++;
      if (skip > 0) return;
      if (local === 'table-cell' || local === 'covered-table-cell') inline++;
      else if (local === 'annotation') {
        inline++;
        out.push(' ');
      } else if (local === 'table' && attrs['table:name']) out.push(attrs['table:name'], '\n');
      else if (local === 's') out.push(' '.repeat(Math.min(64, Math.max(1, Number(attrs['text:c']) || 1))));
      else if (local === 'tab') out.push('\t');
      else if (local === 'line-break') out.push('\n');
    },
    text(t) {
      if (skip === 0) out.push(t);
    },
    close(local) {
      if (SKIPPED.has(local)) {
        skip = Math.max(0, skip - 1);
        return;
      }
      if (skip > 0) return;
      if (local === 'table-cell' || local === 'covered-table-cell' || local === 'annotation') {
        inline = Math.max(0, inline - 1);
        out.push(local === 'annotation' ? ' ' : '\t');
      } else if ((local === 'p' || local === 'h') && inline > 0) out.push(' ');
      else if (LINE_ENDS.has(local) && local !== 'line-break') out.push('\n');
    },
  });
  return out.join('');
}

function metaProperties(pkg: OfficePackage): DocumentProperties {
  const xml = pkg.text('meta.xml');
  if (xml === undefined) return {};
  const v = propertyValues(xml, new Set(['keyword']));
  return {
    title: normalizeLine(v.title),
    author: normalizeLine(v.creator) ?? normalizeLine(v['initial-creator']),
    keywords: normalizeLine(v.keyword),
    description: normalizeLine(v.description) ?? normalizeLine(v.subject),
  };
}

export const odfFilter: Filter = {
  id: 'odf',
  extract: async (input) => extractOdf(input),
};

function extractOdf(input: FilterInput): FilterOutput {
  const pkg = new OfficePackage(input.bytes, 'OpenDocument');
  const mimetype = pkg.text('mimetype')?.trim() ?? '';
  if (mimetype && !mimetype.startsWith(ODF_PREFIX))
    throw new FilterError(
      'corrupt',
      `unreadable OpenDocument: the package says it is ${mimetype.slice(0, 80)}`,
    );
  const manifest = pkg.text('META-INF/manifest.xml') ?? '';
  if (/<manifest:encryption-data\b/.test(manifest))
    throw new FilterError('unsupported', 'OpenDocument is encrypted (password-protected)');
  const content = pkg.text('content.xml');
  if (content === undefined) throw new FilterError('corrupt', 'unreadable OpenDocument: no content.xml');
  const text = bodyText(content);
  const props = optionalProperties(() => metaProperties(pkg));
  return { text, ...props, mime: mimetype || 'application/vnd.oasis.opendocument.text' };
}
