import iconv from 'iconv-lite';
import type { Filter, FilterInput, FilterOutput } from './filter.js';
import { FilterError } from './filter.js';
import { oleStreams } from './ole-package.js';
import { BUILTIN_DATE_FORMATS, isDateFormat, serialDate } from './spreadsheet-dates.js';

/**
 * Excel 97–2003 (`.xls`, BIFF8; BIFF5 `Book` streams too): every worksheet in workbook order, as
 * its name on a line and then one line per row with the cells' values — shared strings, inline
 * labels, numbers (in a date or time format as ISO 8601 dates), booleans and formula results
 * (MS-XLS 2.4). Formulas themselves are not text.
 * A workbook with a password (FILEPASS) is refused as unsupported.
 */

const XLS_MIME = 'application/vnd.ms-excel';

const BOF = 0x0809;
const EOF = 0x000a;
const FILEPASS = 0x002f;
const CODEPAGE = 0x0042;
const DATEMODE = 0x0022;
const FORMAT = 0x041e;
const XF = 0x00e0;
const BOUNDSHEET = 0x0085;
const SST = 0x00fc;
const CONTINUE = 0x003c;
const LABELSST = 0x00fd;
const LABEL = 0x0204;
const NUMBER = 0x0203;
const RK = 0x027e;
const MULRK = 0x00bd;
const FORMULA = 0x0006;
const STRING = 0x0207;
const BOOLERR = 0x0205;
const CELLS = new Set([LABELSST, LABEL, NUMBER, RK, MULRK, BOOLERR, FORMULA]);

interface Rec {
  type: number;
  offset: number;
  data: Buffer;
}

function records(stream: Buffer): Rec[] {
  const out: Rec[] = [];
  let p = 0;
  while (p + 4 <= stream.length) {
    const type = stream.readUInt16LE(p);
    const length = stream.readUInt16LE(p + 2);
    if (p + 4 + length > stream.length) break;
    out.push({ type, offset: p, data: stream.subarray(p + 4, p + 4 + length) });
    p += 4 + length;
  }
  return out;
}

/** Reads XLUnicodeRichExtendedStrings across an SST record and its CONTINUE records. */
class SegmentReader {
  private seg = 0;
  private pos = 0;
  constructor(private readonly segments: Buffer[]) {}

  private ensure(): boolean {
    while (this.seg < this.segments.length && this.pos >= this.segments[this.seg].length) {
      this.seg++;
      this.pos = 0;
    }
    return this.seg < this.segments.length;
  }

  u8(): number {
    if (!this.ensure()) throw new RangeError('end of strings');
    return this.segments[this.seg][this.pos++];
  }

  u16(): number {
    return this.u8() | (this.u8() << 8);
  }

  u32(): number {
    return (this.u16() | (this.u16() << 16)) >>> 0;
  }

  skip(n: number): void {
    for (let left = n; left > 0;) {
      if (!this.ensure()) throw new RangeError('end of strings');
      const take = Math.min(left, this.segments[this.seg].length - this.pos);
      this.pos += take;
      left -= take;
    }
  }

  /** `cch` characters; at a record boundary the next record restates the high-byte flag. */
  chars(cch: number, highByte: boolean): string {
    let out = '';
    let left = cch;
    let wide = highByte;
    while (left > 0) {
      if (!this.ensure()) throw new RangeError('end of strings');
      if (this.pos === 0 && out.length > 0) wide = (this.segments[this.seg][this.pos++] & 1) === 1;
      const seg = this.segments[this.seg];
      const avail = Math.floor((seg.length - this.pos) / (wide ? 2 : 1));
      if (avail === 0) {
        this.pos = seg.length;
        continue;
      }
      const take = Math.min(left, avail);
      const end = this.pos + take * (wide ? 2 : 1);
      out += seg.toString(wide ? 'utf16le' : 'latin1', this.pos, end);
      this.pos = end;
      left -= take;
    }
    return out;
  }

