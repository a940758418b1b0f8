import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import { expectFilterError, fixtureBytes, inputOf } from '../../../../test/fixtures/filters/support.js';
import { buildZip } from '../../../../test/fixtures/filters/zip-builder.js';
import { extractInProcess } from './filter-runner.js';
import { pickFilter } from './filter-table.js';
import { readZipDirectory } from './zip-directory.js';
import { ZIP_MAX_INFLATED, zipFilter } from './zip-filter.js';

describe('zip filter', () => {
  it('lists the members and reads the text of those a filter knows', async () => {
    const zip = buildZip([
      { name: 'project/', data: Buffer.alloc(0) },
      { name: 'project/README', data: Buffer.from('Plain readme without an extension: loomword.') },
      { name: 'project/report.docx', data: fixtureBytes('sample.docx') },
      { name: 'project/budget.xlsx', data: fixtureBytes('sample.xlsx') },
      { name: 'project/photo.jpg', data: Buffer.alloc(4096, 1) },
      { name: 'project/inner.zip', data: buildZip([{ name: 'deep.txt', data: Buffer.from('deepword') }]) },
    ]);
    const out = await extractInProcess(inputOf('project.zip', zip));
    expect(out).toMatchObject({ filter: 'zip', mime: 'application/zip' });
    expect(out.text.split('\n').slice(0, 5)).toEqual([
      'project/README',
      'project/report.docx',
      'project/budget.xlsx',
      'project/photo.jpg',
      'project/inner.zip',
    ]);
    expect(out.text).toContain('loomword');
    expect(out.text).toContain('The analytical engine weaves'); // the DOCX
    expect(out.text).toContain('Jacquard cards 1234.5'); // the workbook
    expect(out.text).not.toContain('deepword'); // archives inside are listed, not opened
  });

  it('skips members that lie about their size or are damaged, and inflates nothing past its budget', async () => {
    const huge = Buffer.alloc(ZIP_MAX_INFLATED + 1024, 'a');
    const zip = buildZip([
      { name: 'bomb.txt', data: huge, declaredSize: 100 },
      { name: 'honest-but-big.txt', data: huge },
      { name: 'ok.txt', data: Buffer.from('survivorword') },
    ]);
    expect(zip.length).toBeLessThan(1024 * 1024);
    const out = await extractInProcess(inputOf('mixed.zip', zip));
    expect(out.text).toBe('bomb.txt\nhonest-but-big.txt\nok.txt\nsurvivorword');
  });

  it('decodes member names written in CP437 by old tools, and UTF-8 ones', () => {
    const cp437 = iconv.encode('Résumé.txt', 'cp437');
    const old = buildZip([{ name: '', rawName: cp437, data: Buffer.from('x') }]);
    expect(readZipDirectory(old).map((e) => e.name)).toEqual(['Résumé.txt']);
    expect(readZipDirectory(buildZip([{ name: '企业级搜索.txt', data: Buffer.from('x') }]))[0].name).toBe(
      '企业级搜索.txt',
    );
  });

  it('is chosen for .zip, leaves office packages to their filters, and refuses what is not a ZIP', async () => {
    expect(pickFilter('zip').id).toBe('zip');
    expect(pickFilter('zip', undefined, fixtureBytes('sample.docx').subarray(0, 8192)).id).toBe('docx');
    await expectFilterError(zipFilter.extract(inputOf('x.zip', Buffer.from('not a zip at all'))), 'corrupt');
  });
});
