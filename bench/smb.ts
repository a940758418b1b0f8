/**
 * SMB benchmark: a real Samba server on 127.0.0.1 (as the tests start it; needs root) sharing
 * 2,000 small text files in 100 folders. Listing: the SMB handler walking the tree without DACLs
 * (`recurse ON; ls`), process start and login included, median of three. Crawl: a full crawl through the service
 * with DACLs (`showacls`), reads (`get`), text extraction and indexing. `BENCH_SMB_FILES` overrides
 * the file count. Targets: listing ≥ 10,000 entries/s, crawl ≥ 500 files/s.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { defaultSettings } from '../src/main/core/index/source-store.js';
import type { ContentSource } from '../src/main/core/model.js';
import type { ItemStat } from '../src/main/core/sources/handler.js';
import { createSmbHandler } from '../src/main/core/sources/smb/smb-handler.js';
import {
  ensureUnixAccounts,
  removeSambaDir,
  sambaAvailability,
  startSamba,
} from '../test/smb/samba-server.js';
import { smbService } from '../test/smb/smb-helpers.js';

const WORDS =
  'quarterly planning budget review minutes agenda roadmap invoice contract summary draft final'.split(' ');

/** Build the share, then measure listing and a full crawl. */
export async function run(): Promise<Record<string, number | string>> {
  const avail = sambaAvailability();
  if (!avail.ok) throw new Error(avail.reason);
  const files = Number(process.env.BENCH_SMB_FILES ?? 2000);
  const perDir = 20;
  const account = { user: 'trawlcrawl', password: 'Bench-pw-1' };
  await ensureUnixAccounts([account.user], {});
  const server = await startSamba({
    shares: [{ name: 'bench' }],
    accounts: { [account.user]: account.password },
    adminUsers: [account.user],
  });
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-bench-smb-'));
  try {
    for (let i = 0; i < files; i++) {
      const dir = path.join(server.paths.bench, `folder ${Math.floor(i / perDir)}`);
      if (i % perDir === 0) fs.mkdirSync(dir);
      const text = Array.from({ length: 60 }, (_, k) => WORDS[(i * 7 + k * 3) % WORDS.length]).join(' ');
      fs.writeFileSync(path.join(dir, `document ${i}.txt`), `${text}\nitem ${i}\n`);
    }
    const dirs = Math.ceil(files / perDir);
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
    await server.stop();
    removeSambaDir(server);
    fs.rmSync(work, { recursive: true, force: true });
  }
}
