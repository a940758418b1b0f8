/**
 * A real FUSE mount of a test Samba share, through smbnetfs (a FUSE SMB client over libsmbclient):
 * what a user gets from `mount -t cifs` where the kernel has cifs (this one does not). smbnetfs
 * shows the whole network below its mount point: `<mnt>/<host>:<port>/<share>/…`.
 * Needs root, /dev/fuse, and the packages smbnetfs (with fuse: fusermount).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'vitest';

/** Whether smbnetfs mounts can be made here; `reason` says why not. */
export function smbnetfsAvailability(): { ok: true } | { ok: false; reason: string } {
  if (process.platform !== 'linux') return { ok: false, reason: 'smbnetfs mounts need Linux' };
  if (process.getuid?.() !== 0) return { ok: false, reason: 'FUSE mounts in tests need root' };
  if (!fs.existsSync('/dev/fuse')) return { ok: false, reason: '/dev/fuse is missing (no FUSE here)' };
  for (const bin of ['smbnetfs', 'fusermount']) {
    if (spawnSync('sh', ['-c', `command -v ${bin}`]).status !== 0)
      return { ok: false, reason: `${bin} is not installed (apt-get install smbnetfs)` };
  }
  return { ok: true };
}

/** Like `sambaForTests`: false when mounts cannot be made (a failing test under CI=true). */
export function smbnetfsForTests(): boolean {
  const a = smbnetfsAvailability();
  if (a.ok) return true;
  if (process.env.CI === 'true') {
    describe('smbnetfs', () => {
      it('is available (required when CI=true)', () => {
        throw new Error(`the mounted-share tests cannot run: ${a.reason}`);
      });
    });
  } else {
    console.warn(`skipping mounted-share tests: ${a.reason}`);
  }
  return false;
}

/** A mounted share. */
export interface SmbnetfsMount {
  /** The local folder showing `//127.0.0.1:<port>/<share>`. */
  shareRoot: string;
  /** Unmount and end smbnetfs. Idempotent. */
  unmount(): Promise<void>;
}

/**
 * Mount `//127.0.0.1:<port>/<share>` as `account` with smbnetfs in the foreground (our own child),
 * everything private (config with the password in a 0700 folder). Resolves once the share lists.
 */
export async function mountWithSmbnetfs(
  port: number,
  share: string,
  account: { user: string; password: string },
): Promise<SmbnetfsMount> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-smbnetfs-'));
  fs.chmodSync(dir, 0o700);
  const home = path.join(dir, 'home');
  const mnt = path.join(dir, 'mnt');
  fs.mkdirSync(path.join(home, '.smb'), { recursive: true });
  fs.mkdirSync(mnt);
  const conf = path.join(home, '.smb', 'smbnetfs.conf');
  fs.writeFileSync(path.join(home, '.smb', 'smb.conf'), '[global]\nclient min protocol = SMB2_02\n');
  fs.writeFileSync(
    conf,
    [
      `auth "127.0.0.1" "${account.user}" "${account.password}"`,
      `auth "${account.user}" "${account.password}"`,
      'smb_query_browsers "false"',
      'use_libsecret "false"',
      '',
    ].join('\n'),
    { mode: 0o600 },
  );
  const child: ChildProcess = spawn(
    'smbnetfs',
    [mnt, '-f', '-o', `config=${conf},log_file=${path.join(dir, 'smbnetfs.log')}`],
    { env: { ...process.env, HOME: home }, stdio: 'ignore' },
  );
  const shareRoot = path.join(mnt, `127.0.0.1:${port}`, share);
  let done = false;
  const unmount = async (): Promise<void> => {
    if (done) return;
    done = true;
    spawnSync('fusermount', ['-u', '-z', mnt]);
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise<void>((r) => child.once('exit', () => r()));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 3000))]);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
    fs.rmSync(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (child.exitCode !== null) {
      await unmount();
      throw new Error(`smbnetfs exited with code ${child.exitCode}`);
    }
    try {
      fs.readdirSync(shareRoot);
      return { shareRoot, unmount };
    } catch (e) {
      if (Date.now() > deadline) {
        await unmount();
        throw new Error(`the smbnetfs mount did not show ${shareRoot}: ${(e as Error).message}`, {
          cause: e,
        });
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}
