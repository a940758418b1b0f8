/**
 * Mounted-share benchmark: a real Samba server on 127.0.0.1 sharing 2,000 small text files in 100
 * folders, mounted with smbnetfs (FUSE), crawled as a folder source with the share identity: the
 * walk and reads go through the mount, the DACLs come from the share (smbclient `showacls`). Needs
 * root, /dev/fuse and smbnetfs. Figures: a full crawl (files/s and smbclient processes started), a
 * no-change incremental crawl (seconds and processes). `BENCH_SMB_FILES` overrides the file count.
 */
import fs from 'node:fs';
import path from 'node:path';
import { mountedShareService } from '../test/smb/smb-helpers.js';
import { mountWithSmbnetfs, smbnetfsAvailability } from '../test/smb/smbnetfs-mount.js';
import { startBenchShare } from './smb-bench-share.js';

/** Build the share, mount it, then measure a full and a no-change incremental crawl. */
export async function run(): Promise<Record<string, number | string>> {
  const fuse = smbnetfsAvailability();
  if (!fuse.ok) throw new Error(fuse.reason);
  const share = await startBenchShare('trawl-bench-mount-');
  const { server, account, files, work } = share;
  let unmount = async (): Promise<void> => {};
  try {
    const mount = await mountWithSmbnetfs(server.port, 'bench', account);
    unmount = mount.unmount;
    const log = path.join(work, 'starts.log');
    const wrapper = path.join(work, 'smbclient');
    fs.writeFileSync(wrapper, `#!/bin/sh\necho x >> '${log}'\nexec smbclient "$@"\n`, { mode: 0o755 });
    const starts = (): number => {
      const n = fs.existsSync(log) ? fs.readFileSync(log, 'utf8').split('\n').filter(Boolean).length : 0;
      fs.rmSync(log, { force: true });
      return n;
    };
    const service = mountedShareService(path.join(work, 'data'), { smbclient: { smbclient: wrapper } });
    try {
      await service.setCredential('crawl', account);
      const s = service.addSource({
        startAddresses: [mount.shareRoot],
        settings: { smb: { shareIdentity: server.url('bench'), credentialId: 'crawl' } },
      });
      let t0 = performance.now();
      const [full] = await service.crawl({ sourceId: s.id, mode: 'full' });
      const crawlSecs = (performance.now() - t0) / 1000;
      if (full.status !== 'done' || full.counts.added !== files)
        throw new Error(`full crawl ${full.status}: ${full.error ?? JSON.stringify(full.counts)}`);
      const fullStarts = starts();
      t0 = performance.now();
      const [inc] = await service.crawl({ sourceId: s.id, mode: 'incremental' });
      const incSecs = (performance.now() - t0) / 1000;
      if (inc.counts.notModified !== files)
        throw new Error(`incremental crawl: ${JSON.stringify(inc.counts)}`);
      const plain = service.addSource({ name: 'plain', startAddresses: [mount.shareRoot] });
      t0 = performance.now();
      const [plainFull] = await service.crawl({ sourceId: plain.id, mode: 'full' });
      const plainSecs = (performance.now() - t0) / 1000;
      if (plainFull.counts.added !== files)
        throw new Error(`plain crawl: ${JSON.stringify(plainFull.counts)}`);
      return {
        files,
        plainMountCrawlFilesPerSec: Math.round(files / plainSecs),
        mountCrawlFilesPerSec: Math.round(files / crawlSecs),
        mountCrawlSmbclientProcesses: fullStarts,
        mountIncrementalNoChangeSecs: Number(incSecs.toFixed(2)),
        mountIncrementalSmbclientProcesses: starts(),
      };
    } finally {
      await service.close();
    }
  } finally {
    await unmount();
    await share.close();
  }
}
