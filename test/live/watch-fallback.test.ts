import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import {
  fsTypeOf,
  networkFsReason,
  parseMounts,
  readMounts,
} from '../../src/main/core/live/watch-feasibility.js';
import { liveEnv, until, SLACK_MS, type LiveEnv } from './live-env.js';

const MOUNTS = `sysfs /sys sysfs rw 0 0
/dev/sda1 / ext4 rw,relatime 0 0
server:/export/home /mnt/home nfs4 rw,vers=4.2 0 0
//nas/share /mnt/my\\040share cifs rw 0 0
me@host:/ /mnt/remote fuse.sshfs rw 0 0
tmpfs /tmp tmpfs rw 0 0
`;

let env: LiveEnv | null = null;
afterEach(async () => {
  await env?.close();
  env = null;
});

describe('when watching is impossible or too expensive', () => {
  it('detects network file systems from /proc/mounts (longest mount point wins)', () => {
    const m = parseMounts(MOUNTS);
    expect(fsTypeOf('/mnt/home/alice/docs', m)).toBe('nfs4');
    expect(fsTypeOf('/mnt/my share/x', m)).toBe('cifs');
    expect(fsTypeOf('/mnt/homework', m)).toBe('ext4');
    expect(networkFsReason('/mnt/remote/notes', MOUNTS)).toMatch(/fuse\.sshfs/);
    expect(networkFsReason('/tmp/x', MOUNTS)).toBeNull();
    expect(networkFsReason('\\\\nas\\share\\docs', null)).toMatch(/network share/);
    const real = readMounts();
    if (real)
      expect(
        networkFsReason(process.cwd(), real) === null ||
          /network/.test(networkFsReason(process.cwd(), real)!),
      ).toBe(true);
  });

  it('polls a source on a network file system, saying why, at the poll cadence', async () => {
    env = await liveEnv(
      { 'a.txt': 'alpha' },
      { bg: { mounts: () => `${MOUNTS}nas:/vol ${os.tmpdir()} nfs4 rw 0 0\n`, pollMinutes: 7 } },
    );
    const e = env;
    const st = e.bg.status().sources[0];
    expect(st.state).toBe('polling');
    expect(st.reason).toMatch(/network file system \(nfs4\)/);
    expect(st.watches).toBe(0);
    const last = e.service.crawls(e.sourceId, 1)[0];
    expect(st.nextIncrementalAt).toBe(last.startedAt + 7 * 60_000);
  });

  it('polls a tree larger than the watch budget, and falls back when a watched tree outgrows it', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 40; i++) files[`d${i % 4}/f${i}.txt`] = `file ${i}`;
    env = await liveEnv(files, { bg: { watchBudget: 20 } });
    expect(env.bg.status().sources[0]).toMatchObject({ state: 'polling', watches: 0 });
    expect(env.bg.status().sources[0].reason).toMatch(
      /about 45 folders and files to watch: more than the watch budget leaves \(20 of 20\)/,
    );
    await env.close();

    env = await liveEnv({ 'a.txt': 'alpha' }, { bg: { watchBudget: 30 } });
    const e = env;
    expect(e.bg.status().sources[0].state).toBe('watching');
    for (let i = 0; i < 40; i++) e.write(`grow/f${i}.txt`, 'growing');
    await until(() => e.bg.status().sources[0].state === 'polling', SLACK_MS, 'fallback');
    expect(e.bg.status().sources[0].reason).toMatch(/more than the watch budget leaves/);
    expect(e.bg.status().watches).toBe(0);
  });

  it('falls back to polling with the reason when the inotify watch limit is reached (ENOSPC)', async (ctx) => {
    const hasUnshare = spawnSync('unshare', ['-U', '-r', 'true']).status === 0;
    if (!hasUnshare) {
      if (process.env.CI === 'true')
        throw new Error('unshare -U (user namespaces) is required for this test in CI');
      ctx.skip('unshare -U is not available: cannot lower the inotify limit for one process');
    }
    const base = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-enospc-'));
    try {
      const root = path.join(base, 'root');
      for (let i = 0; i < 60; i++) {
        fs.mkdirSync(path.join(root, `d${i % 6}`), { recursive: true });
        fs.writeFileSync(path.join(root, `d${i % 6}`, `f${i}.txt`), `file ${i}`);
      }
      const other = path.join(base, 'other');
      fs.mkdirSync(other);
      for (let i = 0; i < 60; i++) fs.writeFileSync(path.join(other, `w${i}`), '');
      const repo = fileURLToPath(new URL('../..', import.meta.url));
      // A user namespace has its own inotify limit: 100 watches, 60 of them taken by "other programs";
      // the 67 the source needs fit the budget (75 % of the limit) but not what is left.
      const out = execFileSync(
        'unshare',
        [
          '-U',
          '-r',
          'sh',
          '-c',
          'echo 100 > /proc/sys/user/max_inotify_watches && exec "$@"',
          'sh',
          process.execPath,
          path.join(repo, 'bin/run-ts.mjs'),
          path.join(repo, 'test/live/enospc-child.ts'),
          root,
          path.join(base, 'data'),
          other,
        ],
        { cwd: repo, encoding: 'utf8', timeout: 60_000 },
      );
      const res = JSON.parse(out) as {
        source: { state: string; reason: string; watches: number };
        limit: number;
      };
      expect(res.limit).toBe(100);
      expect(res.source.state).toBe('polling');
      expect(res.source.reason).toMatch(/inotify watch limit \(100\) is reached/);
      expect(res.source.watches).toBe(0);
    } finally {
      fs.rmSync(base, { recursive: true, force: true });
    }
  });
});
