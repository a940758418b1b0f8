import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import {
  expectFilterError,
  expectReadable,
  fixtureBytes,
  inputOf,
  seededBytes,
  within,
} from '../../../../test/fixtures/filters/support.js';
import { buildZip } from '../../../../test/fixtures/filters/zip-builder.js';
import { docFilter } from './doc-filter.js';
import { docxFilter } from './docx-filter.js';
import { emailFilter } from './email-filter.js';
import { epubFilter } from './epub-filter.js';
import { gzipFilter } from './gzip-filter.js';
import { rtfFilter } from './rtf-filter.js';
import { FilterError, type Filter, type FilterInput, type FilterOutput } from './filter.js';
import { htmlFilter } from './html-filter.js';
import { metadataFilter } from './metadata-filter.js';
import { odfFilter } from './odf-filter.js';
import { pptFilter } from './ppt-filter.js';
import { xlsFilter } from './xls-filter.js';
import { zipFilter } from './zip-filter.js';
import { msgFilter } from './msg-filter.js';
import { outlookMessage } from '../../../../test/fixtures/filters/msg-builder.js';
import { pptxFilter } from './pptx-filter.js';
import { xlsxFilter } from './xlsx-filter.js';
import { pdfFilter } from './pdf-filter.js';
import { textFilter } from './text-filter.js';

/**
 * The one conformance suite every filter passes: a valid sample, empty input, random binary
 * garbage, garbage behind the right signature, truncated input; every call answers in time, and
 * every refusal is a FilterError with a readable reason, never a raw exception.
 */

interface ConformanceCase {
  filter: Filter;
  /** File name of the valid sample (the extension matters). */
  name: string;
  sample: () => Uint8Array;
  /** A word the sample's text must contain ('' for metadata-only). */
  word: string;
  /** Whether empty and garbage input must be refused (binary formats, text with its binary check). */
  refusesGarbage: boolean;
  refusesEmpty: boolean;
  /** Bytes a format's readers recognise, followed by garbage in the test. */
  signature?: string;
}

const HTML = `<!doctype html><html><head><title>Conformance</title></head><body><p>The loom weaves flowers.</p></body></html>`;
const TEXT = 'The loom weaves flowers and leaves.\nSecond line, café.\n';

const CASES: ConformanceCase[] = [
  {
    filter: textFilter,
    name: 'sample.txt',
    sample: () => Buffer.from(TEXT),
    word: 'flowers',
    refusesGarbage: true,
    refusesEmpty: false,
  },
  {
    filter: htmlFilter,
    name: 'sample.html',
    sample: () => Buffer.from(HTML),
    word: 'flowers',
    refusesGarbage: true,
    refusesEmpty: false,
    signature: '<html><body>',
  },
  {
    filter: pdfFilter,
    name: 'sample.pdf',
    sample: () => fixtureBytes('sample.pdf'),
    word: 'Jacquard',
    refusesGarbage: true,
    refusesEmpty: true,
    signature: '%PDF-1.7\n',
  },
  {
    filter: docxFilter,
    name: 'sample.docx',
    sample: () => fixtureBytes('sample.docx'),
    word: 'Jacquard',
    refusesGarbage: true,
    refusesEmpty: true,
    signature: 'PK\x03\x04',
  },
  {
    filter: emailFilter,
    name: 'note.eml',
    sample: () =>
      Buffer.from(`From: ada@example.org\r\nSubject: Looms\r\nContent-Type: text/plain\r\n\r\n${TEXT}`),
    word: 'flowers',
    refusesGarbage: true,
    refusesEmpty: true,
    signature: 'From: a@b\r\nSubject: x\r\n\r\n',
  },
  {
    filter: gzipFilter,
    name: 'notes.txt.gz',
    sample: () => zlib.gzipSync(TEXT),
    word: 'flowers',
    refusesGarbage: true,
    refusesEmpty: true,
    signature: '\x1f\x8b\x08\x00',
  },
  {
    filter: rtfFilter,
    name: 'sample.rtf',
    sample: () => fixtureBytes('sample.rtf'),
    word: 'Jacquard',
    refusesGarbage: true,
    refusesEmpty: true,
    signature: '{\\rtf1\\ansi ',
  },
  {
    filter: docFilter,
    name: 'sample.doc',
    sample: () => fixtureBytes('sample.doc'),
    word: 'Jacquard',
    refusesGarbage: true,
    refusesEmpty: true,
    signature: '\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1',
  },
  ...(
    [
      [xlsxFilter, 'sample.xlsx', 'Jacquard'],
      [pptxFilter, 'sample.pptx', 'Jacquard'],
      [odfFilter, 'sample.odt', 'Jacquard'],
      [odfFilter, 'sample.ods', 'Jacquard'],
      [odfFilter, 'sample.odp', 'Jacquard'],
      [epubFilter, 'sample.epub', 'Jacquard'],
    ] as const
  ).map(([filter, name, word]) => ({
    filter,
    name,
    sample: () => fixtureBytes(name),
    word,
    refusesGarbage: true,
    refusesEmpty: true,
    signature: 'PK\x03\x04',
  })),
  ...(
    [
      [xlsFilter, 'sample.xls'],
      [pptFilter, 'sample.ppt'],
    ] as const
  ).map(([filter, name]) => ({
    filter,
    name,
    sample: () => fixtureBytes(name),
    word: 'Jacquard',
    refusesGarbage: true,
    refusesEmpty: true,
    signature: '\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1',
  })),
  {
    filter: msgFilter,
    name: 'budget.msg',
    sample: outlookMessage,
    word: 'Jacquard',
    refusesGarbage: true,
    refusesEmpty: true,
    signature: '\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1',
  },
  {
    filter: zipFilter,
    name: 'bundle.zip',
    sample: () =>
      buildZip([
        { name: 'notes.txt', data: Buffer.from(TEXT) },
        { name: 'report.docx', data: fixtureBytes('sample.docx') },
      ]),
    word: 'Jacquard',
    refusesGarbage: true,
    refusesEmpty: true,
    signature: 'PK\x03\x04',
  },
  {
    filter: metadataFilter,
    name: 'movie.mkv',
    sample: () => seededBytes(2048, 7),
    word: '',
    refusesGarbage: false,
    refusesEmpty: false,
  },
];

