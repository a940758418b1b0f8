import {
  FilterError,
  loadLibrary,
  unreadable,
  type Filter,
  type FilterInput,
  type FilterOutput,
} from './filter.js';
import { messageText, person } from './mail-text.js';
import { isOle } from './ole-package.js';

/**
 * Outlook messages saved as `.msg` (@kenjiuno/msgreader, which reads the MAPI properties of the
 * OLE compound file): sender, recipients, date and subject as lines, the body, the attachments'
 * names and the text of those a filter reads, as the mail filter does for `.eml`. The subject is
 * the title and the sender the author. A `.msg` that is not OLE (Tcl and other message catalogs
 * are text) is read by the text filter instead: pickFilter sniffs it.
 */

const MSG_MIME = 'application/vnd.ms-outlook';

const loadReader = () =>
  loadLibrary('Outlook message support', async () => {
    const mod = await import('@kenjiuno/msgreader');
    // CommonJS with an ES default: the class is `default`, or `default.default` through interop.
    const d = mod.default as unknown as { default?: typeof mod.default };
    return d.default ?? mod.default;
  });

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
      throw unreadable('Outlook message', err);
    }
    if (data.error) throw new FilterError('corrupt', `unreadable Outlook message: ${data.error}`);
    const recipients = data.recipients ?? [];
    const to = (type: string) =>
      recipients
        .filter((r) => (r.recipType ?? 'to') === type)
        .map((r) => person(r.name, r.smtpAddress ?? r.email))
        .filter(Boolean)
        .join(', ');
    const text = await messageText(
      {
        from: person(data.senderName, data.senderSmtpAddress ?? data.senderEmail),
        to: to('to'),
        cc: to('cc'),
        date: data.clientSubmitTime ?? data.messageDeliveryTime,
        subject: data.subject,
        body: data.body ?? '',
        attachments: (data.attachments ?? [])
          .filter((a) => !a.innerMsgContent)
          .map((a) => ({
            name: a.fileName ?? a.name ?? '',
            mime: '',
            bytes: () => reader.getAttachment(a).content,
          })),
      },
      input.url,
    );
    return {
      text,
      title: data.subject?.trim() || undefined,
      author: data.senderName || data.senderSmtpAddress || data.senderEmail || undefined,
      mime: MSG_MIME,
    };
  },
};
