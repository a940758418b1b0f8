/**
 * Names for SIDs (`S-1-5-21-…-1001` → `SAMBA\alice`), asked of the server with `rpcclient
 * lookupsids`: one process per batch of SIDs (never one per SID), credentials as for smbclient
 * (authentication file + `PASSWD` in the environment, never on a command line), answers cached per
 * server. Descriptors keep SIDs; names are for showing principals to people.
 */
import { HandlerError } from '../handler.js';
import { parseSmbAddress } from './smb-address.js';
import { ntStatusCode } from './smbclient-output.js';
import { ClientCredentials, processFailure, startClient, type SmbCredential } from './smbclient-process.js';

/** A SID as the server names it. */
export interface SidName {
  sid: string;
  /** The domain part (`SAMBA`, `BUILTIN`, `NT Authority`, `Unix User`); empty for `\Everyone`. */
  domain: string;
  name: string;
  /** The SID_NAME_USE: 1 user, 2 domain group, 4 alias, 5 well-known group, 9 computer… */
  type: number;
}

/** `DOMAIN\name`, or `name` when the domain part is empty. */
export function sidLabel(n: SidName): string {
  return n.domain ? `${n.domain}\\${n.name}` : n.name;
}

const MAX_SUB = 2 ** 32 - 1;

/** Whether `s` is a well-formed SID string (revision 1, authority < 2^48, 1–15 32-bit sub-authorities). */
export function isSid(s: string): boolean {
  const m = /^S-1-(\d{1,15})((?:-\d{1,10}){1,15})$/i.exec(s);
  if (!m || Number(m[1]) >= 2 ** 48) return false;
  return m[2]
    .slice(1)
    .split('-')
    .every((x) => Number(x) <= MAX_SUB);
}

/** What one `lookupsids` run answered. */
export interface LookupSidsResult {
  /** Per SID asked and answered: its name, or null when the server does not know it (type 8). */
  names: Map<string, SidName | null>;
  /** `result was NT_STATUS_…` lines: a command whose SIDs got no answer. */
  errors: string[];
}

const ANSWER = /^(S-1-\d+(?:-\d+)+) (.*) \((\d+)\)$/;
const STATUS = /^result was (NT_STATUS_[A-Z0-9_]+)$/;
const CONNECT = /^Cannot connect to server\.\s+Error was (NT_STATUS_[A-Z0-9_]+)/;

/**
 * Parse rpcclient's stdout for `lookupsids` commands asking about `asked` (upper-case SIDs).
 * Strict: every non-empty line must be an answer for a SID asked (`<SID> <DOMAIN>\<name>
 * (<type>)`, names may hold spaces, brackets and any script) or a `result was NT_STATUS_…` line;
 * anything else throws HandlerError('io'), as does an answer for a SID nobody asked about.
 * Type 8 (`*unknown*\*unknown*`) means the server does not know the SID.
 */
export function parseLookupSids(lines: readonly string[], asked: ReadonlySet<string>): LookupSidsResult {
  const names = new Map<string, SidName | null>();
  const errors: string[] = [];
  for (const line of lines) {
    if (!line.trim()) continue;
    const status = STATUS.exec(line);
    if (status) {
      errors.push(status[1]);
      continue;
    }
    const m = ANSWER.exec(line);
    if (!m)
      throw new HandlerError('io', `unexpected rpcclient output: ${JSON.stringify(line.slice(0, 200))}`);
    const sid = m[1].toUpperCase();
    if (!asked.has(sid))
      throw new HandlerError(
        'io',
        `rpcclient answered for a SID not asked about: ${JSON.stringify(line.slice(0, 200))}`,
      );
    const type = Number(m[3]);
    const full = m[2];
    const cut = full.indexOf('\\');
    if (type === 8) {
      names.set(sid, null);
      continue;
    }
    names.set(sid, {
      sid,
      domain: cut < 0 ? '' : full.slice(0, cut),
      name: cut < 0 ? full : full.slice(cut + 1),
      type,
    });
  }
  return { names, errors };
}

/** Options for {@link lookupSidNames}. */
export interface LookupSidsOptions {
  /** The rpcclient binary (default `rpcclient`). */
  rpcclient?: string;
  /** SIDs per `lookupsids` command (default 100). */
  perCommand?: number;
  /** SIDs per rpcclient process (default 1,000: the command line stays far below its limits). */
  perProcess?: number;
}

/**
 * Name `sids` on the server of `url` (`smb://host[:port]/share` or UNC), connecting as
 * `credential` (else the current login). One rpcclient process per `perProcess` SIDs. Malformed
 * SIDs are not sent. The map holds every SID the server answered for (null: unknown to it); SIDs of
 * a command the server refused are absent.
 *
 * Throws HandlerError `auth` (login refused), `unavailable` (server unreachable, rpcclient
 * missing), `io` (output it cannot read).
 */
