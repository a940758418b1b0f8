/**
 * The share the SMB benchmarks crawl: a real Samba server on 127.0.0.1 (as the tests start it;
 * needs root) sharing `BENCH_SMB_FILES` (default 2,000) small text files in folders of 20, read
 * and written by one crawl account.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  ensureUnixAccounts,
  removeSambaDir,
  sambaAvailability,
  startSamba,
  type SambaServer,
} from '../test/smb/samba-server.js';

const WORDS =
  'quarterly planning budget review minutes agenda roadmap invoice contract summary draft final'.split(' ');

export interface BenchShare {
  server: SambaServer;
  /** The crawl account (also the share's admin). */
  account: { user: string; password: string };
  files: number;
  /** Folders holding the files. */
  dirs: number;
  /** A private scratch folder (data directories, wrappers). */
  work: string;
  /** Stop the server and remove everything. */
  close(): Promise<void>;
}

/** Start the server and fill share `bench`. */
export async function startBenchShare(prefix: string): Promise<BenchShare> {
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
  const work = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const close = async (): Promise<void> => {
    await server.stop();
    removeSambaDir(server);
    fs.rmSync(work, { recursive: true, force: true });
  };
  try {
    for (let i = 0; i < files; i++) {
      const dir = path.join(server.paths.bench, `folder ${Math.floor(i / perDir)}`);
      if (i % perDir === 0) fs.mkdirSync(dir);
      const text = Array.from({ length: 60 }, (_, k) => WORDS[(i * 7 + k * 3) % WORDS.length]).join(' ');
      fs.writeFileSync(path.join(dir, `document ${i}.txt`), `${text}\nitem ${i}\n`);
    }
  } catch (e) {
    await close();
    throw e;
  }
  return { server, account, files, dirs: Math.ceil(files / perDir), work, close };
}
