import { parseCommandArgs } from '../main.js';
import type { Command } from '../command.js';
import type { IndexStatus } from '../../main/core/api-types.js';

function mb(n: number): string {
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

/** `trawl status`: sources, document counts, last crawls, index size. */
export const statusCommand: Command = {
  name: 'status',
  summary: 'index size, sources and their last crawl',
  usage: 'status [--json] [--daemon PATH]',
  async run({ args, io, service, dataDir }) {
    const { values } = parseCommandArgs(
      args,
      { json: { type: 'boolean' }, daemon: { type: 'string' } },
      false,
    );
    // Through a daemon, the status is trimmed to what this OS user may see (docs/SECURITY.md).
    const { resolveDaemonSocket, connectDaemon } = await import('../../daemon/daemon-client.js');
    const socket = resolveDaemonSocket({ flag: values.daemon, env: io.env, dataDir });
    let st: IndexStatus;
    let live: string[] = [];
    if (socket) {
      const client = await connectDaemon(socket);
      try {
        st = await client.request('status', {});
      } finally {
        client.close();
      }
      if (st.live) {
        const { formatLiveStatus } = await import('../../main/core/live/live-status-text.js');
        live = formatLiveStatus(st.live);
      }
    } else {
      const svc = await service();
      st = svc.status();
      const { offlineLiveStatus } = await import('../../main/core/live/background.js');
      const { formatLiveStatus } = await import('../../main/core/live/live-status-text.js');
      live = formatLiveStatus(offlineLiveStatus(svc));
    }
    if (values.json) {
      io.out(JSON.stringify(st, null, 2));
      return 0;
    }
    io.out(`data dir: ${st.dataDir}\ndocuments: ${st.documents}   index: ${mb(st.indexBytes)}`);
    if (st.sources.length === 0) io.out('no sources yet: add one with `trawl source add <folder-or-url>`');
    for (const s of st.sources) {
      const c = s.stats.lastCrawl;
      const last = c
        ? `last ${c.mode} crawl ${new Date(c.startedAt).toISOString()} ${c.status}: added ${c.counts.added}, updated ${c.counts.updated}, not modified ${c.counts.notModified}, deleted ${c.counts.deleted}, failed ${c.counts.failed}, excluded ${c.counts.excluded}`
        : 'never crawled';
      io.out(
        `${String(s.id).padStart(3)}  ${s.name}  (${s.kind}${s.paused ? ', paused' : ''})  ${s.stats.documents} documents, ${s.stats.failed} failed\n     ${last}`,
      );
    }
    for (const line of live) io.out(line);
    return 0;
  },
};
