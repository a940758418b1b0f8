/**
 * Filter throughput: the worker-thread runner (1 and 2 workers) against `extractInProcess`, per
 * format, on the committed fixtures and generated text/HTML. Also the first-item latency of a fresh
 * runner (worker start + filter module load) and the process RSS afterwards (workers included).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';
import type { FilterInput } from '../src/main/core/filters/filter.js';
import { createFilterRunner, extractInProcess } from '../src/main/core/filters/filter-runner.js';
import { outlookMessage } from '../test/fixtures/filters/msg-builder.js';
import { buildZip } from '../test/fixtures/filters/zip-builder.js';
import { rng, textOf, vocabulary } from './corpus.js';

const fixtures = fileURLToPath(new URL('../test/fixtures/filters/', import.meta.url));

/** A workbook of one sheet: 4,000 rows of five cells, words in shared strings and numbers. */
function bigWorkbook(text: string): Buffer {
  const ns = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
  const rel = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
  const words = text.split(/\s+/).filter(Boolean).slice(0, 4000);
  const rows = words
    .map(
      (_, i) =>
        `<row r="${i + 1}"><c t="s"><v>${i}</v></c><c><v>${i * 3.5}</v></c><c t="s"><v>${(i * 7) % words.length}</v></c><c><v>${i}</v></c><c t="inlineStr"><is><t>row ${i}</t></is></c></row>`,
    )
    .join('');
  const part = (name: string, xml: string) => ({ name, data: Buffer.from(xml) });
  return buildZip([
    part(
      'xl/workbook.xml',
      `<workbook xmlns="${ns}" xmlns:r="${rel}"><sheets><sheet name="Data" sheetId="1" r:id="r1"/></sheets></workbook>`,
    ),
    part(
      'xl/_rels/workbook.xml.rels',
      `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="r1" Type="${rel}/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="r2" Type="${rel}/sharedStrings" Target="sharedStrings.xml"/></Relationships>`,
    ),
    part(
      'xl/sharedStrings.xml',
      `<sst xmlns="${ns}">${words.map((w) => `<si><t>${w}</t></si>`).join('')}</sst>`,
    ),
    part('xl/worksheets/sheet1.xml', `<worksheet xmlns="${ns}"><sheetData>${rows}</sheetData></worksheet>`),
  ]);
}

function inputs(): Record<string, { input: FilterInput; count: number }> {
  const vocab = vocabulary(5000);
  const r = rng(11);
  const text = textOf(r, vocab, 4000);
  const html = `<!doctype html><html><head><title>Bench page</title><meta name="description" content="d"></head><body>${text
    .split('\n')
    .map((p, i) => `<p>${p} <a href="p${i}.html">next</a></p>`)
    .join('\n')}<script>var x = 1;</script></body></html>`;
  const file = (name: string) => fs.readFileSync(path.join(fixtures, name));
  const input = (name: string, bytes: Uint8Array): FilterInput => ({
    bytes,
    name,
    ext: name.split('.').pop()!,
    url: `file:///bench/${name}`,
  });
  return {
    'text 25KB': { input: input('a.txt', Buffer.from(text)), count: 400 },
    'html 30KB': { input: input('a.html', Buffer.from(html)), count: 300 },
    'pdf 21KB': { input: input('sample.pdf', file('sample.pdf')), count: 150 },
    'docx 5KB': { input: input('sample.docx', file('sample.docx')), count: 150 },
    'doc 10KB': { input: input('sample.doc', file('sample.doc')), count: 150 },
    'rtf 3KB': { input: input('sample.rtf', file('sample.rtf')), count: 300 },
    'xls 7KB': { input: input('sample.xls', file('sample.xls')), count: 150 },
    'ppt 451KB': { input: input('sample.ppt', file('sample.ppt')), count: 100 },
    'xlsx 6KB': { input: input('sample.xlsx', file('sample.xlsx')), count: 150 },
    'xlsx 4,000 rows': { input: input('rows.xlsx', bigWorkbook(textOf(r, vocab, 4000))), count: 30 },
    'pptx 30KB': { input: input('sample.pptx', file('sample.pptx')), count: 150 },
    'odt 8KB': { input: input('sample.odt', file('sample.odt')), count: 150 },
    'epub 3KB': { input: input('sample.epub', file('sample.epub')), count: 150 },
    'text 25KB gzipped': { input: input('a.txt.gz', zlib.gzipSync(text)), count: 300 },
    'msg with an XLSX attached': { input: input('budget.msg', outlookMessage()), count: 150 },
    'jpeg 8KB, tagged': { input: input('sample-photo.jpg', file('sample-photo.jpg')), count: 300 },
    // A camera photo's first 512 KiB, as the crawler reads it.
    'jpeg head 512KiB': {
      input: {
        ...input(
          'photo.jpg',
          Buffer.concat([file('sample-photo.jpg'), Buffer.alloc(512 * 1024, 0x5a)]).subarray(0, 512 * 1024),
        ),
        partial: true,
      },
      count: 100,
    },
    'png 2KB, tagged': { input: input('sample-photo.png', file('sample-photo.png')), count: 300 },
    'tiff 19KB, tagged': { input: input('sample-photo.tif', file('sample-photo.tif')), count: 300 },
    'mp3 12KB, ID3v2 tagged': { input: input('sample-song.mp3', file('sample-song.mp3')), count: 300 },
    // A song's first 1 MiB, as the crawler reads it.
    'mp3 head 1MiB': {
      input: {
        ...input(
          'song.mp3',
          Buffer.concat([file('sample-song.mp3'), Buffer.alloc(1024 * 1024)]).subarray(0, 1024 * 1024),
        ),
        partial: true,
      },
      count: 100,
    },
    'flac 23KB, tagged': { input: input('sample-song.flac', file('sample-song.flac')), count: 300 },
    'm4a 10KB, tagged': { input: input('sample-song.m4a', file('sample-song.m4a')), count: 300 },
    'zip of DOCX + XLSX': {
      input: input(
        'bundle.zip',
        buildZip([
          { name: 'a.docx', data: file('sample.docx') },
          { name: 'b.xlsx', data: file('sample.xlsx') },
        ]),
      ),
      count: 100,
    },
  };
}

async function timed(count: number, concurrency: number, one: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next++ < count) await one();
    }),
  );
  return count / ((performance.now() - started) / 1000);
}

export async function run(): Promise<Record<string, number | string>> {
  const cases = inputs();
  const figures: Record<string, number | string> = {};

  for (const workers of [1, 2]) {
    const runner = createFilterRunner({ workers });
    try {
      const first = performance.now();
      await runner.run(cases['pdf 21KB'].input);
      if (workers === 1) figures['runner first PDF ms (worker start + load)'] = performance.now() - first;
      for (const { input } of Object.values(cases))
        await Promise.all(Array.from({ length: workers }, () => runner.run(input)));
      for (const [name, { input, count }] of Object.entries(cases)) {
        figures[`${name} runner(${workers}) items/s`] = await timed(count, workers * 2, () =>
          runner.run(input),
        );
      }
    } finally {
      await runner.close();
    }
  }

  for (const { input } of Object.values(cases)) await extractInProcess(input);
  for (const [name, { input, count }] of Object.entries(cases)) {
    figures[`${name} in-process items/s`] = await timed(count, 1, () => extractInProcess(input));
  }
  figures['process RSS MB after'] = process.memoryUsage().rss / 1024 / 1024;
  return figures;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const figures = await run();
  for (const [k, v] of Object.entries(figures))
    console.log(`${k.padEnd(44)} ${typeof v === 'number' ? v.toFixed(1) : v}`);
}
