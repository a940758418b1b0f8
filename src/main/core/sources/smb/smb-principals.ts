/**
 * Who a user is on an SMB server, as SIDs: what security trimming needs to match the descriptors
 * the SMB handler stores. Resolved through the server with `rpcclient` (LSA name lookups and SAMR
 * group queries), plus the `S-1-22-*` Unix mappings Samba uses for accounts and groups without a
 * Windows identity.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { ContentSource } from '../../model.js';
import { HandlerError } from '../handler.js';
import { parseSmbAddress } from './smb-address.js';
import { credentialIdFor } from './smb-handler.js';
import { mountedShareOf } from './mounted-share-settings.js';
import { ClientCredentials, processFailure, startClient, type SmbCredential } from './smbclient-process.js';
import { ntStatusCode } from './smbclient-output.js';

const execFileP = promisify(execFile);

/** Options for {@link resolveSmbPrincipals}. */
export interface SmbPrincipalOptions {
  /** The rpcclient binary (default `rpcclient`). */
  rpcclient?: string;
  /**
   * The user's Unix group names, looked up on the server as `Unix Group\<name>` (Samba's
   * `S-1-22-2-<gid>`). Default: the local account's groups (`id -Gn`), right when the server shares
   * the workstation's accounts (the same machine, LDAP, or a domain); `false` skips them.
   */
  unixGroups?: readonly string[] | false;
}

/** One `lookupnames` answer: `<name> <SID> (<type name>: <type>)`. */
export interface LookupAnswer {
  name: string;
  sid: string;
  type: number;
}

/** Parse rpcclient `lookupnames` output lines; unmapped names (`S-0-0`, type 8) are left out. */
export function parseLookupNames(lines: readonly string[]): LookupAnswer[] {
  const out: LookupAnswer[] = [];
  for (const line of lines) {
    const m = /^(.*) (S-1-\d+(?:-\d+)*) \(([^:()]*): (\d+)\)$/.exec(line);
    if (!m) continue;
    const type = Number(m[4]);
    if (type === 8) continue;
    out.push({ name: m[1], sid: m[2], type });
  }
  return out;
}

/** Parse the RIDs of `queryusergroups` / `queryuseraliases` output (`\tgroup rid:[0x201] attr:[0x7]`, `\trid:[0x220]`). */
export function parseRids(lines: readonly string[]): number[] {
  const out: number[] = [];
  for (const line of lines) {
    const m = /^\s+(?:group )?rid:\[0x([0-9a-f]+)\]/i.exec(line);
    if (m) out.push(parseInt(m[1], 16));
  }
  return out;
}

async function rpc(
  bin: string,
  target: { host: string; port: number | null },
  creds: ClientCredentials,
  commands: string[],
): Promise<string[]> {
  const lines: string[] = [];
  const args = [
    target.host.includes(':') ? `[${target.host}]` : target.host,
    ...(target.port ? ['-p', String(target.port)] : []),
    ...creds.args,
    '-c',
    commands.join('; '),
  ];
  const proc = startClient(
    bin,
    args,
    creds.env,
    (l) => lines.push(l),
    (l) => lines.push(l),
  );
  proc.endInput();
  const end = await proc.ended;
  for (const l of lines) {
    const m = /^Cannot connect to server\.\s+Error was (NT_STATUS_[A-Z0-9_]+)/.exec(l);
    if (m) {
      const code = ntStatusCode(m[1]);
      throw new HandlerError(
        code === 'auth' ? 'auth' : 'unavailable',
        `rpcclient could not connect to ${target.host} (${m[1]})`,
      );
    }
  }
  if (end.spawnError) throw processFailure('rpcclient', end);
  return lines;
}

