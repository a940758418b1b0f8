import fs from 'node:fs';
import path from 'node:path';
import type { RuleMatcher } from '../crawl/crawl-rules.js';

/**
 * File-system types whose changes made elsewhere (another machine, the server) produce no local
 * watch events: a watcher there would silently miss edits, so such sources are polled instead.
 */
export const NETWORK_FS_TYPES: ReadonlySet<string> = new Set([
  'nfs',
  'nfs4',
  'cifs',
  'smb3',
  'smbfs',
  'ncpfs',
  'afs',
  '9p',
  'ceph',
  'glusterfs',
  'lustre',
  'gpfs',
  'beegfs',
  'davfs',
  'fuse.sshfs',
  'fuse.rclone',
  'fuse.s3fs',
  'fuse.davfs2',
  'fuse.gvfsd-fuse',
  'fuse.glusterfs',
  'fuse.cephfs',
  'fuse.smbnetfs',
]);

/** One line of /proc/mounts. */
export interface MountEntry {
  mountPoint: string;
  fsType: string;
}

/** Parse /proc/mounts (octal escapes such as `\040` for a space are decoded). */
export function parseMounts(text: string): MountEntry[] {
  const out: MountEntry[] = [];
  for (const line of text.split('\n')) {
    const parts = line.trim().split(/\s+/);
    if (parts.length < 3) continue;
    const mountPoint = parts[1].replace(/\\([0-7]{3})/g, (_, o: string) =>
      String.fromCharCode(parseInt(o, 8)),
    );
    out.push({ mountPoint, fsType: parts[2] });
  }
  return out;
}

/** The file-system type of the mount holding `p` (longest matching mount point), or null. */
export function fsTypeOf(p: string, mounts: MountEntry[]): string | null {
  let best: MountEntry | null = null;
  for (const m of mounts) {
    const mp = m.mountPoint;
    const inside = mp === '/' || p === mp || p.startsWith(mp.endsWith('/') ? mp : `${mp}/`);
    if (inside && (!best || mp.length >= best.mountPoint.length)) best = m;
  }
  return best?.fsType ?? null;
}

/**
 * Why a folder cannot be watched reliably because it lives on a network file system, or null.
 * `mountsText` is the content of /proc/mounts (null where there is none: macOS, Windows).
 */
export function networkFsReason(folder: string, mountsText: string | null): string | null {
  if (/^\\\\[^\\]/.test(folder))
    return `network share (${folder}): changes made on other machines are not reported`;
  if (!mountsText) return null;
  const type = fsTypeOf(folder, parseMounts(mountsText));
  if (type && (NETWORK_FS_TYPES.has(type) || type.startsWith('fuse.sshfs'))) {
    return `network file system (${type}): changes made on other machines are not reported`;
  }
  return null;
}

/** Reads /proc/mounts; null where it does not exist. */
export function readMounts(): string | null {
  try {
    return fs.readFileSync('/proc/mounts', 'utf8');
  } catch {
    return null;
  }
}

/** The inotify watch limit of the current user (Linux), or null elsewhere. */
export function inotifyWatchLimit(): number | null {
  for (const f of ['/proc/sys/user/max_inotify_watches', '/proc/sys/fs/inotify/max_user_watches']) {
    try {
      const n = Number(fs.readFileSync(f, 'utf8').trim());
      if (Number.isFinite(n) && n > 0) return n;
    } catch {}
  }
  return null;
}

/**
 * inotify watches this process holds (Linux: counted from /proc/self/fdinfo), or null elsewhere.
 * Costs a read of one line per watch: call it for status, not in a loop.
 */
export function inotifyWatchesInUse(): number | null {
  let fds: string[];
  try {
    fds = fs.readdirSync('/proc/self/fd');
  } catch {
    return null;
  }
  let n = 0;
  for (const fd of fds) {
    try {
      if (fs.readlinkSync(`/proc/self/fd/${fd}`) !== 'anon_inode:inotify') continue;
      const info = fs.readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8');
      for (let i = info.indexOf('inotify wd:'); i >= 0; i = info.indexOf('inotify wd:', i + 1)) n++;
    } catch {}
  }
  return n;
}

/**
 * Count what a watcher of `root` would watch (folders and files the rules include), stopping as
 * soon as the count exceeds `limit`. Returns the count (at most `limit + 1`).
 */
export async function countWatchTargets(
  root: string,
  rules: RuleMatcher,
  limit: number,
  opts: { followSymlinks?: boolean; skip?: (p: string) => boolean } = {},
): Promise<number> {
  const ruleRoot = root.replace(/\\/g, '/');
  let count = 1;
  const stack = [root];
  while (stack.length && count <= limit) {
    const dir = stack.pop()!;
    let entries: fs.Dirent[];
    try {
      entries = await fs.promises.readdir(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const e of entries) {
      const p = path.join(dir, e.name);
      if (opts.skip?.(p)) continue;
      let isDir = e.isDirectory();
      if (e.isSymbolicLink()) {
        if (!opts.followSymlinks) continue;
        try {
          isDir = (await fs.promises.stat(p)).isDirectory();
        } catch {
          continue;
        }
      } else if (!isDir && !e.isFile()) continue;
      if (!rules.decide(p.replace(/\\/g, '/'), ruleRoot, isDir).included) continue;
      count++;
      if (isDir) stack.push(p);
      if (count > limit) break;
    }
  }
  return count;
}
