/**
 * A real Samba server for tests, on 127.0.0.1 and a random free high port, with everything private
 * (passdb, locks, state, logs) in a temporary folder — the recipe of docs/SMB.md (shared docs).
 * Needs root (smbd, useradd) and the packages samba samba-vfs-modules smbclient acl.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Whether Samba tests can run here; `reason` says why not. */
export function sambaAvailability(): { ok: true } | { ok: false; reason: string } {
  if (process.platform === 'win32') return { ok: false, reason: 'Samba tests need Linux' };
  if (process.getuid?.() !== 0) return { ok: false, reason: 'Samba tests need root (smbd, useradd)' };
  for (const bin of ['smbd', 'smbclient', 'rpcclient', 'smbpasswd', 'samba-tool', 'setfacl']) {
    if (!which(bin))
      return {
        ok: false,
        reason: `${bin} is not installed (apt-get install samba samba-vfs-modules smbclient acl)`,
      };
  }
  if (!fs.existsSync('/usr/lib/x86_64-linux-gnu/samba/vfs/acl_xattr.so') && !findVfs()) {
    return { ok: false, reason: 'samba-vfs-modules is not installed (acl_xattr)' };
  }
  return { ok: true };
}

function findVfs(): boolean {
  for (const dir of [
    '/usr/lib/x86_64-linux-gnu/samba/vfs',
    '/usr/lib/aarch64-linux-gnu/samba/vfs',
    '/usr/lib/samba/vfs',
    '/usr/lib64/samba/vfs',
  ]) {
    if (fs.existsSync(path.join(dir, 'acl_xattr.so'))) return true;
  }
  return false;
}

function which(bin: string): string | null {
  for (const dir of (process.env.PATH ?? '').split(':').concat(['/usr/sbin', '/sbin', '/usr/bin'])) {
    const p = path.join(dir, bin);
    try {
      fs.accessSync(p, fs.constants.X_OK);
      return p;
    } catch {}
  }
  return null;
}

/** A free TCP port on 127.0.0.1 (closed again before returning). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

/** Create OS users and groups when missing (other tests may have made them already: tolerated). */
export async function ensureUnixAccounts(
  users: readonly string[],
  groups: Record<string, readonly string[]>,
): Promise<void> {
  for (const g of Object.keys(groups)) {
    try {
      await run('getent', ['group', g]);
    } catch {
      await run('groupadd', [g]).catch(async (e) => {
        await run('getent', ['group', g]).catch(() => {
          throw e;
        });
      });
    }
  }
  for (const u of users) {
    try {
      await run('id', ['-u', u]);
    } catch {
      await run('useradd', ['-M', '-s', '/usr/sbin/nologin', u]).catch(async (e) => {
        await run('id', ['-u', u]).catch(() => {
          throw e;
        });
      });
    }
  }
  for (const [g, members] of Object.entries(groups)) {
    for (const u of members) await run('usermod', ['-aG', g, u]);
  }
}

/** A share of the test server. */
export interface ShareSpec {
  name: string;
  /** Extra `key = value` lines for the share section. */
  options?: string[];
}

/** Options for {@link startSamba}. */
export interface SambaOptions {
  shares: ShareSpec[];
  /** Extra `[global]` lines (e.g. `server signing = mandatory`). */
  global?: string[];
  /** Samba accounts and their passwords (the OS users must exist). */
  accounts: Record<string, string>;
  /** Accounts that act as root on every share (the crawl account). */
  adminUsers?: string[];
}

/** A running test server. */
export interface SambaServer {
  port: number;
  dir: string;
  conf: string;
  /** Share name → folder on disk. */
  paths: Record<string, string>;
  /** `smb://127.0.0.1:<port>/<share>` */
  url(share: string, ...segs: string[]): string;
  /** Stop smbd and every connection process (kill the process group). Idempotent. */
  stop(): Promise<void>;
  /** Start it again on the same port (after `stop`). */
  restart(): Promise<void>;
  /** Set a file's NT security descriptor (SDDL) server-side, through the acl_xattr VFS module. */
  setNtAcl(share: string, rel: string, sddl: string): Promise<void>;
  /** The SID the server gives a name (`rpcclient lookupnames`). */
  sid(name: string): Promise<string>;
  /** The users a test may log in as, with passwords. */
  accounts: Record<string, string>;
}

