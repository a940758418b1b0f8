import type { Filter, FilterInput, FilterOutput } from './filter.js';
import { FilterError } from './filter.js';
import {
  OfficePackage,
  ooxmlCoreProperties,
  optionalProperties,
  relationshipId,
  relationships,
  walkXml,
} from './office-package.js';

/**
 * PPTX (PresentationML): the text of every slide in presentation order, each followed by its
 * speaker notes, a line per paragraph; plus the core properties. Field values the application
 * fills in (slide numbers, dates) are left out.
 */

const PPTX_MIME = 'application/vnd.openxmlformats-officedocument.presentationml.presentation';

/** The paragraphs of one DrawingML part (a slide or a notes page), appended to `lines`. */
function drawingText(xml: string, lines: string[]): void {
  let para: string[] = [];
  let inText = false;
  let field = 0;
  walkXml(xml, {
    open(local) {
      if (local === 'p') para = [];
      else if (local === 'fld') field++;
      else if (local === 't' && field === 0) inText = true;
      else if (local === 'br') para.push('\n');
    },
    text(t) {
      if (inText) para.push(t);
    },
    close(local) {
      if (local === 't') inText = false;
      else if (local === 'fld') field = Math.max(0, field - 1);
      else if (local === 'p') {
        const line = para.join('').trim();
        if (line) lines.push(line);
        para = [];
      }
    },
  });
}

/** Slide parts in presentation order (by the slide list, else by slide number). */
function slideParts(pkg: OfficePackage): string[] {
  const presentation = pkg.text('ppt/presentation.xml');
  if (presentation === undefined)
    throw new FilterError('corrupt', 'unreadable PPTX: no ppt/presentation.xml');
  const rels = relationships(pkg, 'ppt/presentation.xml');
  const out: string[] = [];
  walkXml(presentation, {
    open(local, attrs) {
      if (local !== 'sldid') return;
      const rel = rels.get(relationshipId(attrs) ?? '');
      if (rel && rel.type.endsWith('/slide')) out.push(rel.target);
    },
  });
  if (out.length > 0) return out;
  const number = (name: string) => Number(/(\d+)\.xml$/.exec(name)?.[1] ?? 0);
  return pkg.entries
    .map((e) => e.name)
    .filter((n) => /^ppt\/slides\/slide\d+\.xml$/.test(n))
    .sort((a, b) => number(a) - number(b));
}

export const pptxFilter: Filter = {
  id: 'pptx',
  extract: async (input) => extractPptx(input),
};

function extractPptx(input: FilterInput): FilterOutput {
  const pkg = new OfficePackage(input.bytes, 'PPTX');
  const lines: string[] = [];
  for (const part of slideParts(pkg)) {
    const xml = pkg.text(part);
    if (xml === undefined) continue;
    drawingText(xml, lines);
    for (const r of relationships(pkg, part).values()) {
      if (!r.type.endsWith('/notesSlide')) continue;
      const notes = pkg.text(r.target);
      if (notes !== undefined) drawingText(notes, lines);
    }
  }
  const props = optionalProperties(() => ooxmlCoreProperties(pkg));
  return { text: lines.join('\n'), ...props, mime: PPTX_MIME };
}
