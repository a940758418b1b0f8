import { decodeBody } from '../index/body-codec.js';
import { spawnSync } from 'node:child_process';
import iconv from 'iconv-lite';
import { afterEach, describe, expect, it } from 'vitest';
import {
  expectFilterError,
  fixtureBytes,
  fixturePath,
  inputOf,
  seededBytes,
} from '../../../../test/fixtures/filters/support.js';
import { FilterError, type FilterInput } from './filter.js';
import {
  createFilterRunner,
  extractInProcess,
  type ExtraFilter,
  type FilterRunner,
} from './filter-runner.js';

/** Test-only filters: each claims its own extension and runs a misbehaving module in the worker. */
const HANG: ExtraFilter = {
  spec: { id: 'test-hang', mimes: [], extensions: ['hang'], maxBytes: 1024, maxMs: 400 },
  module: fixturePath('hang-filter.ts'),
};
const EXIT: ExtraFilter = {
  spec: { id: 'test-exit', mimes: [], extensions: ['exit'], maxBytes: 1024, maxMs: 10_000 },
  module: fixturePath('exit-filter.ts'),
};
const THROW: ExtraFilter = {
  spec: { id: 'test-throw', mimes: [], extensions: ['throw'], maxBytes: 1024, maxMs: 10_000 },
  module: fixturePath('throw-filter.ts'),
};

const samples = (): FilterInput[] => [
  inputOf(
    'notes.txt',
    iconv.encode('企业级搜索协议处理程序，支持全文检索和增量爬取。这是一个测试文件。', 'gbk'),
  ),
  inputOf('page.html', Buffer.from('<title>Page</title><p>Hello <a href="b.html">b</a></p>'), {
    url: 'http://site.test/a/page.html',
  }),
  inputOf('sample.pdf', fixtureBytes('sample.pdf')),
  inputOf('sample.docx', fixtureBytes('sample.docx')),
];

let runner: FilterRunner | undefined;
afterEach(async () => {
  await runner?.close();
  runner = undefined;
});

