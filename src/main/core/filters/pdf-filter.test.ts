import { describe, expect, it } from 'vitest';
import { buildPdf } from '../../../../test/fixtures/filters/pdf-builder.js';
import {
  expectFilterError,
  fixtureBytes,
  inputOf,
  seededBytes,
} from '../../../../test/fixtures/filters/support.js';
import { extractInProcess } from './filter-runner.js';
import { pdfFilter } from './pdf-filter.js';

describe('pdf filter', () => {
  it('extracts text and document info from a real PDF (LibreOffice export)', async () => {
    const out = await extractInProcess(inputOf('sample.pdf', fixtureBytes('sample.pdf')));
    expect(out.mime).toBe('application/pdf');
    expect(out.title).toBe('Trawl Filter Sample');
    expect(out.author).toBe('Ada Lovelace');
    expect(out.keywords).toMatch(/analytical/);
    expect(out.text).toContain('Encouraging results');
    expect(out.text).toContain(
      'The analytical engine weaves algebraic patterns just as the Jacquard loom weaves flowers and leaves.',
    );
    expect(out.text).toContain('Un café crème');
  });

  it('extracts every page of a long PDF, in order', async () => {
    const pages = Array.from({ length: 70 }, (_, i) => `Page ${i + 1} says marker${i + 1}`);
    const out = await extractInProcess(
      inputOf('long.pdf', buildPdf(pages, { title: 'Long (70 pages)', author: 'Builder' })),
    );
    expect(out.title).toBe('Long (70 pages)');
    expect(out.author).toBe('Builder');
    const markers = [...out.text.matchAll(/marker(\d+)/g)].map((m) => Number(m[1]));
    expect(markers).toEqual(pages.map((_, i) => i + 1));
  });

  it('refuses a corrupt PDF: valid header, garbage body', async () => {
    const bytes = Buffer.concat([
      Buffer.from('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n', 'latin1'),
      Buffer.from(seededBytes(16 * 1024, 5)),
    ]);
    const err = await expectFilterError(pdfFilter.extract(inputOf('bad.pdf', bytes)), 'corrupt');
    expect(err.message).toMatch(/PDF/);
  });

  it('refuses a file that is not a PDF at all', async () => {
    await expectFilterError(
      pdfFilter.extract(inputOf('fake.pdf', Buffer.from('just some words, no PDF here'))),
      'corrupt',
    );
  });

  it('answers a truncated PDF with a FilterError or whatever text survives', async () => {
    const bytes = fixtureBytes('sample.pdf');
    for (const n of [16, 1024, Math.floor(bytes.length / 2)]) {
      try {
        const out = await pdfFilter.extract(inputOf('cut.pdf', bytes.subarray(0, n)));
        expect(typeof out.text).toBe('string');
      } catch (err) {
        await expectFilterError(Promise.reject(err));
      }
    }
  });
});
