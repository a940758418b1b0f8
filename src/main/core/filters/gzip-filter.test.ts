import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { expectFilterError, fixtureBytes, inputOf } from '../../../../test/fixtures/filters/support.js';
import { extractInProcess } from './filter-runner.js';
import { pickFilter } from './filter-table.js';
import { GZIP_MAX_OUTPUT, gzipFilter } from './gzip-filter.js';

/** A gzip member with the original file name in its header (as `gzip file` writes it). */
function gzipNamed(data: Buffer, name: string): Buffer {
  const plain = zlib.gzipSync(data);
  const header = Buffer.from(plain.subarray(0, 10));
  header[3] |= 0x08;
  return Buffer.concat([header, Buffer.from(`${name}\0`, 'latin1'), plain.subarray(10)]);
}

describe('gzip filter', () => {
  it('reads compressed text, HTML and man pages with the filter of what is inside', async () => {
    const log = await extractInProcess(
      inputOf('app.log.1.gz', zlib.gzipSync('2024-01-01 ERROR disk quota exceeded on volume7\n')),
    );
    expect(log).toMatchObject({
      filter: 'gzip',
      mime: 'application/gzip',
      text: '2024-01-01 ERROR disk quota exceeded on volume7',
    });
    const html = await extractInProcess(
      inputOf(
        'page.html.gz',
        zlib.gzipSync(
          '<html><head><title>Zipped page</title></head><body><p>Inner words</p><script>no()</script></body></html>',
        ),
      ),
    );
    expect(html).toMatchObject({ title: 'Zipped page', text: 'Inner words' });
    const man = await extractInProcess(
      inputOf('ls.1.gz', zlib.gzipSync('.TH LS 1\n.SH NAME\nls \\- list directory contents\n')),
    );
    expect(man.text).toContain('list directory contents');
  });

  it('uses the name stored in the gzip header, and sniffs content without a known extension', async () => {
    const docx = gzipNamed(fixtureBytes('sample.docx'), 'report.docx');
    const out = await extractInProcess(inputOf('download.gz', docx));
    expect(out.title).toBe('Trawl Filter Sample');
    expect(out.text).toContain('Jacquard');
    const sniffed = await extractInProcess(
      inputOf('changelog.gz', zlib.gzipSync('version 2.0: faster loom\n')),
    );
    expect(sniffed.text).toBe('version 2.0: faster loom');
    expect(pickFilter('txt', undefined, zlib.gzipSync('x')).id).toBe('gzip');
  });

  it('yields no text for an archive inside, and refuses damaged or oversized content', async () => {
    const tarLike = Buffer.concat([Buffer.from('file.txt'), Buffer.alloc(504), Buffer.from('content')]);
    expect((await extractInProcess(inputOf('backup.tar.gz', zlib.gzipSync(tarLike)))).text).toBe('');
    const good = zlib.gzipSync('some text that compresses '.repeat(100));
    await expectFilterError(
      gzipFilter.extract(inputOf('cut.gz', good.subarray(0, good.length - 12))),
      'corrupt',
    );
    await expectFilterError(
      gzipFilter.extract(inputOf('notgz.gz', Buffer.from('plain text, not gzip at all'))),
      'corrupt',
    );
    // A bomb: 65 MB of zeros compress to ~64 KB.
    const bomb = zlib.gzipSync(Buffer.alloc(GZIP_MAX_OUTPUT + 1024 * 1024));
    expect(bomb.length).toBeLessThan(1024 * 1024);
    const err = await expectFilterError(gzipFilter.extract(inputOf('bomb.txt.gz', bomb)), 'too-large');
    expect(err.message).toMatch(/over 64 MB/);
  });
});
