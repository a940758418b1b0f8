import { HandlerError } from '../handler.js';

/** Where an SMB item lives: server, optional port, share and the decoded path below the share. */
export interface SmbLocation {
  /** Lowercase host name or address (IPv6 without brackets). */
  host: string;
  port: number | null;
  share: string;
  /** Decoded path segments below the share; `[]` is the share root. */
  path: string[];
}

/** How item locations are shown: as the user typed the start address (UNC or URL). */
export type SmbDisplayStyle = 'unc' | 'url';

/** Characters Windows forbids in names; smbclient cannot quote `"` and treats `*?<>` as wildcards. */
const FORBIDDEN = /["*?<>|\\/]/;

function hasControl(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) < 0x20) return true;
  return false;
}

/**
 * Parse `smb://host[:port]/share/path` (percent-encoded segments) or `\\host[:port]\share\path`.
 * Throws HandlerError('not-found') for anything that is not an SMB address with a share.
 */
export function parseSmbAddress(address: string): SmbLocation {
  const raw = address.trim();
  let rest: string;
  let encoded: boolean;
  if (/^smb:\/\//i.test(raw)) {
    rest = raw.slice(6);
    encoded = true;
  } else if (/^\\\\[^\\]/.test(raw)) {
    rest = raw.slice(2).replace(/\\/g, '/');
    encoded = false;
  } else {
    throw new HandlerError('not-found', `not an SMB address: ${address}`);
  }
  const parts = rest.split('/').filter(Boolean);
  if (parts.length < 2)
    throw new HandlerError('not-found', `an SMB address needs a server and a share: ${address}`);
  const [authority, ...segs] = parts;
  const { host, port } = parseAuthority(authority, address);
  const decode = (s: string): string => {
    if (!encoded) return s;
    try {
      return decodeURIComponent(s);
    } catch {
      throw new HandlerError('not-found', `invalid percent-encoding in ${address}`);
    }
  };
  const [share, ...pathSegs] = segs.map(decode);
  return { host, port, share, path: pathSegs };
}

function parseAuthority(authority: string, address: string): { host: string; port: number | null } {
  const m = /^(\[[0-9a-f:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/i.exec(authority);
  if (!m) throw new HandlerError('not-found', `invalid server in SMB address: ${address}`);
  const host = m[1].replace(/^\[|\]$/g, '').toLowerCase();
  const port = m[2] ? Number(m[2]) : null;
  if (port !== null && (port < 1 || port > 65535))
    throw new HandlerError('not-found', `invalid port in ${address}`);
  return { host, port };
}

function authorityOf(loc: SmbLocation): string {
  const host = loc.host.includes(':') ? `[${loc.host}]` : loc.host;
  return loc.port ? `${host}:${loc.port}` : host;
}

/** The canonical URL: `smb://host[:port]/share/seg/…`, each segment percent-encoded. */
export function smbUrl(loc: SmbLocation): string {
  return `smb://${authorityOf(loc)}/${[loc.share, ...loc.path].map((s) => encodeURIComponent(s)).join('/')}`;
}

/** What a person sees: `\\host\share\a\b` or `smb://host/share/a/b` (decoded). */
export function smbDisplay(loc: SmbLocation, style: SmbDisplayStyle): string {
  if (style === 'unc') return `\\\\${authorityOf(loc)}\\${[loc.share, ...loc.path].join('\\')}`;
  return `smb://${authorityOf(loc)}/${[loc.share, ...loc.path].join('/')}`;
}

/** A key for "same server, port and share" (one connection serves it). */
export function shareKey(loc: SmbLocation): string {
  return `${authorityOf(loc)}/${loc.share.toLowerCase()}`;
}

/**
 * The path as smbclient takes it inside double quotes (`a\b`), after checking every segment can be
 * passed: Windows-forbidden characters (which Samba mangles away) are refused with HandlerError('io').
 */
export function smbclientPath(path: readonly string[]): string {
  for (const seg of path) {
    if (!seg || seg === '.' || seg === '..' || FORBIDDEN.test(seg) || hasControl(seg)) {
      throw new HandlerError('io', `name cannot be passed to smbclient: ${JSON.stringify(seg)}`);
    }
  }
  return path.join('\\');
}

/** The `//host/share` service argument of smbclient (no credentials, no path). */
export function smbService(loc: SmbLocation): string {
  return `//${loc.host.includes(':') ? `[${loc.host}]` : loc.host}/${loc.share}`;
}

/**
 * How crawl rules should see an SMB URL: `smb://host[:port]/share/a/b` with every segment fully
 * decoded. (`decodeURI` keeps `%24`, `%23`, `%2C`… encoded, so `**\/$RECYCLE.BIN/**` would not
 * match `$RECYCLE.BIN`.) Returns the input unchanged when it is not an SMB URL.
 */
export function smbRuleTarget(url: string): string {
  try {
    return smbDisplay(parseSmbAddress(url), 'url');
  } catch {
    return url;
  }
}
