import { parseCommandArgs } from '../main.js';
import { sourceIdOf, type Command } from '../command.js';

/** `trawl log [--failed]`: the latest crawl's log lines (failures, exclusions, web fetches). */
export const logCommand: Command = {
  name: 'log',
  summary: 'crawl log of the latest crawls (failures, exclusions, fetches)',
  usage: 'log [--failed] [--source ID] [--limit N] [--json]',
  async run({ args, io, service }) {
    const { values } = parseCommandArgs(
      args,
      {
        failed: { type: 'boolean' },
        source: { type: 'string' },
        limit: { type: 'string' },
        json: { type: 'boolean' },
      },
      false,
    );
    const svc = await service();
    const sourceId = sourceIdOf(svc, values.source);
    const entries = svc.log({
      sourceId,
      failedOnly: values.failed,
      limit: values.limit ? Number(values.limit) : 200,
    });
    if (values.json) {
      io.out(JSON.stringify(entries, null, 2));
      return 0;
    }
    if (entries.length === 0)
      io.out(values.failed ? 'no failures in the latest crawls' : 'the crawl log is empty');
    for (const e of entries.reverse()) {
      const when = new Date(e.at).toISOString();
      const http = e.status != null ? ` ${e.status}` : '';
      io.out(
        `${when} ${e.outcome}${http} ${e.url}${e.reason ? ` — ${e.reason}` : ''}${e.annotations ? ` [${e.annotations}]` : ''}`,
      );
    }
    return 0;
  },
};
