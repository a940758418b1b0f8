import type { Filter, FilterInput, FilterOutput } from './filter.js';
import { FilterError } from './filter.js';
import { BUILTIN_DATE_FORMATS, isDateFormat, serialDate } from './spreadsheet-dates.js';
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
 * as stored — formulas themselves are not text; numbers in a date or time format as ISO 8601
 * dates, `2024-03-15` or `2024-03-15 09:30`), plus the core properties. Phonetic guides
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
/** How numbers are shown: which cell styles are dates, and the workbook's date system. */
interface NumberStyles {
  /** Indexes into `cellXfs` whose number format is a date or time. */
  dateStyles: ReadonlySet<number>;
  /** The 1904 date system (old Mac workbooks): serial 0 is 1904-01-01, not 1899-12-30. */
  date1904: boolean;
}

function numberStyles(styles: string | undefined, workbook: string | undefined): NumberStyles {
  const dateStyles = new Set<number>();
  const date1904 = /<(?:\w+:)?workbookPr\b[^>]*\bdate1904="(?:1|true)"/.test(workbook ?? '');
  if (styles === undefined) return { dateStyles, date1904 };
  const custom = new Map<number, boolean>();
  let inCellXfs = false;
  let xf = 0;
  walkXml(styles, {
    open(local, attrs) {
      if (local === 'numfmt') custom.set(Number(attrs.numfmtid), isDateFormat(attrs.formatcode ?? ''));
      else if (local === 'cellxfs') inCellXfs = true;
      else if (local === 'xf' && inCellXfs) {
        const id = Number(attrs.numfmtid ?? 0);
        if (custom.get(id) ?? BUILTIN_DATE_FORMATS.has(id)) dateStyles.add(xf);
        xf++;
      }
    },
    close(local) {
      if (local === 'cellxfs') inCellXfs = false;
    },
  });
  return { dateStyles, date1904 };
}

function sheetText(xml: string, strings: readonly string[], lines: string[], numbers: NumberStyles): void {
  let row: string[] = [];
  let type = '';
  let style = 0;
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
          style = Number(attrs.s ?? 0);
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
          else if (local === 'v' && (type === '' || type === 'n') && numbers.dateStyles.has(style))
            cellParts.push(serialDate(raw, numbers.date1904));
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
  let styles: string | undefined;
  for (const r of relationships(pkg, 'xl/workbook.xml').values()) {
    if (r.type.endsWith('/sharedStrings')) strings = sharedStrings(pkg.text(r.target));
    else if (r.type.endsWith('/styles')) styles = pkg.text(r.target);
  }
  const numbers = numberStyles(styles, pkg.text('xl/workbook.xml'));
  const lines: string[] = [];
  for (const { name, part } of sheets) {
    const xml = pkg.text(part);
    if (xml === undefined) continue;
    if (name.trim()) lines.push(name);
    sheetText(xml, strings, lines, numbers);
  }
  const props = optionalProperties(() => ooxmlCoreProperties(pkg));
  return { text: lines.join('\n'), ...props, mime: XLSX_MIME };
}