  string(): string {
    const cch = this.u16();
    const flags = this.u8();
    const runs = flags & 0x08 ? this.u16() : 0;
    const ext = flags & 0x04 ? this.u32() : 0;
    const text = this.chars(cch, (flags & 1) === 1);
    this.skip(runs * 4 + ext);
    return text;
  }
}

function sharedStrings(sst: Rec, continues: Rec[]): string[] {
  const reader = new SegmentReader([sst.data.subarray(8), ...continues.map((c) => c.data)]);
  const unique = sst.data.length >= 8 ? sst.data.readUInt32LE(4) : 0;
  const out: string[] = [];
  try {
    for (let i = 0; i < unique; i++) out.push(reader.string());
  } catch {
    // a short table: keep what was read
  }
  return out;
}

/** XLUnicodeString (BIFF8) or an 8-bit string in the workbook's code page (BIFF5). */
function cellString(data: Buffer, at: number, biff8: boolean, codepage: string): string {
  if (at + 2 > data.length) return '';
  const cch = data.readUInt16LE(at);
  if (!biff8) return iconv.decode(data.subarray(at + 2, at + 2 + cch), codepage);
  const wide = (data[at + 2] & 1) === 1;
  const start = at + 3;
  return data.toString(
    wide ? 'utf16le' : 'latin1',
    start,
    Math.min(data.length, start + cch * (wide ? 2 : 1)),
  );
}

function rkValue(rk: number): number {
  let v: number;
  if (rk & 0x02) v = rk >> 2;
  else {
    const b = Buffer.alloc(8);
    b.writeUInt32LE((rk & 0xfffffffc) >>> 0, 4);
    v = b.readDoubleLE(0);
  }
  return rk & 0x01 ? v / 100 : v;
}

const num = (v: number): string => (Number.isFinite(v) ? String(Number(v.toPrecision(15))) : '');

export const xlsFilter: Filter = {
  id: 'xls',
  extract: async (input) => extractXls(input),
};

