import {
  FilterError,
  loadLibrary,
  unreadable,
  type Filter,
  type FilterInput,
  type FilterOutput,
} from './filter.js';
import { htmlFilter } from './html-filter.js';
import { messageText, person } from './mail-text.js';
import { garbageRatio } from './text-decoding.js';

/**
 * Saved mail (`.eml`, `message/rfc822`; postal-mime): the sender, recipients, date and subject
 * as lines, the body (the plain-text part, else the HTML part's text), the names of the
 * attachments, and the text of attachments a filter reads (PDF, Word, spreadsheets, text…). The
 * subject is the title and the sender the author. MIME structure, encoded words, transfer
 * encodings and charsets are decoded by the library, within its nesting and header-size limits;
 * an attachment that cannot be read costs only its own text.
 */

const EMAIL_MIME = 'message/rfc822';
/** Above this share of control or undecodable characters, a body is not text. */
const MAX_GARBAGE = 0.05;
interface Mailbox {
  name?: string;
  address?: string;
  group?: Mailbox[];
}

function mailbox(a: Mailbox | undefined): string {
  if (!a) return '';
  if (a.group) return `${a.name ?? ''}: ${a.group.map(mailbox).join(', ')}`.trim();
  return person(a.name, a.address);
}

const mailboxes = (list: Mailbox[] | undefined): string =>
  (list ?? []).map(mailbox).filter(Boolean).join(', ');

const loadParser = () => loadLibrary('mail support', async () => (await import('postal-mime')).default);

export const emailFilter: Filter = {
  id: 'email',
  async extract(input: FilterInput): Promise<FilterOutput> {
    const { bytes } = input;
    if (bytes.length === 0) throw new FilterError('corrupt', 'unreadable mail: empty file');
    const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, 4096)).toString('latin1');
    // A message starts with a header field (or an mbox "From " line); binary input holds NULs.
    if (!/^(?:[\x21-\x39\x3b-\x7e]+:|From )/.test(head) || head.includes('\0'))
      throw new FilterError('corrupt', 'unreadable mail: it does not start with header lines');
    const PostalMime = await loadParser();
    let email: Awaited<ReturnType<typeof PostalMime.parse>>;
    try {
      email = await PostalMime.parse(bytes, { attachmentEncoding: 'arraybuffer' });
    } catch (err) {
      throw unreadable('mail', err);
    }
    let body = email.text ?? '';
    const garbage = garbageRatio(body);
    if (garbage > MAX_GARBAGE)
      throw new FilterError(
        'corrupt',
        `unreadable mail: ${Math.round(garbage * 100)}% of its body is not text`,
      );
    if (!body.trim() && email.html) {
      body = htmlFilter.extractSync!({
        bytes: Buffer.from(email.html, 'utf8'),
        name: 'body.html',
        ext: 'html',
        url: input.url,
        charset: 'utf-8',
      }).text;
    }
    const attachments = email.attachments.filter((a) => !a.related);
    const text = await messageText(
      {
        from: mailbox(email.from as Mailbox | undefined),
        to: mailboxes(email.to as Mailbox[] | undefined),
        cc: mailboxes(email.cc as Mailbox[] | undefined),
        date: email.date,
        subject: email.subject,
        body,
        attachments: attachments.map((a) => ({
          name: a.filename ?? '',
          mime: a.mimeType,
          bytes: () => (a.content instanceof ArrayBuffer ? new Uint8Array(a.content) : undefined),
        })),
      },
      input.url,
    );
    const from = email.from as Mailbox | undefined;
    return {
      text,
      title: email.subject?.trim() || undefined,
      author: (from && (from.name || from.address)) || undefined,
      mime: EMAIL_MIME,
    };
  },
};
