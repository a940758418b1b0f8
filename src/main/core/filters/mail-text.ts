import { METADATA_FILTER_ID } from './filter-table.js';
import { memberText } from './member-text.js';

/**
 * A message as text, the same for every mail format (`.eml`, Outlook `.msg`): the sender,
 * recipients, date and subject as lines, the body, the attachments' names, and the text of the
 * attachments a filter reads (at most {@link MAX_ATTACHMENTS}; one that cannot be read costs
 * only its own text).
 */

/** Attachments whose text is read, at most. */
export const MAX_ATTACHMENTS = 20;
/** Filters an attachment is not read with (mail inside mail is inlined by the parsers). */
const NOT_FOR_ATTACHMENTS = new Set([METADATA_FILTER_ID, 'email', 'msg']);

/** A message, decoded by a mail filter's library. */
export interface Message {
  from?: string;
  to?: string;
  cc?: string;
  date?: string;
  subject?: string;
  body: string;
  attachments: { name: string; mime: string; bytes: () => Uint8Array | undefined }[];
}

/** `Name <address>`, or whichever of the two there is. */
export function person(name?: string, address?: string): string {
  if (name && address && name !== address) return `${name} <${address}>`;
  return name || address || '';
}

/** The text a mail filter indexes for `m` (found at `url`). */
export async function messageText(m: Message, url: string): Promise<string> {
  const lines: string[] = [];
  for (const [label, value] of [
    ['From', m.from],
    ['To', m.to],
    ['Cc', m.cc],
    ['Date', m.date],
    ['Subject', m.subject],
  ] as const) {
    if (value && value.trim()) lines.push(`${label}: ${value.trim()}`);
  }
  const parts = [lines.join('\n'), m.body];
  const names = m.attachments.map((a) => a.name).filter(Boolean);
  if (names.length > 0) parts.push(`Attachments: ${names.join(', ')}`);
  for (const a of m.attachments.slice(0, MAX_ATTACHMENTS)) {
    let bytes: Uint8Array | undefined;
    try {
      bytes = a.bytes();
    } catch {
      continue; // an attachment the library cannot give back
    }
    if (!bytes) continue;
    const text = await memberText(a.name, a.mime, bytes, url, NOT_FOR_ATTACHMENTS);
    if (text?.trim()) parts.push(text);
  }
  return parts.filter((p) => p.trim()).join('\n\n');
}