export async function lookupSidNames(
  url: string,
  credential: SmbCredential | null | undefined,
  sids: readonly string[],
  opts: LookupSidsOptions = {},
): Promise<Map<string, SidName | null>> {
  const loc = parseSmbAddress(url);
  const wanted = [...new Set(sids.map((s) => s.toUpperCase()).filter(isSid))];
  const out = new Map<string, SidName | null>();
  if (!wanted.length) return out;
  const perCommand = Math.max(1, opts.perCommand ?? 100);
  const perProcess = Math.max(perCommand, opts.perProcess ?? 1000);
  const creds = new ClientCredentials(credential ?? null);
  try {
    for (let i = 0; i < wanted.length; i += perProcess) {
      const batch = wanted.slice(i, i + perProcess);
      const commands: string[] = [];
      for (let j = 0; j < batch.length; j += perCommand)
        commands.push(`lookupsids ${batch.slice(j, j + perCommand).join(' ')}`);
      const stdout: string[] = [];
      const stderr: string[] = [];
      const proc = startClient(
        opts.rpcclient ?? 'rpcclient',
        [
          loc.host.includes(':') ? `[${loc.host}]` : loc.host,
          ...(loc.port ? ['-p', String(loc.port)] : []),
          ...creds.args,
          '-c',
          commands.join('; '),
        ],
        creds.env,
        (l) => stdout.push(l),
        (l) => stderr.push(l),
      );
      proc.endInput();
      const end = await proc.ended;
      if (end.spawnError) throw processFailure('rpcclient', end);
      for (const l of [...stderr, ...stdout]) {
        const c = CONNECT.exec(l);
        if (c) {
          const code = ntStatusCode(c[1]);
          throw new HandlerError(
            code === 'auth' ? 'auth' : 'unavailable',
            `rpcclient could not connect to ${loc.host} (${c[1]})`,
          );
        }
      }
      const { names } = parseLookupSids(stdout, new Set(batch));
      if (!names.size && end.code !== 0) throw processFailure('rpcclient', end);
      for (const [sid, n] of names) out.set(sid, n);
    }
  } finally {
    creds.dispose();
  }
  return out;
}

/** Options for {@link SidNameCache}. */
export interface SidNameCacheOptions extends LookupSidsOptions {
  /** How long a name is kept (default 1 hour). */
  ttlMs?: number;
  /** How long "the server does not know this SID" is kept (default 10 minutes). */
  unknownTtlMs?: number;
  /** Clock (tests). */
  now?: () => number;
}

interface Cached {
  name: SidName | null;
  until: number;
}

/**
 * SID names per server, looked up in batches and cached: concurrent requests for the same SIDs
 * share one lookup; only SIDs not known (or expired) cost a process. Failed lookups are not cached.
 */
export class SidNameCache {
  private readonly servers = new Map<string, Map<string, Cached>>();
  private readonly inFlight = new Map<string, Map<string, Promise<Map<string, SidName | null>>>>();

  constructor(private readonly opts: SidNameCacheOptions = {}) {}

  /**
   * Names for `sids` on the server of `url`: a map with every SID the server answered for (null:
   * unknown to it). Throws as {@link lookupSidNames} when a lookup is needed and fails.
   */
  async names(
    url: string,
    credential: SmbCredential | null | undefined,
    sids: readonly string[],
  ): Promise<Map<string, SidName | null>> {
    const loc = parseSmbAddress(url);
    const server = `${loc.host}:${loc.port ?? 445}`;
    let cache = this.servers.get(server);
    if (!cache) this.servers.set(server, (cache = new Map()));
    let flying = this.inFlight.get(server);
    if (!flying) this.inFlight.set(server, (flying = new Map()));
    const now = (this.opts.now ?? Date.now)();
    const out = new Map<string, SidName | null>();
    const missingSet = new Set<string>();
    const waits = new Set<Promise<Map<string, SidName | null>>>();
    for (const raw of sids) {
      const sid = raw.toUpperCase();
      if (!isSid(sid)) continue;
      const c = cache.get(sid);
      if (c && c.until > now) out.set(sid, c.name);
      else if (flying.has(sid)) waits.add(flying.get(sid)!);
      else missingSet.add(sid);
    }
    const missing = [...missingSet];
    if (missing.length) {
      const p = lookupSidNames(url, credential, missing, this.opts);
      for (const sid of missing) flying.set(sid, p);
      waits.add(p);
      const f = flying;
      const c = cache;
      void p.then(
        (found) => {
          const t = (this.opts.now ?? Date.now)();
          for (const [sid, name] of found)
            c.set(sid, {
              name,
              until: t + (name ? (this.opts.ttlMs ?? 3_600_000) : (this.opts.unknownTtlMs ?? 600_000)),
            });
          for (const sid of missing) if (f.get(sid) === p) f.delete(sid);
        },
        () => {
          for (const sid of missing) if (f.get(sid) === p) f.delete(sid);
        },
      );
    }
    for (const found of await Promise.all(waits)) {
      for (const raw of sids) {
        const sid = raw.toUpperCase();
        if (found.has(sid)) out.set(sid, found.get(sid)!);
      }
    }
    return out;
  }
}