async function extractXls(input: FilterInput): Promise<FilterOutput> {
  const ole = await oleStreams(input.bytes, 'XLS');
  const stream = ole.get(['Workbook', 'Book']);
  // BIFF8 (Excel 97 and later) or BIFF5 (Excel 5/95, 8-bit strings): the first BOF says which.
  const biff8 = stream.length >= 6 && stream.readUInt16LE(4) === 0x0600;
  const recs = records(stream);
  let codepage = 'cp1252';
  let strings: string[] = [];
  const sheetNames = new Map<number, string>();
  const customFormats = new Map<number, boolean>(); // FORMAT: ifmt → is a date
  const xfFormats: number[] = []; // XF index → ifmt
  let date1904 = false;
  for (let i = 0; i < recs.length; i++) {
    const r = recs[i];
    if (r.type === DATEMODE && r.data.length >= 2) date1904 = r.data.readUInt16LE(0) === 1;
    else if (r.type === FORMAT && r.data.length >= 4) {
      const code = biff8
        ? cellString(r.data, 2, true, codepage)
        : iconv.decode(r.data.subarray(3, 3 + r.data[2]), codepage);
      customFormats.set(r.data.readUInt16LE(0), isDateFormat(code));
    } else if (r.type === XF && r.data.length >= 4) xfFormats.push(r.data.readUInt16LE(2));
    if (r.type === FILEPASS)
      throw new FilterError('unsupported', 'XLS workbook is encrypted (password-protected)');
    if (r.type === CODEPAGE && r.data.length >= 2) {
      const cp = r.data.readUInt16LE(0);
      if (cp !== 1200 && iconv.encodingExists(`cp${cp}`)) codepage = `cp${cp}`;
    } else if (r.type === BOUNDSHEET && r.data.length >= 8) {
      const name = biff8
        ? r.data.toString(r.data[7] & 1 ? 'utf16le' : 'latin1', 8, 8 + r.data[6] * (r.data[7] & 1 ? 2 : 1))
        : iconv.decode(r.data.subarray(7, 7 + r.data[6]), codepage);
      sheetNames.set(r.data.readUInt32LE(0), name);
    } else if (r.type === SST && strings.length === 0) {
      const cont: Rec[] = [];
      for (let j = i + 1; j < recs.length && recs[j].type === CONTINUE; j++) cont.push(recs[j]);
      strings = sharedStrings(r, cont);
    }
  }

  /** A number as its cell's format shows it: an ISO date for date formats, else the number. */
  const shown = (ixfe: number, v: number): string => {
    const ifmt = xfFormats[ixfe];
    const date = ifmt !== undefined && (customFormats.get(ifmt) ?? BUILTIN_DATE_FORMATS.has(ifmt));
    return date && Number.isFinite(v) ? serialDate(String(v), date1904) : num(v);
  };
  const lines: string[] = [];
  let cells: Map<number, Map<number, string>> | null = null;
  let pendingFormula: { row: number; col: number } | null = null;
  const put = (row: number, col: number, value: string) => {
    if (!cells || value === '') return;
    let line = cells.get(row);
    if (!line) cells.set(row, (line = new Map()));
    line.set(col, value);
  };
  const endSheet = () => {
    if (!cells) return;
    for (const row of [...cells.keys()].sort((a, b) => a - b)) {
      const line = cells.get(row)!;
      lines.push(
        [...line.keys()]
          .sort((a, b) => a - b)
          .map((c) => line.get(c)!)
          .join('\t'),
      );
    }
    cells = null;
  };
  for (const r of recs) {
    const d = r.data;
    if (r.type === BOF) {
      endSheet();
      const name = sheetNames.get(r.offset);
      if (name !== undefined) {
        if (name.trim()) lines.push(name);
        cells = new Map();
      }
      continue;
    }
    if (r.type === EOF) {
      endSheet();
      continue;
    }
    if (r.type === STRING) {
      // The text result of the FORMULA record before it (other records may come between).
      if (pendingFormula) put(pendingFormula.row, pendingFormula.col, cellString(d, 0, biff8, codepage));
      pendingFormula = null;
      continue;
    }
    if (!cells || d.length < 6) continue;
    const row = d.readUInt16LE(0);
    const col = d.readUInt16LE(2);
    if (CELLS.has(r.type)) pendingFormula = null;
    switch (r.type) {
      case LABELSST:
        if (d.length >= 10) put(row, col, strings[d.readUInt32LE(6)] ?? '');
        break;
      case LABEL:
        put(row, col, cellString(d, 6, biff8, codepage));
        break;
      case NUMBER:
        if (d.length >= 14) put(row, col, shown(d.readUInt16LE(4), d.readDoubleLE(6)));
        break;
      case RK:
        if (d.length >= 10) put(row, col, shown(d.readUInt16LE(4), rkValue(d.readUInt32LE(6))));
        break;
      case MULRK:
        for (let p = 4, c = col; p + 6 <= d.length - 2; p += 6, c++)
          put(row, c, shown(d.readUInt16LE(p), rkValue(d.readUInt32LE(p + 2))));
        break;
      case BOOLERR:
        if (d.length >= 8 && d[7] === 0) put(row, col, d[6] ? 'TRUE' : 'FALSE');
        break;
      case FORMULA:
        if (d.length < 14) break;
        if (d.readUInt16LE(12) !== 0xffff) put(row, col, shown(d.readUInt16LE(4), d.readDoubleLE(6)));
        else if (d[6] === 0) pendingFormula = { row, col };
        else if (d[6] === 1) put(row, col, d[8] ? 'TRUE' : 'FALSE');
        break;
    }
  }
  endSheet();
  return { text: lines.join('\n'), ...ole.properties(), mime: XLS_MIME };
}
