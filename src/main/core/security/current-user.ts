/**
 * Who is searching: resolving a POSIX user (uid and every gid from the group database) or a
 * Windows user (user and group SIDs from `whoami /user /groups`) into principals.
 */
import { execFile, execFileSync } from 'node:child_process';
import os from 'node:os';
import type { Principal } from '../model.js';
import type { CurrentUser, PrincipalExtender } from './security-provider.js';

/** A POSIX account with every group it belongs to. */
export interface PosixIdentity {
  uid: number;
  user: string;
  /** Primary group first, then supplementary groups; names null where the group has none. */
  groups: { gid: number; name: string | null }[];
}

/**
 * Parse the output of `id NAME` (C locale): `uid=1001(alice) gid=1001(alice) groups=1001(alice),1004(sales)`.
 * Throws when it is not that shape.
 */
export function parseIdOutput(text: string): PosixIdentity {
  const m = /uid=(\d+)(?:\(([^)]*)\))?\s+gid=(\d+)(?:\(([^)]*)\))?(?:\s+groups=(\S+))?/.exec(text);
  if (!m) throw new Error(`unexpected output of id: ${text.trim().slice(0, 200)}`);
  const groups: { gid: number; name: string | null }[] = [{ gid: Number(m[3]), name: m[4] ?? null }];
  for (const g of (m[5] ?? '').split(',')) {
    const gm = /^(\d+)(?:\(([^)]*)\))?$/.exec(g);
    if (gm && !groups.some((x) => x.gid === Number(gm[1])))
      groups.push({ gid: Number(gm[1]), name: gm[2] ?? null });
  }
  return { uid: Number(m[1]), user: m[2] ?? String(m[1]), groups };
}

/** The principals of a POSIX identity, as the capture in posix-security.ts names them. */
export function posixUser(id: PosixIdentity, extend?: PrincipalExtender): CurrentUser {
  const principals: Principal[] = ['everyone', `uid:${id.uid}`, `user:${id.user}`];
  for (const g of id.groups) {
    principals.push(`gid:${g.gid}`);
    if (g.name) principals.push(`group:${g.name}`);
  }
  const names = id.groups.map((g) => g.name ?? String(g.gid));
  const user: CurrentUser = {
    user: id.user,
    principals,
    display: `Searching as ${id.user} · groups: ${names.join(', ')}`,
    id: `uid:${id.uid}`,
    groups: id.groups.map((g) => ({ id: `gid:${g.gid}`, name: g.name ?? String(g.gid) })),
  };
  if (extend) for (const p of extend(user)) if (!principals.includes(p)) principals.push(p);
  return user;
}

const C_ENV = { ...process.env, LC_ALL: 'C' };

function run(cmd: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(cmd, args, { env: C_ENV, encoding: 'utf8', timeout: 10_000 }, (err, stdout) =>
      err ? reject(err) : resolve(stdout),
    );
  });
}

/**
 * The identity of `uid` from the user and group databases (NSS: files, LDAP, sssd…): its name
 * from `getent passwd`, its groups from `id NAME` (getgrouplist, so groups the user was added to
 * after logging in count too). Throws when the uid has no account.
 */
export async function resolvePosixIdentity(uid: number): Promise<PosixIdentity> {
  if (!Number.isInteger(uid) || uid < 0) throw new Error(`not a uid: ${uid}`);
  let name: string;
  try {
    name = (await run('getent', ['passwd', String(uid)])).split(':')[0];
  } catch {
    throw new Error(`no account with uid ${uid}`);
  }
  const id = parseIdOutput(await run('id', ['--', name]));
  if (id.uid !== uid) throw new Error(`account ${name} resolves to uid ${id.uid}, not ${uid}`);
  return id;
}

/**
 * The identity of this process's user: uid and name from the kernel (never from environment
 * variables), groups from the group database plus the process's own supplementary groups.
 */
export function processIdentity(): PosixIdentity {
  const info = os.userInfo();
  let id: PosixIdentity;
  try {
    id = parseIdOutput(
      execFileSync('id', ['--', info.username], { env: C_ENV, encoding: 'utf8', timeout: 10_000 }),
    );
    if (id.uid !== info.uid) throw new Error('uid mismatch');
  } catch {
    id = { uid: info.uid, user: info.username, groups: [{ gid: info.gid, name: null }] };
  }
  for (const gid of process.getgroups?.() ?? [])
    if (!id.groups.some((g) => g.gid === gid)) id.groups.push({ gid, name: null });
  return id;
}

/**
 * Resolves users by uid for a long-running service, caching each answer briefly so a burst of
 * requests costs one lookup while group changes still show within `ttlMs`.
 */
export class PosixUserDirectory {
  private readonly cache = new Map<number, { at: number; user: Promise<CurrentUser> }>();

  constructor(
    private readonly extend?: PrincipalExtender,
    private readonly prepare?: (username: string) => Promise<void>,
    private readonly ttlMs = 30_000,
  ) {}

  /** The user behind `uid`; rejects when the uid has no account. */
  get(uid: number): Promise<CurrentUser> {
    const hit = this.cache.get(uid);
    if (hit && Date.now() - hit.at < this.ttlMs) return hit.user;
    const user = resolvePosixIdentity(uid).then(async (id) => {
      await this.prepare?.(id.user).catch(() => undefined);
      return posixUser(id, this.extend);
    });
    user.catch(() => this.cache.delete(uid));
    this.cache.set(uid, { at: Date.now(), user });
    return user;
  }
}

