import zlib from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { outlookMessage } from '../../../../test/fixtures/filters/msg-builder.js';
import { expectReadable, fixtureBytes, inputOf, within } from '../../../../test/fixtures/filters/support.js';
import { FilterError } from './filter.js';
import { runFilter } from './filter-execution.js';
import { pickFilter } from './filter-table.js';
import { BUILTIN_FILTERS } from './builtin-filters.js';

/**
 * Damaged files: every container and binary filter, fed its valid sample with bytes overwritten,
 * ranges cut out or zeroed, answers in time with output or a FilterError whose reason reads as
 * a sentence — never a raw exception from a parser.
 */

const SAMPLES: [string, () => Uint8Array][] = [
  ...[
    'sample.docx',
    'sample.xlsx',
    'sample.pptx',
    'sample.odt',
    'sample.ods',
    'sample.epub',
    'sample.doc',
    'sample.xls',
    'sample.ppt',
    'sample.rtf',
    'sample-photo.jpg',
    'sample-photo.png',
    'sample-photo.tif',
    'sample-photo.webp',
    'sample-photo.avif',
    'sample-song.mp3',
    'sample-song.flac',
    'sample-song.ogg',
    'sample-song.m4a',
    'sample-song.wma',
  ].map((name) => [name, () => fixtureBytes(name)] as [string, () => Uint8Array]),
  ['budget.msg', outlookMessage],
  ['notes.txt.gz', () => zlib.gzipSync('The loom weaves flowers and leaves. '.repeat(50))],
  [
    'note.eml',
    () =>
      Buffer.from(
        'From: a@example.org\r\nSubject: Looms\r\nContent-Type: text/plain\r\n\r\nThe loom weaves flowers.\r\n',
      ),
  ],
];

type Damage = { kind: 'overwrite' | 'cut' | 'zero'; at: number; length: number; byte: number };

function damage(bytes: Uint8Array, d: Damage): Uint8Array {
  const at = Math.floor(d.at * bytes.length);
  const end = Math.min(bytes.length, at + d.length);
  const out = Buffer.from(bytes);
  if (d.kind === 'cut') return Buffer.concat([out.subarray(0, at), out.subarray(end)]);
  out.fill(d.kind === 'zero' ? 0 : d.byte, at, end);
  return out;
}

const damages = fc.record({
  kind: fc.constantFrom<Damage['kind']>('overwrite', 'cut', 'zero'),
  at: fc.double({ min: 0, max: 0.999, noNaN: true }),
  length: fc.integer({ min: 1, max: 600 }),
  byte: fc.integer({ min: 0, max: 255 }),
});

describe.each(SAMPLES)('damaged %s', (name, sample) => {
  it('gets output or a readable FilterError, in time', async () => {
    const valid = sample();
    const ext = name.split('.').pop()!;
    await fc.assert(
      fc.asyncProperty(damages, async (d) => {
        const bytes = damage(valid, d);
        const spec = pickFilter(ext, undefined, bytes.subarray(0, 8192));
        const filter = await BUILTIN_FILTERS[spec.id]();
        try {
          const out = await within(runFilter(filter, spec, inputOf(name, bytes)), 20_000);
          expect(typeof out.text).toBe('string');
        } catch (err) {
          expect(err, String(err)).toBeInstanceOf(FilterError);
          expectReadable((err as FilterError).message);
        }
      }),
      { numRuns: 60, seed: 20261201 },
    );
  }, 120_000);
});
