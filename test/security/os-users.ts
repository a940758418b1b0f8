/**
 * Real OS users for the security tests: alice, bob, carol; groups sales (alice, carol) and eng
 * (bob). Created idempotently with groupadd/useradd/usermod when the test runs as root; existing
 * accounts are reused. Ground truth for "may this user read that file" is `test -r` run as the user.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export type TestUser = 'alice' | 'bob' | 'carol';
export const TEST_USERS: readonly TestUser[] = ['alice', 'bob', 'carol'];

export interface OsUsers {
  uid: Record<TestUser | 'nobody', number>;
  gid: { sales: number; eng: number };
}

function has(cmd: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;
}

function idOf(kind: 'passwd' | 'group', name: string): number | null {
  const r = spawnSync('getent', [kind, name], { encoding: 'utf8' });
  return r.status === 0 ? Number(r.stdout.split(':')[2]) : null;
}

/**
 * Make sure the users and groups exist. Returns their ids, or a reason why it cannot (not root,
 * no useradd/runuser/setfacl). Under CI=true a missing prerequisite is an error, not a skip.
 */
export function ensureTestUsers(): { ok: true; users: OsUsers } | { ok: false; reason: string } {
  const missing = ['useradd', 'groupadd', 'usermod', 'runuser', 'setfacl', 'getfacl'].filter((c) => !has(c));
  let reason: string | null = null;
  if (process.getuid?.() !== 0) reason = 'needs root (creates OS users and runs commands as them)';
  else if (missing.length) reason = `missing commands: ${missing.join(', ')}`;
  if (reason) {
    if (process.env.CI === 'true') throw new Error(`CI: the security tests ${reason}`);
    return { ok: false, reason };
  }
  for (const g of ['sales', 'eng']) execFileSync('groupadd', ['-f', g]);
  for (const u of TEST_USERS) {
    if (idOf('passwd', u) === null) execFileSync('useradd', ['-M', '-s', '/usr/sbin/nologin', '-U', u]);
  }
  execFileSync('usermod', ['-aG', 'sales', 'alice']);
  execFileSync('usermod', ['-aG', 'sales', 'carol']);
  execFileSync('usermod', ['-aG', 'eng', 'bob']);
  const uid = (u: string): number => {
    const v = idOf('passwd', u);
    if (v === null) throw new Error(`no user ${u}`);
    return v;
  };
  return {
    ok: true,
    users: {
      uid: { alice: uid('alice'), bob: uid('bob'), carol: uid('carol'), nobody: uid('nobody') },
      gid: { sales: idOf('group', 'sales')!, eng: idOf('group', 'eng')! },
    },
  };
}

/** The files among `files` that `user` may read, by `test -r` run as that user (one process). */
export function readableAs(user: string, files: readonly string[]): Set<string> {
  const out = new Set<string>();
  for (let i = 0; i < files.length; i += 500) {
    const part = files.slice(i, i + 500);
    const r = spawnSync(
      'runuser',
      [
        '-u',
        user,
        '--',
        'sh',
        '-c',
        'for f in "$@"; do test -r "$f" && printf "%s\\0" "$f"; done; exit 0',
        'sh',
        ...part,
      ],
      {
        encoding: 'utf8',
      },
    );
    if (r.status !== 0) throw new Error(`runuser ${user}: ${r.stderr}`);
    for (const f of r.stdout.split('\0')) if (f) out.add(f);
  }
  return out;
}

/** Whether `user` can read the repository (the CLI runs from it through tsx). */
export function repoReadableBy(user: string, repo: string): boolean {
  return (
    spawnSync('runuser', ['-u', user, '--', 'test', '-r', path.join(repo, 'node_modules/tsx/package.json')])
      .status === 0
  );
}

/** A temp folder every user can enter (mkdtemp makes 0700). */
export function sharedTempDir(prefix: string): string {
  const d = fs.mkdtempSync(path.join('/tmp', prefix));
  fs.chmodSync(d, 0o755);
  return d;
}
