/**
 * SMB benchmark: a real Samba server on 127.0.0.1 (as the tests start it; needs root) sharing
 * 2,000 small text files in 100 folders. Listing: the SMB handler walking the tree without DACLs
 * (`recurse ON; ls`), process start and login included, median of three. Crawl: a full crawl through the service
 * with DACLs (`showacls`), reads (`get`), text extraction and indexing. `BENCH_SMB_FILES` overrides
 * the file count. Targets: listing ≥ 10,000 entries/s, crawl ≥ 500 files/s.
 */
import path from 'node:path';
import { defaultSettings } from '../src/main/core/index/source-store.js';
import type { ContentSource } from '../src/main/core/model.js';
import type { ItemStat } from '../src/main/core/sources/handler.js';
import { createSmbHandler } from '../src/main/core/sources/smb/smb-handler.js';
import { smbService } from '../test/smb/smb-helpers.js';
import { startBenchShare } from './smb-bench-share.js';

/** Build the share, then measure listing and a full crawl. */
export async function run(): Promise<Record<string, number | string>> {
  const share = await startBenchShare('trawl-bench-smb-');
  const { server, account, files, dirs, work } = share;
  try {
    const url = server.url('bench');

    // listing: the handler alone, without DACLs, as the crawler drives it (list per folder)
    const source: ContentSource = {
      id: 1,
      name: 'bench',
      kind: 'smb',
      startAddresses: [url],
      displayAddresses: [url],
      rules: [{ action: 'include', syntax: 'prefix', pattern: 'smb://', credentialId: 'c' }],
      settings: { ...defaultSettings('smb'), smb: { captureAcls: false } },
      paused: false,
      createdAt: Date.now(),
    };
    const listOnce = async (): Promise<{ entries: number; secs: number }> => {
      const ctx = { source, signal: new AbortController().signal, credential: async () => account };
      const handler = createSmbHandler();
      const t = performance.now();
      let entries = 0;
      const walk = async (c: ItemStat): Promise<void> => {
        const kids = await handler.list(c, ctx);
        entries += kids.length;
        await Promise.all(kids.filter((k) => k.isContainer).map(walk));
      };
      await walk(await handler.stat(url, ctx));
      const secs = (performance.now() - t) / 1000;
      await handler.close!(ctx);
      if (entries !== files + dirs) throw new Error(`listed ${entries} entries, expected ${files + dirs}`);
      return { entries, secs };
    };
    const listings = [await listOnce(), await listOnce(), await listOnce()].sort((a, b) => a.secs - b.secs);
    const listing = listings[1];

    // full crawl with DACLs and text extraction, through the service
    const service = smbService(path.join(work, 'data'));
    try {
      await service.setCredential('crawl', account);
      const s = service.addSource({
        startAddresses: [url],
        rules: [{ action: 'include', syntax: 'prefix', pattern: 'smb://', credentialId: 'crawl' }],
      });
      let t0 = performance.now();
      const [full] = await service.crawl({ sourceId: s.id, mode: 'full' });
      const crawlSecs = (performance.now() - t0) / 1000;
      if (full.status !== 'done' || full.counts.added !== files)
        throw new Error(`full crawl ${full.status}: ${JSON.stringify(full.counts)}`);
      t0 = performance.now();
      const [inc] = await service.crawl({ sourceId: s.id, mode: 'incremental' });
      const incSecs = (performance.now() - t0) / 1000;
      if (inc.counts.notModified !== files)
        throw new Error(`incremental crawl: ${JSON.stringify(inc.counts)}`);
      return {
        files,
        listingEntriesPerSec: Math.round(listing.entries / listing.secs),
        crawlFilesPerSec: Math.round(files / crawlSecs),
        incrementalNoChangeSecs: Number(incSecs.toFixed(2)),
        incrementalFilesPerSec: Math.round(files / incSecs),
      };
    } finally {
      await service.close();
    }
  } finally {
    await share.close();
  }
}