/** Quote a name for rpcclient's command line (its tokenizer honours double quotes). */
function quote(name: string): string {
  if (/["\r\n;]/.test(name))
    throw new HandlerError('io', `name cannot be passed to rpcclient: ${JSON.stringify(name)}`);
  return `"${name}"`;
}

async function localGroups(user: string): Promise<string[]> {
  if (process.platform === 'win32') return [];
  try {
    const { stdout } = await execFileP('id', ['-Gn', '--', user], { timeout: 5000 });
    return stdout.trim().split(/\s+/).filter(Boolean);
  } catch {
    return [];
  }
}

/**
 * The SIDs `username` holds on the server of `url` (`smb://host[:port]/share` or UNC): the user's
 * SID, its domain groups and aliases, the Unix mappings `S-1-22-1-<uid>` / `S-1-22-2-<gid>` where
 * the server is Samba, plus `everyone`, Authenticated Users (S-1-5-11) and Network (S-1-5-2).
 * Names may be `DOMAIN\name`. Connects as `credential` (else the current login).
 *
 * Throws HandlerError: `auth` when the server refuses the connecting account, `not-found` when it
 * does not know `username`, `unavailable` when it cannot be reached.
 */
export async function resolveSmbPrincipals(
  url: string,
  credential: SmbCredential | null | undefined,
  username: string,
  opts: SmbPrincipalOptions = {},
): Promise<string[]> {
  const loc = parseSmbAddress(url);
  const bin = opts.rpcclient ?? 'rpcclient';
  const bare = username.replace(/^.*[\\/]/, '');
  const groups = opts.unixGroups === false ? [] : (opts.unixGroups ?? (await localGroups(bare)));
  const creds = new ClientCredentials(credential ?? null);
  try {
    const names = [username, `Unix User\\${bare}`, ...groups.map((g) => `Unix Group\\${g}`)];
    const first = parseLookupNames(
      await rpc(
        bin,
        loc,
        creds,
        names.map((n) => `lookupnames ${quote(n)}`),
      ),
    );
    const user = first.find((a) => a.name.toLowerCase() === username.toLowerCase() && a.type === 1);
    const unixUser = first.find((a) => a.name.toLowerCase() === `unix user\\${bare}`.toLowerCase());
    if (!user && !unixUser)
      throw new HandlerError('not-found', `the server does not know the user ${username}`);
    const sids = new Set<string>(['everyone', 'S-1-5-11', 'S-1-5-2']);
    for (const a of first) if (a.type !== 8) sids.add(a.sid.toUpperCase());
    const userSid = (user ?? unixUser)!.sid;
    const dom = /^(S-1-5-21-\d+-\d+-\d+)-(\d+)$/.exec(userSid);
    if (dom) {
      const [, domainSid, rid] = dom;
      const lines = await rpc(bin, loc, creds, [`queryusergroups ${rid}`]);
      for (const r of parseRids(lines)) sids.add(`${domainSid}-${r}`);
      const domAliases = parseRids(await rpc(bin, loc, creds, [`queryuseraliases domain ${userSid}`]));
      for (const r of domAliases) sids.add(`${domainSid}-${r}`);
      const builtin = parseRids(await rpc(bin, loc, creds, [`queryuseraliases builtin ${userSid}`]));
      for (const r of builtin) sids.add(`S-1-5-32-${r}`);
    }
    return [...sids];
  } finally {
    creds.dispose();
  }
}

/**
 * Whether a source's descriptors are SMB SIDs: an SMB source, or a folder source that is a mounted
 * share with a valid `settings.smb.shareIdentity`.
 */
export function hasSmbSecurity(source: ContentSource): boolean {
  return smbServersOf([source]).length > 0;
}

/**
 * The SMB addresses whose servers give the SIDs of these sources' descriptors, each with the
 * credential the source reads them with: every start address of SMB sources, the share identity
 * of mounted-share folder sources (invalid settings are left out).
 */
export function smbServersOf(
  sources: readonly ContentSource[],
): { url: string; credentialId: string | null }[] {
  const out: { url: string; credentialId: string | null }[] = [];
  for (const s of sources) {
    if (s.kind === 'smb') {
      for (const url of s.startAddresses) {
        try {
          parseSmbAddress(url);
          out.push({ url, credentialId: credentialIdFor(s, url) });
        } catch {
          /* not an SMB address */
        }
      }
    } else if (s.kind === 'file') {
      try {
        const m = mountedShareOf(s);
        if (m) out.push({ url: m.url, credentialId: m.credentialId });
      } catch {
        /* an invalid setting: the crawl reports it */
      }
    }
  }
  return out;
}

/** What {@link resolveSmbPrincipalsForSources} found. */
export interface SmbPrincipalsResult {
  /** Every SID the user holds on any of the servers, `everyone` included. */
  principals: string[];
  /** Servers that could not answer (the user's results from them stay trimmed to `everyone`). */
  errors: { server: string; message: string }[];
}

/**
 * A user's SIDs on every server the SMB sources (and mounted-share folder sources) crawl, one
 * lookup per server (asked with the credential the source crawls with), merged: what the current-user resolution adds to a user's
 * principals so SMB results trim correctly. Never throws for a server that cannot answer.
 */
export async function resolveSmbPrincipalsForSources(
  sources: readonly ContentSource[],
  credential: (id: string) => Promise<SmbCredential | null>,
  username: string,
  opts: SmbPrincipalOptions = {},
): Promise<SmbPrincipalsResult> {
  const servers = new Map<string, { url: string; credentialId: string | null }>();
  for (const { url, credentialId } of smbServersOf(sources)) {
    const loc = parseSmbAddress(url);
    const key = `${loc.host}:${loc.port ?? 445}`;
    if (!servers.has(key)) servers.set(key, { url, credentialId });
  }
  const principals = new Set<string>(['everyone']);
  const errors: SmbPrincipalsResult['errors'] = [];
  for (const [server, { url, credentialId }] of servers) {
    try {
      const cred = credentialId ? await credential(credentialId) : null;
      for (const p of await resolveSmbPrincipals(url, cred, username, opts)) principals.add(p);
    } catch (e) {
      errors.push({ server, message: (e as Error).message });
    }
  }
  return { principals: [...principals], errors };
}
