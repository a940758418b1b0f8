import CFB from 'cfb';
import { describe, expect, it } from 'vitest';
import { expectFilterError, fixtureBytes, inputOf } from '../../../../test/fixtures/filters/support.js';
import { docFilter } from './doc-filter.js';
import { extractInProcess } from './filter-runner.js';
import { pickFilter } from './filter-table.js';
import { pptFilter } from './ppt-filter.js';
import { xlsFilter } from './xls-filter.js';

/** Office 97–2003: LibreOffice's XLS, PPT and DOC, and compound files built stream by stream. */

function compound(streams: Record<string, Buffer>): Buffer {
  const cfb = CFB.utils.cfb_new();
  for (const [name, data] of Object.entries(streams)) CFB.utils.cfb_add(cfb, `/${name}`, data);
  return Buffer.from(CFB.write(cfb, { type: 'buffer' }) as Uint8Array);
}

/** One BIFF record. */
const rec = (type: number, data: Buffer) => {
  const h = Buffer.alloc(4);
  h.writeUInt16LE(type, 0);
  h.writeUInt16LE(data.length, 2);
  return Buffer.concat([h, data]);
};
const u16 = (...v: number[]) => Buffer.from(new Uint16Array(v).buffer);
const u32 = (...v: number[]) => Buffer.from(new Uint32Array(v).buffer);
const f64 = (v: number) => {
  const b = Buffer.alloc(8);
  b.writeDoubleLE(v);
  return b;
};
const bof = (dt: number) => rec(0x0809, Buffer.concat([u16(0x0600, dt), Buffer.alloc(12)]));
const cell = (row: number, col: number, rest: Buffer) => Buffer.concat([u16(row, col, 15), rest]);

/** A BIFF8 workbook stream: one sheet, a shared string split across SST and CONTINUE. */
function workbook(opts: { encrypted?: boolean } = {}): Buffer {
  const long = 'Jacquard cards weave patterns';
  const sstHead = Buffer.concat([
    u32(3, 3),
    u16(5),
    Buffer.from([0]),
    Buffer.from('Cost '),
    u16(long.length),
    Buffer.from([1]),
  ]);
  // The long string's UTF-16 characters are cut after 10; CONTINUE restates the flag (8-bit now).
  const wide = Buffer.from(long.slice(0, 10), 'utf16le');
  const cont = Buffer.concat([
    Buffer.from([0]),
    Buffer.from(long.slice(10), 'latin1'),
    u16(2),
    Buffer.from([1]),
    Buffer.from('企业', 'utf16le'),
  ]);
  const globals = [
    bof(0x0005),
    ...(opts.encrypted ? [rec(0x002f, Buffer.alloc(6))] : []),
    rec(0x0042, u16(1252)),
  ];
  const sheetName = Buffer.concat([Buffer.from([6, 0]), Buffer.from('Ledger')]);
  const boundSheetLength = 4 + 6 + sheetName.length;
  const sst = [rec(0x00fc, Buffer.concat([sstHead, wide])), rec(0x003c, cont)];
  const before = Buffer.concat([...globals, ...sst]);
  const sheetOffset = before.length + boundSheetLength + 4; // + the globals' EOF
  const boundSheet = rec(0x0085, Buffer.concat([u32(sheetOffset), u16(0), sheetName]));
  const rk = (v: number) => u32(((v << 2) | 0x02) >>> 0);
  const sheet = [
    bof(0x0010),
    rec(0x00fd, cell(0, 0, u32(0))),
    rec(0x00fd, cell(0, 1, u32(1))),
    rec(0x0203, cell(1, 1, f64(1234.5))),
    rec(0x027e, cell(1, 0, rk(42))),
    rec(0x00bd, Buffer.concat([u16(2, 0), u16(15), rk(7), u16(15), rk(8), u16(1)])),
    rec(0x0205, cell(3, 0, Buffer.from([1, 0]))),
    rec(0x0006, cell(3, 1, Buffer.concat([Buffer.from([0, 0, 0, 0, 0, 0]), u16(0xffff), Buffer.alloc(6)]))),
    rec(0x04bc, Buffer.alloc(8)), // SHRFMLA between a formula and its string result
    rec(0x0207, Buffer.concat([u16(14), Buffer.from([0]), Buffer.from('formula result')])),
    rec(0x00fd, cell(4, 0, u32(2))),
    rec(0x000a, Buffer.alloc(0)),
  ];
  return Buffer.concat([before, boundSheet, rec(0x000a, Buffer.alloc(0)), ...sheet]);
}

/** A PowerPoint Document stream: records (ver/instance, type, length) around text atoms. */
function pptRecord(verInstance: number, type: number, body: Buffer): Buffer {
  return Buffer.concat([u16(verInstance, type), u32(body.length), body]);
}