// ---- Windows ----

/** One group of a Windows token as `whoami /groups` lists it. */
export interface WindowsGroup {
  name: string;
  type: string;
  sid: string;
  attributes: string;
}

/** A Windows token: the user's SID and its groups. */
export interface WindowsIdentity {
  user: string;
  sid: string;
  groups: WindowsGroup[];
}

/**
 * Parse `whoami /user /groups` output, in the CSV form (`/fo csv`, what Trawl runs) or the default
 * table form. Throws when no user SID is found.
 */
export function parseWhoami(text: string): WindowsIdentity {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  return lines.some((l) => l.startsWith('"')) ? parseWhoamiCsv(lines) : parseWhoamiTable(lines);
}

function csvFields(line: string): string[] {
  const out: string[] = [];
  const re = /"((?:[^"]|"")*)"(?:,|$)/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(line))) out.push(m[1].replace(/""/g, '"'));
  return out;
}

function parseWhoamiCsv(lines: string[]): WindowsIdentity {
  let user: { user: string; sid: string } | null = null;
  const groups: WindowsGroup[] = [];
  let header: string[] = [];
  for (const line of lines) {
    if (!line.trim()) {
      header = [];
      continue;
    }
    const f = csvFields(line);
    if (header.length === 0) {
      header = f;
      continue;
    }
    if (header.length === 2) user = { user: f[0], sid: f[1] };
    else if (header.length >= 4) groups.push({ name: f[0], type: f[1], sid: f[2], attributes: f[3] ?? '' });
  }
  if (!user || !/^S-1-/.test(user.sid)) throw new Error('whoami: no user SID in the output');
  return { ...user, groups: groups.filter((g) => /^S-1-/.test(g.sid)) };
}

/** Table form: column widths come from the `====` rule under each header. */
function parseWhoamiTable(lines: string[]): WindowsIdentity {
  let user: { user: string; sid: string } | null = null;
  const groups: WindowsGroup[] = [];
  for (let i = 1; i < lines.length; i++) {
    if (!/^=+( =+)+\s*$/.test(lines[i])) continue;
    const cols: [number, number][] = [];
    const re = /=+/g;
    let m: RegExpExecArray | null;
    while ((m = re.exec(lines[i]))) cols.push([m.index, m.index + m[0].length]);
    const cut = (l: string, c: number): string =>
      l.slice(cols[c][0], c + 1 < cols.length ? cols[c + 1][0] : undefined).trim();
    for (let j = i + 1; j < lines.length && lines[j].trim(); j++) {
      const l = lines[j];
      if (cols.length === 2) user = { user: cut(l, 0), sid: cut(l, 1) };
      else if (cols.length >= 4)
        groups.push({ name: cut(l, 0), type: cut(l, 1), sid: cut(l, 2), attributes: cut(l, 3) });
    }
  }
  if (!user || !/^S-1-/.test(user.sid)) throw new Error('whoami: no user SID in the output');
  return { ...user, groups: groups.filter((g) => /^S-1-/.test(g.sid)) };
}

/** Domain-relative RIDs that SDDL abbreviates (`DA` = Domain Admins…), see windows-acl.ts. */
const DOMAIN_ALIASES: Record<number, string> = {
  512: 'DA',
  513: 'DU',
  514: 'DG',
  515: 'DC',
  516: 'DD',
  517: 'CA',
  518: 'SA',
  519: 'EA',
  520: 'PA',
  553: 'RS',
};

/**
 * The principals of a Windows token: `everyone`, the user SID and every enabled group SID. Groups
 * "used for deny only" become `denyonly:SID` (they match deny entries only); logon-session and
 * integrity-label SIDs are left out.
 */
export function windowsUser(id: WindowsIdentity, extend?: PrincipalExtender): CurrentUser {
  const principals: Principal[] = ['everyone', id.sid];
  const shown: { id: Principal; name: string }[] = [];
  for (const g of id.groups) {
    if (/^S-1-16-/.test(g.sid) || /^S-1-5-5-/.test(g.sid)) continue;
    const denyOnly = /deny only/i.test(g.attributes);
    principals.push(denyOnly ? `denyonly:${g.sid}` : g.sid);
    const rid = /^S-1-5-21-\d+-\d+-\d+-(\d+)$/.exec(g.sid);
    if (rid && DOMAIN_ALIASES[Number(rid[1])] && !denyOnly)
      principals.push(`sddl:${DOMAIN_ALIASES[Number(rid[1])]}`);
    if (!denyOnly && /^(group|alias)$/i.test(g.type))
      shown.push({ id: g.sid, name: g.name.replace(/^.*\\/, '') });
  }
  const name = id.user.replace(/^.*\\/, '');
  const user: CurrentUser = {
    user: name,
    principals,
    display: `Searching as ${name}${shown.length ? ` · groups: ${shown.map((g) => g.name).join(', ')}` : ''}`,
    id: id.sid,
    groups: shown,
  };
  if (extend) for (const p of extend(user)) if (!principals.includes(p)) principals.push(p);
  return user;
}

/** The Windows identity of this process, from `whoami /user /groups /fo csv`. */
export function processWindowsIdentity(): WindowsIdentity {
  return parseWhoami(
    execFileSync('whoami', ['/user', '/groups', '/fo', 'csv'], {
      encoding: 'utf8',
      timeout: 15_000,
      windowsHide: true,
    }),
  );
}