/** Write a private smb.conf, create the passdb accounts and start smbd in the foreground (own process group). */
export async function startSamba(opts: SambaOptions): Promise<SambaServer> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-samba-'));
  fs.chmodSync(dir, 0o755);
  for (const d of ['private', 'lock', 'state', 'cache', 'pid', 'ncalrpc', 'log'])
    fs.mkdirSync(path.join(dir, d));
  fs.chmodSync(path.join(dir, 'private'), 0o700);
  const paths: Record<string, string> = {};
  for (const s of opts.shares) {
    paths[s.name] = path.join(dir, 'shares', s.name);
    fs.mkdirSync(paths[s.name], { recursive: true });
    fs.chmodSync(paths[s.name], 0o755);
  }
  fs.chmodSync(path.join(dir, 'shares'), 0o755);
  const port = await freePort();
  const conf = path.join(dir, 'smb.conf');
  const admin = opts.adminUsers?.length ? [`admin users = ${opts.adminUsers.join(' ')}`] : [];
  fs.writeFileSync(
    conf,
    [
      '[global]',
      // samba-tool looks the machine SID up by workgroup: a standalone server's two names agree
      `workgroup = TRAWL${port}`,
      `netbios name = TRAWL${port}`,
      'server role = standalone server',
      'interfaces = 127.0.0.1',
      'bind interfaces only = yes',
      'disable netbios = yes',
      `smb ports = ${port}`,
      `private dir = ${dir}/private`,
      `lock directory = ${dir}/lock`,
      `state directory = ${dir}/state`,
      `cache directory = ${dir}/cache`,
      `pid directory = ${dir}/pid`,
      `ncalrpc dir = ${dir}/ncalrpc`,
      `log file = ${dir}/log/log.%m`,
      'log level = 1',
      `passdb backend = tdbsam:${dir}/private/passdb.tdb`,
      'server min protocol = SMB2_02',
      'ntlm auth = ntlmv2-only',
      'map to guest = never',
      'vfs objects = acl_xattr',
      'map acl inherit = yes',
      'store dos attributes = yes',
      'load printers = no',
      'printing = bsd',
      'printcap name = /dev/null',
      'disable spoolss = yes',
      ...(opts.global ?? []),
      ...opts.shares.flatMap((s) => [
        '',
        `[${s.name}]`,
        `path = ${paths[s.name]}`,
        'read only = no',
        ...admin,
        ...(s.options ?? []),
      ]),
      '',
    ].join('\n'),
  );
  for (const [user, pw] of Object.entries(opts.accounts)) {
    await new Promise<void>((resolve, reject) => {
      const p = spawn('smbpasswd', ['-c', conf, '-s', '-a', user], { stdio: ['pipe', 'ignore', 'pipe'] });
      let err = '';
      p.stderr.on('data', (d) => (err += d));
      p.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`smbpasswd ${user}: ${err}`))));
      p.stdin.end(`${pw}\n${pw}\n`);
    });
  }

  let child: ChildProcess | null = null;
  const start = async (): Promise<void> => {
    child = spawn('smbd', ['--foreground', '--no-process-group', '-s', conf], {
      detached: true,
      stdio: 'ignore',
    });
    const deadline = Date.now() + 15_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`smbd exited (${child.exitCode}); see ${dir}/log`);
      const ok = await new Promise<boolean>((resolve) => {
        const s = net.connect(port, '127.0.0.1');
        s.once('connect', () => {
          s.destroy();
          resolve(true);
        });
        s.once('error', () => resolve(false));
      });
      if (ok) return;
      if (Date.now() > deadline) throw new Error(`smbd did not listen on ${port}; see ${dir}/log`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  const stop = async (): Promise<void> => {
    const c = child;
    child = null;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    const exited = new Promise<void>((r) => c.once('exit', () => r()));
    try {
      process.kill(-c.pid!, 'SIGKILL');
    } catch {}
    await exited;
    // connection processes share the group; wait until the port is closed
    for (let i = 0; i < 50; i++) {
      const open = await new Promise<boolean>((resolve) => {
        const s = net.connect(port, '127.0.0.1');
        s.once('connect', () => {
          s.destroy();
          resolve(true);
        });
        s.once('error', () => resolve(false));
      });
      if (!open) break;
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  await start();
  const server: SambaServer = {
    port,
    dir,
    conf,
    paths,
    accounts: opts.accounts,
    url: (share, ...segs) => `smb://127.0.0.1:${port}/${[share, ...segs].map(encodeURIComponent).join('/')}`,
    stop,
    restart: start,
    async setNtAcl(share, rel, sddl) {
      await run('samba-tool', [
        'ntacl',
        'set',
        sddl,
        path.join(paths[share], rel),
        '--use-s3fs',
        `--service=${share}`,
        '-s',
        conf,
      ]);
    },
    async sid(name) {
      const [user, pw] = Object.entries(opts.accounts)[0];
      const auth = path.join(dir, 'private', 'rpc-auth');
      fs.writeFileSync(auth, `username = ${user}\n`, { mode: 0o600 });
      const { stdout } = await run(
        'rpcclient',
        ['127.0.0.1', '-p', String(port), '-A', auth, '-c', `lookupnames "${name}"`],
        {
          env: { ...process.env, PASSWD: pw },
        },
      );
      const m = /\s(S-1-[\d-]+)\s/.exec(stdout);
      if (!m) throw new Error(`no SID for ${name}: ${stdout}`);
      return m[1];
    },
  };
  return server;
}

/** Remove a stopped server's folder. */
export function removeSambaDir(server: SambaServer): void {
  fs.rmSync(server.dir, { recursive: true, force: true });
}
