import { BUILTIN_FILTERS } from './builtin-filters.js';
import { FilterError, type Filter, type FilterInput, type FilterOutput } from './filter.js';
import { METADATA_FILTER_ID, pickFilter, SNIFF_BYTES } from './filter-table.js';
import { htmlFilter } from './html-filter.js';
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
/** Attachments whose text is read, at most. */
const MAX_ATTACHMENTS = 20;
/** Filters an attachment is not read with (a mail inside a mail is inlined by the parser). */
const NOT_FOR_ATTACHMENTS = new Set([METADATA_FILTER_ID, 'email', 'msg']);

interface Mailbox {
  name?: string;
  address?: string;
  group?: Mailbox[];
}

function mailbox(a: Mailbox | undefined): string {
  if (!a) return '';
  if (a.group) return `${a.name ?? ''}: ${a.group.map(mailbox).join(', ')}`.trim();
  if (a.name && a.address) return `${a.name} <${a.address}>`;
  return a.name || a.address || '';
}

const mailboxes = (list: Mailbox[] | undefined): string =>
  (list ?? []).map(mailbox).filter(Boolean).join(', ');

async function loadParser(): Promise<typeof import('postal-mime').default> {
  try {
    return (await import('postal-mime')).default;
  } catch (err) {
    throw new FilterError(
      'unsupported',
      `mail support unavailable: ${(err as Error)?.message ?? String(err)}`,
    );
  }
}

/** The text of one attachment, or '' when no filter reads it or it cannot be read. */
export async function attachmentText(
  name: string,
  mime: string,
  bytes: Uint8Array,
  url: string,
): Promise<string> {
  const dot = name.lastIndexOf('.');
  const ext = dot > 0 ? name.slice(dot + 1).toLowerCase() : '';
  const spec = pickFilter(ext, mime, bytes.subarray(0, SNIFF_BYTES));
  if (NOT_FOR_ATTACHMENTS.has(spec.id) || bytes.length > spec.maxBytes) return '';
  const load = BUILTIN_FILTERS[spec.id];
  if (!load) return '';
  try {
    return (await (await load()).extract({ bytes, name, ext, url })).text;
  } catch {
    return '';
  }
}

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
      throw new FilterError('corrupt', `unreadable mail: ${(err as Error)?.message ?? String(err)}`);
    }
    const lines: string[] = [];
    const field = (label: string, value: string | undefined) => {
      if (value && value.trim()) lines.push(`${label}: ${value.trim()}`);
    };
    field('From', mailbox(email.from as Mailbox | undefined));
    field('To', mailboxes(email.to as Mailbox[] | undefined));
    field('Cc', mailboxes(email.cc as Mailbox[] | undefined));
    field('Date', email.date);
    field('Subject', email.subject);
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
    const parts = [lines.join('\n'), body];
    const attachments = email.attachments.filter((a) => !a.related);
    const names = attachments.map((a) => a.filename).filter((n): n is string => !!n);
    if (names.length > 0) parts.push(`Attachments: ${names.join(', ')}`);
    for (const a of attachments.slice(0, MAX_ATTACHMENTS)) {
      if (!(a.content instanceof ArrayBuffer)) continue;
      const text = await attachmentText(a.filename ?? '', a.mimeType, new Uint8Array(a.content), input.url);
      if (text.trim()) parts.push(text);
    }
    const from = email.from as Mailbox | undefined;
    return {
      text: parts.filter((p) => p.trim()).join('\n\n'),
      title: email.subject?.trim() || undefined,
      author: (from && (from.name || from.address)) || undefined,
      mime: EMAIL_MIME,
    };
  },
};
