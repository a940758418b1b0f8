import { describe, expect, it } from 'vitest';
import { outlookMessage } from '../../../../test/fixtures/filters/msg-builder.js';
import { expectFilterError, inputOf } from '../../../../test/fixtures/filters/support.js';
import { extractInProcess } from './filter-runner.js';
import { pickFilter, SNIFF_BYTES } from './filter-table.js';
import { msgFilter } from './msg-filter.js';

describe('msg filter', () => {
  it('reads an Outlook message: sender, recipients, subject, body and the attached workbook', async () => {
    const out = await extractInProcess(inputOf('budget.msg', outlookMessage()));
    expect(out).toMatchObject({
      filter: 'msg',
      mime: 'application/vnd.ms-outlook',
      title: 'Loom budget 企业级搜索',
      author: 'Ada Lovelace',
    });
    expect(out.text).toContain(
      'From: Ada Lovelace <ada@example.org>\nTo: Charles Babbage <charles@example.org>\nSubject: Loom budget 企业级搜索',
    );
    expect(out.text).toContain('The Jacquard cards are attached, with the workbook.');
    expect(out.text).toContain('Attachments: budget.xlsx');
    expect(out.text).toContain('Jacquard cards 1234.5'); // the workbook's cells
  });

  it('leaves .msg message catalogs (text) to the text filter, and refuses what is not a message', async () => {
    const catalog = Buffer.from('namespace eval ::msgcat {\n  ::msgcat::mcset it "Cancel" "Annulla"\n}\n');
    expect(pickFilter('msg', undefined, catalog.subarray(0, SNIFF_BYTES)).id).toBe('text');
    expect(pickFilter('msg', undefined, outlookMessage().subarray(0, SNIFF_BYTES)).id).toBe('msg');
    await expectFilterError(msgFilter.extract(inputOf('x.msg', catalog)), 'corrupt');
  });
});
