/**
 * The daemon's runtime directory: one socket per user, each in a folder only that user (and root)
 * can enter, so a connection on a user's socket is that user — nothing the client says is trusted.
 *
 *   <runtime>/                 0755, the daemon's
 *   <runtime>/users/           0711 (enter, not list)
 *   <runtime>/users/<uid>/     0700 owned by <uid> (daemon as root), or 0700 + ACL u:<uid>:x
 *                              (daemon as a service account)
 *   <runtime>/users/<uid>/trawl.sock
 *   <runtime>/requests/        1733: a user without a socket drops a file here to get one
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import type net from 'node:net';
import path from 'node:path';
import { SOCKET_NAME } from './protocol.js';

/** The system-wide runtime directory clients look in by default. */
export const DEFAULT_RUNTIME_DIR = '/run/trawl';

/** Where `uid`'s socket lives under `runtimeDir`. */
export function userSocketPath(runtimeDir: string, uid: number): string {
  return path.join(runtimeDir, 'users', String(uid), SOCKET_NAME);
}

/** Where users ask for a socket. */
export function requestDir(runtimeDir: string): string {
  return path.join(runtimeDir, 'requests');
}

const myUid = (): number => process.getuid?.() ?? -1;

/**
 * Create (or take over) the runtime directory with the modes above. Throws when it exists but
 * belongs to someone else or is a symbolic link: another account could have planted it.
 */
export function prepareRuntimeDir(runtimeDir: string): void {
  fs.mkdirSync(path.dirname(runtimeDir), { recursive: true, mode: 0o755 });
  ensureOwnDir(runtimeDir, 0o755);
  ensureOwnDir(path.join(runtimeDir, 'users'), 0o711);
  ensureOwnDir(requestDir(runtimeDir), 0o1733);
}

function ensureOwnDir(dir: string, mode: number): void {
  try {
    fs.mkdirSync(dir, { mode });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
  const st = fs.lstatSync(dir);
  if (!st.isDirectory()) throw new Error(`${dir} exists and is not a folder`);
  if (st.uid !== myUid())
    throw new Error(`${dir} belongs to uid ${st.uid}, not to the daemon's uid ${myUid()}: remove it first`);
  fs.chmodSync(dir, mode);
}

/**
 * Prepare `uid`'s socket folder so that only `uid` and the daemon can enter it, and free the
 * socket's name. Returns the socket path.
 *
 * As root the folder belongs to the user (0700), who can change what is inside it: nothing below
 * it is ever followed or walked. An old socket name is unlinked (a symbolic link is removed, not
 * followed) or, when it is a folder, renamed aside; the socket is created 0600 and given to the
 * user with lchown. The folder's own name lives in `users/`, which only the daemon can change.
 * As a service account the folder stays the daemon's (0700) with exactly one ACL entry
 * `u:<uid>:x` (needs setfacl); the user cannot write in it.
 */
export async function provisionUserDir(runtimeDir: string, uid: number, gid: number): Promise<string> {
  const sock = userSocketPath(runtimeDir, uid);
  const dir = path.dirname(sock);
  let st: fs.Stats | null = null;
  try {
    st = fs.lstatSync(dir);
  } catch {}
  if (st && !st.isDirectory()) {
    fs.unlinkSync(dir);
    st = null;
  }
  if (!st) fs.mkdirSync(dir, { mode: 0o700 });
  fs.chmodSync(dir, 0o700);
  if (myUid() === 0) fs.chownSync(dir, uid, gid);
  else if (uid !== myUid()) await setfacl(['--set', `u::rwx,g::-,o::-,u:${uid}:x,m::x`, dir]);
  try {
    fs.unlinkSync(sock);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EISDIR' || code === 'EPERM') fs.renameSync(sock, `${sock}.${process.pid}.${Date.now()}`);
    else if (code !== 'ENOENT') throw e;
  }
  return sock;
}

/**
 * Give the user the socket (created 0600 by {@link listenPrivately}): connecting needs write
 * permission on it. Never follows a link the user may have put in its place.
 */
export function restrictSocket(socketPath: string, uid: number, gid: number): void {
  if (myUid() === 0) fs.lchownSync(socketPath, uid, gid);
  // A service account's user folder admits one user, who cannot write in it: the folder is the guard.
  else if (uid !== myUid()) fs.chmodSync(socketPath, 0o666);
}

/** `server.listen(socketPath)` with the socket file created mode 0600 (bind happens synchronously). */
export function listenPrivately(server: net.Server, socketPath: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    const old = process.umask(0o177);
    try {
      server.listen(socketPath, () => {
        server.off('error', reject);
        resolve();
      });
    } finally {
      process.umask(old);
    }
  });
}

function setfacl(args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile('setfacl', args, (err, _out, stderr) =>
      err ? reject(new Error(`setfacl ${args.join(' ')}: ${stderr || err.message}`)) : resolve(),
    );
  });
}

/** An account that gets a socket. */
export interface Account {
  uid: number;
  gid: number;
  name: string;
}

/** Parse `getent passwd` lines. */
export function parsePasswd(text: string): Account[] {
  const out: Account[] = [];
  for (const line of text.split('\n')) {
    const f = line.split(':');
    if (f.length < 7 || !/^\d+$/.test(f[2]) || !/^\d+$/.test(f[3])) continue;
    out.push({ name: f[0], uid: Number(f[2]), gid: Number(f[3]) });
  }
  return out;
}

/** UID_MIN and UID_MAX from /etc/login.defs (defaults 1000 and 60000). */
export function loginUidRange(text?: string): [number, number] {
  let defs = text;
  if (defs === undefined) {
    try {
      defs = fs.readFileSync('/etc/login.defs', 'utf8');
    } catch {
      defs = '';
    }
  }
  const num = (key: string, dflt: number): number => {
    const m = new RegExp(`^\\s*${key}\\s+(\\d+)`, 'm').exec(defs);
    return m ? Number(m[1]) : dflt;
  };
  return [num('UID_MIN', 1000), num('UID_MAX', 60000)];
}

/**
 * The accounts that get a socket at start: root and every account in the user database with a
 * uid in [UID_MIN, UID_MAX] (people, not system accounts). Others ask through `requests/`.
 */
export function loginAccounts(passwd: string, range: [number, number] = loginUidRange()): Account[] {
  return parsePasswd(passwd).filter((a) => a.uid === 0 || (a.uid >= range[0] && a.uid <= range[1]));
}

/** `getent passwd` (all accounts NSS enumerates), or with a key, one account. */
export function getentPasswd(key?: string): Promise<string> {
  return new Promise((resolve) => {
    execFile(
      'getent',
      key ? ['passwd', key] : ['passwd'],
      { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
      (err, out) => resolve(err ? '' : out),
    );
  });
}