/** Answer limit per call: generous for a shared 2-core machine; a hang still fails. */
const ANSWER_MS = 20_000;

/** Runs the filter; returns its output, or the FilterError it refused with. Anything else fails. */
async function attempt(filter: Filter, input: FilterInput): Promise<FilterOutput | FilterError> {
  try {
    const out = await within(filter.extract(input), ANSWER_MS);
    expect(typeof out.text).toBe('string');
    expect(typeof out.mime).toBe('string');
    expect(out.mime.length).toBeGreaterThan(0);
    return out;
  } catch (err) {
    expect(err, `raw exception: ${String(err)}`).toBeInstanceOf(FilterError);
    expectReadable((err as FilterError).message);
    return err as FilterError;
  }
}

function withSignature(signature: string, garbage: Uint8Array): Uint8Array {
  return Buffer.concat([Buffer.from(signature, 'latin1'), garbage]);
}

describe.each(CASES)('filter conformance: $filter.id ($name)', (c) => {
  it('has the id of its table entry', () => {
    expect(c.filter.id).toMatch(/^[a-z]+$/);
  });

  it('extracts text and a MIME type from a valid sample', async () => {
    const out = await attempt(c.filter, inputOf(c.name, c.sample()));
    expect(out).not.toBeInstanceOf(FilterError);
    const output = out as FilterOutput;
    if (c.word) expect(output.text).toContain(c.word);
    else expect(output.text).toBe('');
    expect(output.mime).toMatch(/^[a-z]+\/[\w.+-]+$/);
  });

  it('answers empty input with empty text or a FilterError', async () => {
    const out = await attempt(c.filter, inputOf(c.name, new Uint8Array(0)));
    if (c.refusesEmpty) expect(out).toBeInstanceOf(FilterError);
    else expect((out as FilterOutput).text).toBe('');
  });

  it('refuses random binary garbage with FilterError("corrupt")', async () => {
    const garbage = seededBytes(64 * 1024, 1234);
    if (c.refusesGarbage)
      await expectFilterError(within(c.filter.extract(inputOf(c.name, garbage)), ANSWER_MS), 'corrupt');
    else expect(((await attempt(c.filter, inputOf(c.name, garbage))) as FilterOutput).text).toBe('');
  });

  it('survives truncated input (output or FilterError, in time)', async () => {
    const sample = c.sample();
    for (const fraction of [0.5, 0.9]) {
      await attempt(c.filter, inputOf(c.name, sample.subarray(0, Math.floor(sample.length * fraction))));
    }
  });

  it("leaves the caller's bytes intact", async () => {
    const sample = new Uint8Array(c.sample());
    const copy = sample.slice();
    await attempt(c.filter, inputOf(c.name, sample));
    expect(sample.byteLength).toBe(copy.byteLength);
    expect(Buffer.from(sample).equals(Buffer.from(copy))).toBe(true);
  });
});

describe.each(CASES.filter((c) => c.signature !== undefined))(
  'filter conformance: $filter.id ($name) behind its signature',
  (c) => {
    it('refuses garbage that starts like a valid file', async () => {
      const bytes = withSignature(c.signature ?? '', seededBytes(32 * 1024, 99));
      await expectFilterError(within(c.filter.extract(inputOf(c.name, bytes)), ANSWER_MS));
    });
  },
);
