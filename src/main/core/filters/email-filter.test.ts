import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import { expectFilterError, fixtureBytes, inputOf } from '../../../../test/fixtures/filters/support.js';
import { emailFilter } from './email-filter.js';
import { extractInProcess } from './filter-runner.js';
import { pickFilter } from './filter-table.js';

const crlf = (s: string) => Buffer.from(s.replace(/\r?\n/g, '\r\n'), 'latin1');
const b64 = (b: Buffer) => b.toString('base64').replace(/(.{76})/g, '$1\n');

describe('email filter', () => {
  it('reads headers, a quoted-printable body in a legacy charset, and encoded words', async () => {
    const subject = `=?GB2312?B?${iconv.encode('企业级搜索 会议', 'gb2312').toString('base64')}?=`;
    const mail = crlf(`From: "Ada Lovelace" <ada@example.org>
To: Charles Babbage <charles@example.org>, team@example.org
Cc: =?UTF-8?Q?Fran=C3=A7oise?= <fr@example.org>
Date: Mon, 1 Jan 2024 10:00:00 +0000
Subject: ${subject}
MIME-Version: 1.0
Content-Type: text/plain; charset=iso-8859-1
Content-Transfer-Encoding: quoted-printable

Un caf=E9 cr=E8me, and the loom report is attached in spirit.=
 Soft line break joined.
`);
    const out = await extractInProcess(inputOf('meeting.eml', mail));
    expect(out).toMatchObject({
      filter: 'email',
      mime: 'message/rfc822',
      title: '企业级搜索 会议',
      author: 'Ada Lovelace',
    });
    expect(out.text).toBe(
      'From: Ada Lovelace <ada@example.org>\nTo: Charles Babbage <charles@example.org>, team@example.org\nCc: Françoise <fr@example.org>\nDate: 2024-01-01T10:00:00.000Z\nSubject: 企业级搜索 会议\nUn café crème, and the loom report is attached in spirit. Soft line break joined.',
    );
  });

  it('falls back to the HTML part, and reads the text of attachments a filter knows', async () => {
    const mail = crlf(`From: reports@example.org
Subject: Quarterly figures
MIME-Version: 1.0
Content-Type: multipart/mixed; boundary="outer"

--outer
Content-Type: text/html; charset=utf-8

<html><body><p>See the <b>attached</b> workbook.</p><script>tracking()</script></body></html>
--outer
Content-Type: application/vnd.openxmlformats-officedocument.spreadsheetml.sheet; name="budget.xlsx"
Content-Disposition: attachment; filename="budget.xlsx"
Content-Transfer-Encoding: base64

${b64(fixtureBytes('sample.xlsx'))}
--outer
Content-Type: application/pdf; name="broken.pdf"
Content-Disposition: attachment; filename="broken.pdf"
Content-Transfer-Encoding: base64

${b64(Buffer.from('%PDF-1.7 not really a pdf'))}
--outer
Content-Type: image/png; name="chart.png"
Content-Disposition: attachment; filename="chart.png"
Content-Transfer-Encoding: base64

iVBORw0KGgo=
--outer--
`);
    const out = await extractInProcess(inputOf('figures.eml', mail));
    expect(out.title).toBe('Quarterly figures');
    expect(out.author).toBe('reports@example.org');
    expect(out.text).toContain('See the attached workbook.');
    expect(out.text).not.toContain('tracking');
    expect(out.text).toContain('Attachments: budget.xlsx, broken.pdf, chart.png');
    expect(out.text).toContain('Jacquard cards 1234.5'); // the workbook's cells
  });

  it('is chosen for .eml and message/rfc822, and refuses what is not mail', async () => {
    expect(pickFilter('eml').id).toBe('email');
    expect(pickFilter('', 'message/rfc822').id).toBe('email');
    expect(pickFilter('mbox').id).toBe('text');
    const err = await expectFilterError(
      emailFilter.extract(inputOf('x.eml', Buffer.from('just some words\nand more words\n'))),
      'corrupt',
    );
    expect(err.message).toMatch(/mail/);
  });
});
