import { describe, expect, it } from 'vitest';
import { seededBytes } from '../../../../test/fixtures/filters/support.js';
import {
  FILTER_TABLE,
  looksLikeText,
  mimeForExtension,
  pickFilter,
  type FilterSpec,
} from './filter-table.js';
import { BUILTIN_FILTERS } from './builtin-filters.js';

const ascii = (s: string) => new Uint8Array(Buffer.from(s, 'latin1'));
const DOCX_MIME = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

describe('FILTER_TABLE', () => {
  it('gives every entry positive caps and claims each extension and MIME type once', () => {
    const exts = new Map<string, string>();
    const mimes = new Map<string, string>();
    for (const spec of FILTER_TABLE) {
      expect(spec.maxBytes).toBeGreaterThan(0);
      expect(spec.maxMs).toBeGreaterThan(0);
      for (const e of spec.extensions) {
        expect(e, `extension ${e} must be lowercase without a dot`).toMatch(/^[a-z0-9+_-]+$/);
        expect(exts.get(e), `.${e} in ${spec.id} and ${exts.get(e)}`).toBeUndefined();
        exts.set(e, spec.id);
      }
      for (const m of spec.mimes) {
        expect(mimes.get(m), `${m} in ${spec.id} and ${mimes.get(m)}`).toBeUndefined();
        mimes.set(m, spec.id);
      }
    }
    expect(FILTER_TABLE.map((s) => s.id)).toEqual(
      expect.arrayContaining([
        'text',
        'html',
        'pdf',
        'doc',
        'docx',
        'email',
        'xlsx',
        'pptx',
        'odf',
        'metadata',
      ]),
    );
  });

  it('has a built-in implementation, with the same id, for every filter it names', async () => {
    for (const spec of FILTER_TABLE) {
      const filter = await BUILTIN_FILTERS[spec.id]?.();
      expect(filter?.id, spec.id).toBe(spec.id);
    }
  });

  it('covers source code, configuration and data formats as text', () => {
    for (const ext of [
      'txt',
      'md',
      'csv',
      'json',
      'xml',
      'yaml',
      'toml',
      'ini',
      'ts',
      'py',
      'java',
      'c',
      'go',
      'rs',
      'sh',
      'sql',
      'log',
    ]) {
      expect(pickFilter(ext).id, ext).toBe('text');
    }
  });
});

describe('pickFilter', () => {
  it('chooses by extension, case-insensitively', () => {
    expect(pickFilter('html').id).toBe('html');
    expect(pickFilter('HTM').id).toBe('html');
    expect(pickFilter('xhtml').id).toBe('html');
    expect(pickFilter('pdf').id).toBe('pdf');
    expect(pickFilter('docx').id).toBe('docx');
    expect(pickFilter('PNG').id).toBe('image');
    expect(pickFilter('MKV').id).toBe('metadata');
    expect(pickFilter('').id).toBe('metadata');
  });

  it('lets a known MIME type win over the extension, parameters ignored', () => {
    expect(pickFilter('txt', 'text/html; charset=utf-8').id).toBe('html');
    expect(pickFilter('php', 'application/pdf').id).toBe('pdf');
    expect(pickFilter('bin', DOCX_MIME).id).toBe('docx');
    expect(pickFilter('', 'Application/XHTML+XML').id).toBe('html');
  });

  it('reads unknown text/*, +xml and +json types as text', () => {
    expect(pickFilter('', 'text/x-unheard-of').id).toBe('text');
    expect(pickFilter('', 'application/vnd.example+json').id).toBe('text');
    expect(pickFilter('', 'application/vnd.example+xml').id).toBe('text');
  });

  it('ignores generic MIME types and falls back to the extension', () => {
    expect(pickFilter('pdf', 'application/octet-stream').id).toBe('pdf');
    expect(pickFilter('md', 'binary/octet-stream').id).toBe('text');
  });

  it('trusts binary signatures over a wrong label', () => {
    expect(pickFilter('html', 'text/html', ascii('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n')).id).toBe('pdf');
    expect(pickFilter('', 'text/plain', ascii('PK\x03\x04\x14\x00\x00\x00word/document.xml')).id).toBe(
      'docx',
    );
    // A ZIP that is not a Word document is not sniffed as one: a workbook is a workbook.
    expect(pickFilter('', undefined, ascii('PK\x03\x04\x14\x00\x00\x00xl/workbook.xml\x00\x00')).id).toBe(
      'xlsx',
    );
    expect(pickFilter('docx', undefined, ascii('PK\x03\x04\x14\x00\x00\x00ppt/slides/slide1.xml')).id).toBe(
      'pptx',
    );
    // Any other ZIP keeps the label's filter, or none.
    expect(pickFilter('', undefined, ascii('PK\x03\x04\x14\x00\x00\x00notes/readme.txt\x00\x00')).id).toBe(
      'metadata',
    );
  });

  it('sniffs HTML and text when neither type nor extension is known', () => {
    expect(pickFilter('', undefined, ascii('  <!DOCTYPE html><html><body>x</body></html>')).id).toBe('html');
    expect(pickFilter('', undefined, ascii('\xef\xbb\xbf<html lang="en"><head>')).id).toBe('html');
    expect(pickFilter('', 'application/octet-stream', ascii('<!-- generated --><html>')).id).toBe('html');
    expect(pickFilter('', undefined, ascii('Trawl README\n\nBuild with make.\n')).id).toBe('text');
    expect(pickFilter('', undefined, new Uint8Array(Buffer.from('\ufeffnotes', 'utf16le'))).id).toBe('text');
    expect(pickFilter('dat', undefined, seededBytes(4096)).id).toBe('metadata');
  });

  it('keeps a known extension when the head is not a signature', () => {
    expect(pickFilter('py', undefined, ascii('<html> in a string')).id).toBe('text');
    expect(
      pickFilter('md', undefined, ascii('# PDF notes\nA PDF starts with %PDF-1.7 and ends with %%EOF.\n')).id,
    ).toBe('text');
  });

  it('consults a custom table first', () => {
    const custom: FilterSpec = {
      id: 'custom',
      mimes: ['x/custom'],
      extensions: ['txt'],
      maxBytes: 10,
      maxMs: 10,
    };
    const table = [custom, ...FILTER_TABLE];
    expect(pickFilter('txt', undefined, undefined, table).id).toBe('custom');
    expect(pickFilter('', 'x/custom', undefined, table).id).toBe('custom');
    expect(pickFilter('pdf', undefined, undefined, table).id).toBe('pdf');
  });
});

describe('looksLikeText', () => {
  it('accepts text in any ASCII-compatible encoding and refuses NULs and control noise', () => {
    expect(looksLikeText(ascii('plain words\r\n\tindented'))).toBe(true);
    expect(looksLikeText(ascii('caf\xe9 cr\xe8me'))).toBe(true);
    expect(looksLikeText(ascii('text\x00with a NUL'))).toBe(false);
    expect(looksLikeText(ascii('\x01\x02\x03\x04 mostly control \x05\x06\x07\x08\x0e\x0f'))).toBe(false);
    expect(looksLikeText(new Uint8Array(0))).toBe(false);
  });
});

describe('mimeForExtension', () => {
  it('knows common types and falls back', () => {
    expect(mimeForExtension('PNG')).toBe('image/png');
    expect(mimeForExtension('docx')).toBe(DOCX_MIME);
    expect(mimeForExtension('nope')).toBe('application/octet-stream');
    expect(mimeForExtension('nope', 'text/plain')).toBe('text/plain');
  });
});