describe('Office 97–2003 filters', () => {
  it.each([
    [
      'sample.xls',
      'xls',
      'Expenses\nItem Cost\nJacquard cards 1234.5\nCafé crème 3\nNotes\n企业级搜索 weaves flowers',
      'Quarterly Loom Budget',
    ],
    [
      'sample.ppt',
      'ppt',
      'Encouraging results\nThe analytical engine weaves algebraic patterns.\nUn café crème at the quayside.\nSecond slide: 企业级搜索\nSpeaker note about Jacquard cards.',
      'Loom Review',
    ],
    [
      'sample.doc',
      'doc',
      'Encouraging results\nThe analytical engine weaves algebraic patterns just as the Jacquard loom weaves flowers and leaves.\nUn café crème costs three coins at the quayside.',
      'Trawl Filter Sample',
    ],
  ])("reads LibreOffice's %s with its summary properties", async (name, filter, text, title) => {
    const out = await extractInProcess(inputOf(name, fixtureBytes(name)));
    expect(out).toMatchObject({ filter, text, title, author: 'Ada Lovelace' });
    expect(pickFilter(name.split('.')[1]).id).toBe(filter);
  });

  it('reads BIFF8 cells: shared strings across CONTINUE, numbers, RK, MULRK, booleans, formula strings', async () => {
    const out = await extractInProcess(inputOf('book.xls', compound({ Workbook: workbook() })));
    expect(out.text).toBe(
      'Ledger\nCost Jacquard cards weave patterns\n42 1234.5\n7 8\nTRUE formula result\n企业',
    );
  });

  it('shows numbers in date formats (built-in, custom) as ISO dates, in either date system', async () => {
    const book = (date1904: boolean) => {
      const xf = (ifmt: number) => rec(0x00e0, Buffer.concat([u16(0, ifmt), Buffer.alloc(16)]));
      const fmt = Buffer.concat([u16(164), u16(16), Buffer.from([0]), Buffer.from('yyyy-mm-dd hh:mm')]);
      const globals = Buffer.concat([
        bof(0x0005),
        rec(0x0022, u16(date1904 ? 1 : 0)),
        rec(0x041e, fmt),
        xf(0),
        xf(14),
        xf(164),
      ]);
      const name = Buffer.concat([Buffer.from([1, 0]), Buffer.from('D')]);
      const offset = globals.length + 4 + 6 + name.length + 4;
      const number = (col: number, ixfe: number, v: number) =>
        rec(0x0203, Buffer.concat([u16(0, col, ixfe), f64(v)]));
      return Buffer.concat([
        globals,
        rec(0x0085, Buffer.concat([u32(offset), u16(0), name])),
        rec(0x000a, Buffer.alloc(0)),
        bof(0x0010),
        number(0, 1, 45366),
        number(1, 2, 45366.5),
        number(2, 0, 45366),
        rec(0x000a, Buffer.alloc(0)),
      ]);
    };
    const out = await extractInProcess(inputOf('dates.xls', compound({ Workbook: book(false) })));
    expect(out.text).toBe('D\n2024-03-15 2024-03-15 12:00 45366');
    const mac = await extractInProcess(inputOf('mac.xls', compound({ Workbook: book(true) })));
    expect(mac.text).toBe('D\n2028-03-16 2028-03-16 12:00 45366');
  });

  it('refuses a workbook with a password, a compound file without a workbook, and what is not OLE', async () => {
    const locked = compound({ Workbook: workbook({ encrypted: true }) });
    expect(
      (await expectFilterError(xlsFilter.extract(inputOf('locked.xls', locked)), 'unsupported')).message,
    ).toMatch(/encrypted/);
    const other = compound({ Something: Buffer.from('x') });
    expect(
      (await expectFilterError(xlsFilter.extract(inputOf('other.xls', other)), 'corrupt')).message,
    ).toMatch(/Workbook/);
    const agile = compound({ EncryptionInfo: Buffer.alloc(8), EncryptedPackage: Buffer.alloc(8) });
    await expectFilterError(docFilter.extract(inputOf('locked.doc', agile)), 'unsupported');
    await expectFilterError(pptFilter.extract(inputOf('x.ppt', Buffer.alloc(2048, 'text'))), 'corrupt');
  });

  it('walks PowerPoint records: nested containers, 8- and 16-bit text, masters left out, a damaged length ends the walk', async () => {
    const slide = pptRecord(
      0x000f,
      0x0ff0,
      Buffer.concat([
        pptRecord(0x0000, 0x0fa8, Buffer.from('Quarterly review\rSecond paragraph', 'latin1')),
        pptRecord(0x0000, 0x0fa0, Buffer.from('企业级搜索', 'utf16le')),
      ]),
    );
    const masters = pptRecord(
      0x001f,
      0x0ff0,
      pptRecord(0x0000, 0x0fa8, Buffer.from('Master placeholder', 'latin1')),
    );
    const damaged = Buffer.concat([u16(0, 0x0fa8), u32(1_000_000), Buffer.from('never read')]);
    const doc = pptRecord(0x000f, 0x03e8, Buffer.concat([masters, slide]));
    const out = await extractInProcess(
      inputOf('deck.ppt', compound({ 'PowerPoint Document': Buffer.concat([doc, damaged]) })),
    );
    expect(out.text).toBe('Quarterly review\nSecond paragraph\n企业级搜索');
  });
});
