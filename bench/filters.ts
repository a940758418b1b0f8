/**
 * Filter throughput: the worker-thread runner (1 and 2 workers) against `extractInProcess`, per
 * format, on the committed fixtures and generated text/HTML. Also the first-item latency of a fresh
 * runner (worker start + filter module load) and the process RSS afterwards (workers included).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FilterInput } from '../src/main/core/filters/filter.js';
import { createFilterRunner, extractInProcess } from '../src/main/core/filters/filter-runner.js';
import { rng, textOf, vocabulary } from './corpus.js';

const fixtures = fileURLToPath(new URL('../test/fixtures/filters/', import.meta.url));

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