describe('filter runner', () => {
  it('gives the same output in worker threads as in process, for every filter', async () => {
    runner = createFilterRunner({ workers: 2 });
    const inputs = samples();
    const [inWorkers, inProcess] = await Promise.all([
      Promise.all(inputs.map((i) => runner!.run(i))),
      Promise.all(inputs.map((i) => extractInProcess(i))),
    ]);
    // Workers also hand back the text compressed for storage; it must decode to the same text.
    expect(inWorkers.map(({ bodyZ: _, ...rest }) => rest)).toEqual(inProcess);
    for (const o of inWorkers) expect(decodeBody(o.bodyZ)).toBe(o.text);
    expect(inWorkers.map((o) => o.mime)).toEqual([
      'text/plain',
      'text/html',
      'application/pdf',
      expect.stringContaining('wordprocessingml'),
    ]);
    expect(inWorkers[0].text).toContain('企业级搜索');
    expect(inWorkers[1].links).toEqual(['http://site.test/a/b.html']);
    expect(inWorkers[2].title).toBe('Trawl Filter Sample');
    expect(inWorkers[3].author).toBe('Ada Lovelace');
  });

  it("leaves the caller's bytes intact", async () => {
    runner = createFilterRunner({ workers: 1 });
    const bytes = new Uint8Array(fixtureBytes('sample.pdf'));
    const copy = bytes.slice();
    await runner.run(inputOf('sample.pdf', bytes));
    expect(bytes.byteLength).toBe(copy.byteLength);
    expect(Buffer.from(bytes).equals(Buffer.from(copy))).toBe(true);
  });

  it('indexes unknown types by metadata only, without a worker', async () => {
    runner = createFilterRunner({ workers: 1 });
    const out = await runner.run(inputOf('movie.mkv', seededBytes(100_000)));
    expect(out).toEqual({ text: '', mime: 'video/x-matroska', filter: 'metadata' });
  });

  it('passes filter refusals through with their code', async () => {
    runner = createFilterRunner({ workers: 1 });
    const corrupt = Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.from(seededBytes(8192))]);
    const err = await expectFilterError(runner.run(inputOf('bad.pdf', corrupt)), 'corrupt');
    expect(err.message).toMatch(/PDF/);
    await expectFilterError(runner.run(inputOf('garbage.txt', seededBytes(4096))), 'corrupt');
  });

  it('refuses inputs over the size cap before filtering them', async () => {
    runner = createFilterRunner({ workers: 1, extraFilters: [HANG] });
    // The hang filter would never answer: a prompt too-large proves it never ran.
    const err = await expectFilterError(runner.run(inputOf('big.hang', new Uint8Array(2048))), 'too-large');
    expect(err.message).toMatch(/2048 bytes exceed/);
  });

  it('kills a filter stuck in a synchronous loop at its time cap, and keeps working', async () => {
    runner = createFilterRunner({ workers: 1, extraFilters: [HANG] });
    const started = Date.now();
    const err = await expectFilterError(runner.run(inputOf('stuck.hang', Buffer.from('x'))), 'timeout');
    const elapsed = Date.now() - started;
    expect(err.message).toMatch(/test-hang filter exceeded its 400 ms time cap on stuck\.hang/);
    expect(elapsed).toBeGreaterThanOrEqual(400);
    // Well within the cap plus a replacement worker's start on a busy machine.
    expect(elapsed).toBeLessThan(400 + 15_000);
    const after = await runner.run(inputOf('after.txt', Buffer.from('still working')));
    expect(after.text).toBe('still working');
  });

  it('applies maxMs to every filter when given', async () => {
    runner = createFilterRunner({
      workers: 1,
      maxMs: 200,
      extraFilters: [{ ...HANG, spec: { ...HANG.spec, maxMs: 60_000 } }],
    });
    const err = await expectFilterError(runner.run(inputOf('stuck.hang', Buffer.from('x'))), 'timeout');
    expect(err.message).toMatch(/200 ms/);
  });

  it('keeps other workers going while one item is stuck', async () => {
    runner = createFilterRunner({
      workers: 2,
      extraFilters: [{ ...HANG, spec: { ...HANG.spec, maxMs: 20_000 } }],
    });
    const stuck = runner.run(inputOf('stuck.hang', Buffer.from('x')));
    stuck.catch(() => undefined);
    const done: string[] = [];
    for (const input of samples()) done.push((await runner.run(input)).mime);
    expect(done).toHaveLength(4);
    await runner.close();
    await expectFilterError(stuck, 'crashed');
  });

  it.each([
    ['exits', EXIT, 'exit', /exited with code 3/],
    ['throws an uncaught exception', THROW, 'throw', /boom outside the filter promise/],
  ])('reports a worker that %s as crashed and replaces it', async (_what, extra, ext, message) => {
    runner = createFilterRunner({ workers: 1, extraFilters: [extra] });
    const err = await expectFilterError(runner.run(inputOf(`item.${ext}`, Buffer.from('x'))), 'crashed');
    expect(err.message).toMatch(message);
    const outputs = await Promise.all(samples().map((i) => runner!.run(i)));
    expect(outputs.map((o) => o.text.length > 0)).toEqual([true, true, true, true]);
  });

  it('rejects queued and later items once closed; close is idempotent', async () => {
    runner = createFilterRunner({
      workers: 1,
      extraFilters: [{ ...HANG, spec: { ...HANG.spec, maxMs: 20_000 } }],
    });
    const running = runner.run(inputOf('stuck.hang', Buffer.from('x')));
    const queued = runner.run(inputOf('next.txt', Buffer.from('queued')));
    running.catch(() => undefined);
    queued.catch(() => undefined);
    await runner.close();
    await runner.close();
    await expectFilterError(running, 'crashed');
    await expectFilterError(queued, 'crashed');
    await expectFilterError(runner.run(inputOf('late.txt', Buffer.from('late'))), 'crashed');
  });

  it('sniffs content the protocol mislabels', async () => {
    runner = createFilterRunner({ workers: 1 });
    const out = await runner.run({
      ...inputOf('download', fixtureBytes('sample.pdf')),
      mime: 'application/octet-stream',
      url: 'http://site.test/download',
    });
    expect(out.mime).toBe('application/pdf');
    expect(out.title).toBe('Trawl Filter Sample');
  });
});

describe('filter runner lifetime', () => {
  it('does not keep the process alive when idle, even unclosed', () => {
    const child = spawnSync(process.execPath, ['--import', 'tsx', fixturePath('unclosed-runner.ts')], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(child.error, 'the process did not exit on its own').toBeUndefined();
    expect(child.status, child.stderr).toBe(0);
    expect(JSON.parse(child.stdout.trim())).toEqual(['plain words', 'html words']);
  });
});

describe('extractInProcess', () => {
  it('rejects only with FilterError', async () => {
    const err = await extractInProcess(inputOf('x.docx', Buffer.from('not a zip'))).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FilterError);
  });
});
