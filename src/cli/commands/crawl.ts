import { parseCommandArgs } from '../main.js';
import { sourceIdOf, type Command } from '../command.js';
import type { CrawlProgress, CrawlRecord } from '../../main/core/model.js';

/** Longest time `trawl crawl` spends on search shortcuts after the crawl. */
const SHORTCUT_BUDGET_MS = 15_000;

/** The one summary line: `added N, updated N, not modified N, deleted N, failed N in T s`. */
export function summaryLine(records: CrawlRecord[]): string {
  const sum = { added: 0, updated: 0, notModified: 0, deleted: 0, failed: 0, excluded: 0 };
  let start = Infinity;
  let end = 0;
  for (const r of records) {
    for (const k of Object.keys(sum) as (keyof typeof sum)[]) sum[k] += r.counts[k];
    start = Math.min(start, r.startedAt);
    end = Math.max(end, r.endedAt ?? Date.now());
  }
  const secs = records.length ? (end - start) / 1000 : 0;
  return `added ${sum.added}, updated ${sum.updated}, not modified ${sum.notModified}, deleted ${sum.deleted}, failed ${sum.failed} in ${secs.toFixed(2)} s`;
}

function bar(p: CrawlProgress): string {
  const total = Math.max(p.counts.discovered, p.done, 1);
  const frac = Math.min(1, p.done / total);
  const width = 24;
  const filled = Math.round(frac * width);
  const item = p.currentItem ? p.currentItem.slice(-40) : '';
  return `\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${p.done}/${p.counts.discovered} ${p.rate}/s ${item}`.padEnd(
    110,
  );
}

/** `trawl crawl [--full] [--source ID]`. */
export const crawlCommand: Command = {
  name: 'crawl',
  summary: 'crawl every source (or one); incremental unless --full',
  usage: 'crawl [--full] [--source ID]',
  async run({ args, io, service }) {
    const { values } = parseCommandArgs(
      args,
      { full: { type: 'boolean' }, source: { type: 'string' } },
      false,
    );
    const svc = await service();
    const sourceId = sourceIdOf(svc, values.source);
    if (svc.listSources().length === 0)
      throw new Error('no sources yet: add one with `trawl source add <folder-or-url>`');
    const off = io.tty ? svc.on('progress', (p) => process.stderr.write(bar(p))) : () => {};
    const records = await svc.crawl({ sourceId, mode: values.full ? 'full' : 'incremental' });
    off();
    if (io.tty) process.stderr.write('\r'.padEnd(111) + '\r');
    io.out(summaryLine(records));
    // Common words answer from stored top results; rebuild them now, as the process ends here
    // (bounded: what is left is done by the next crawl or the app).
    if (records.some((r) => r.counts.added + r.counts.updated + r.counts.deleted > 0))
      await svc.refreshSearchShortcuts(SHORTCUT_BUDGET_MS);
    const failed = records.filter((r) => r.status === 'failed');
    for (const r of failed) io.err(`trawl: crawl of source ${r.sourceId} failed: ${r.error}`);
    return failed.length ? 1 : 0;
  },
};
