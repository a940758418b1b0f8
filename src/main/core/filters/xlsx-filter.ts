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
 * XLSX (SpreadsheetML): every worksheet in workbook order, as its name on a line and then one line
 * per row with the cells' values (shared and inline strings, numbers, booleans and formula results
 * as stored — formulas themselves are not text), plus the core properties. Phonetic guides
 * (`rPh`) are left out.
 */

const XLSX_MIME = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/** The strings of `xl/sharedStrings.xml`, by index. */
function sharedStrings(xml: string | undefined): string[] {
  const out: string[] = [];
  if (xml === undefined) return out;
  let inItem = false;
  let inText = false;
  let phonetic = 0;
  let buf: string[] = [];
  walkXml(xml, {
    open(local) {
      if (local === 'si') {
        inItem = true;
        buf = [];
      } else if (local === 'rph') phonetic++;
      else if (local === 't' && inItem && phonetic === 0) inText = true;
    },
    text(t) {
      if (inText) buf.push(t);
    },
    close(local) {
      if (local === 't') inText = false;
      else if (local === 'rph') phonetic = Math.max(0, phonetic - 1);
      else if (local === 'si') {
        out.push(buf.join(''));
        inItem = false;
      }
    },
  });
  return out;
}

/** One worksheet's cell values, a line per row, cells separated by tabs. */
function sheetText(xml: string, strings: readonly string[], lines: string[]): void {
  let row: string[] = [];
  let type = '';
  let value: string[] | null = null; // collecting <v> or inline <t>
  let inInline = false;
  let phonetic = 0;
  let cellParts: string[] = [];
  const endRow = () => {
    const cells = row.filter((c) => c !== '');
    if (cells.length > 0) lines.push(cells.join('\t'));
    row = [];
  };
  walkXml(xml, {
    open(local, attrs) {
      switch (local) {
        case 'row':
          row = [];
          break;
        case 'c':
          type = attrs.t ?? '';
          cellParts = [];
          break;
        case 'is':
          inInline = true;
          break;
        case 'rph':
          phonetic++;
          break;
        case 'v':
          value = [];
          break;
        case 't':
          if (inInline && phonetic === 0) value = [];
          break;
      }
    },
    text(t) {
      if (value) value.push(t);
    },
    close(local) {
      switch (local) {
        case 'v':
        case 't': {
          if (!value) break;
          const raw = value.join('');
          value = null;
          if (local === 'v' && type === 's') {
            const i = Number(raw);
            cellParts.push(Number.isInteger(i) && i >= 0 && i < strings.length ? strings[i] : '');
          } else if (local === 'v' && type === 'b') cellParts.push(raw === '1' ? 'TRUE' : 'FALSE');
          else cellParts.push(raw);
          break;
        }
        case 'is':
          inInline = false;
          break;
        case 'rph':
          phonetic = Math.max(0, phonetic - 1);
          break;
        case 'c':
          row.push(cellParts.join('').trim());
          break;
        case 'row':
          endRow();
          break;
      }
    },
  });
  endRow();
}

/** Worksheet parts in workbook order, with their names. */
function worksheets(pkg: OfficePackage): { name: string; part: string }[] {
  const workbook = pkg.text('xl/workbook.xml');
  if (workbook === undefined) throw new FilterError('corrupt', 'unreadable XLSX: no xl/workbook.xml');
  const rels = relationships(pkg, 'xl/workbook.xml');
  const out: { name: string; part: string }[] = [];
  walkXml(workbook, {
    open(local, attrs) {
      if (local !== 'sheet') return;
      const rel = rels.get(relationshipId(attrs) ?? '');
      if (rel && rel.type.endsWith('/worksheet')) out.push({ name: attrs.name ?? '', part: rel.target });
    },
  });
  return out;
}

export const xlsxFilter: Filter = {
  id: 'xlsx',
  extract: async (input) => extractXlsx(input),
};

function extractXlsx(input: FilterInput): FilterOutput {
  const pkg = new OfficePackage(input.bytes, 'XLSX');
  const sheets = worksheets(pkg);
  let strings: string[] = [];
  for (const r of relationships(pkg, 'xl/workbook.xml').values()) {
    if (r.type.endsWith('/sharedStrings')) strings = sharedStrings(pkg.text(r.target));
  }
  const lines: string[] = [];
  for (const { name, part } of sheets) {
    const xml = pkg.text(part);
    if (xml === undefined) continue;
    if (name.trim()) lines.push(name);
    sheetText(xml, strings, lines);
  }
  const props = optionalProperties(() => ooxmlCoreProperties(pkg));
  return { text: lines.join('\n'), ...props, mime: XLSX_MIME };
}
