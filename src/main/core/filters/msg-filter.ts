import { attachmentText } from './email-filter.js';
import { FilterError, type Filter, type FilterInput, type FilterOutput } from './filter.js';
import { isOle } from './ole-package.js';

/**
 * Outlook messages saved as `.msg` (@kenjiuno/msgreader, which reads the MAPI properties of the
 * OLE compound file): sender, recipients, date and subject as lines, the body, the attachments'
 * names and the text of those a filter reads, as the mail filter does for `.eml`. The subject is
 * the title and the sender the author. A `.msg` that is not OLE (Tcl and other message catalogs
 * are text) is read by the text filter instead: pickFilter sniffs it.
 */

const MSG_MIME = 'application/vnd.ms-outlook';
const MAX_ATTACHMENTS = 20;

async function loadReader(): Promise<typeof import('@kenjiuno/msgreader').default> {
  try {
    const mod = await import('@kenjiuno/msgreader');
    // CommonJS with an ES default: the class is `default`, or `default.default` through interop.
    const d = mod.default as unknown as { default?: typeof mod.default };
    return d.default ?? mod.default;
  } catch (err) {
    throw new FilterError(
      'unsupported',
      `Outlook message support unavailable: ${(err as Error)?.message ?? String(err)}`,
    );
  }
}

export const msgFilter: Filter = {
  id: 'msg',
  async extract(input: FilterInput): Promise<FilterOutput> {
    if (!isOle(input.bytes))
      throw new FilterError('corrupt', 'unreadable Outlook message: not an OLE compound file');
    const MsgReader = await loadReader();
    const view = new DataView(input.bytes.buffer, input.bytes.byteOffset, input.bytes.byteLength);
    let reader: InstanceType<typeof MsgReader>;
    let data: ReturnType<InstanceType<typeof MsgReader>['getFileData']>;
    try {
      reader = new MsgReader(view);
      data = reader.getFileData();
    } catch (err) {
      const internal = err instanceof TypeError || err instanceof RangeError;
      throw new FilterError(
        'corrupt',
        `unreadable Outlook message: ${internal ? 'damaged or truncated' : (err as Error).message}`,
      );
    }
    if (data.error) throw new FilterError('corrupt', `unreadable Outlook message: ${data.error}`);
    const person = (name?: string, address?: string) =>
      name && address && name !== address ? `${name} <${address}>` : name || address || '';
    const lines: string[] = [];
    const field = (label: string, value: string | undefined) => {
      if (value && value.trim()) lines.push(`${label}: ${value.trim()}`);
    };
    const sender = person(data.senderName, data.senderSmtpAddress ?? data.senderEmail);
    field('From', sender);
    const recipients = data.recipients ?? [];
    const to = (type: string) =>
      recipients
        .filter((r) => (r.recipType ?? 'to') === type)
        .map((r) => person(r.name, r.smtpAddress ?? r.email))
        .filter(Boolean)
        .join(', ');
    field('To', to('to'));
    field('Cc', to('cc'));
    field('Date', data.clientSubmitTime ?? data.messageDeliveryTime);
    field('Subject', data.subject);
    const parts = [lines.join('\n'), data.body ?? ''];
    const attachments = (data.attachments ?? []).filter((a) => !a.innerMsgContent);
    const names = attachments.map((a) => a.fileName ?? a.name).filter((n): n is string => !!n);
    if (names.length > 0) parts.push(`Attachments: ${names.join(', ')}`);
    for (const a of attachments.slice(0, MAX_ATTACHMENTS)) {
      try {
        const file = reader.getAttachment(a);
        const text = await attachmentText(file.fileName ?? '', '', file.content, input.url);
        if (text.trim()) parts.push(text);
      } catch {
        // an unreadable attachment costs only its own text
      }
    }
    return {
      text: parts.filter((p) => p.trim()).join('\n\n'),
      title: data.subject?.trim() || undefined,
      author: data.senderName || data.senderSmtpAddress || data.senderEmail || undefined,
      mime: MSG_MIME,
    };
  },
};
