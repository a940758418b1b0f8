import type { ContentSource, Principal } from '../model.js';
import {
  hasSmbSecurity,
  resolveSmbPrincipalsForSources,
  smbServersOf,
} from '../sources/smb/smb-principals.js';
import { SidNameCache, sidLabel, type SidName, type SidNameCacheOptions } from '../sources/smb/sid-names.js';
import type { Credential } from '../credential-store.js';

/** Options for {@link SmbPrincipalCache}. */
export interface SmbPrincipalCacheOptions {
  /** Name the SIDs found (`rpcclient lookupsids`, one process per server; default true). */
  names?: boolean;
  /** SID-name lookups (rpcclient binary, batch sizes, lifetimes). */
  sidNames?: SidNameCacheOptions;
}

/**
 * A user's SIDs on the servers of the SMB sources, looked up once per user (the lookup asks each
 * server) and then served synchronously to the current-user resolution, which merges them into
 * the user's principals. Users never looked up get none (their SMB results stay trimmed to what
 * `everyone` may read). The SIDs found are also named by their servers (`SAMBA\alice`), for
 * showing principals to people; names never take part in trimming.
 */
export class SmbPrincipalCache {
  private readonly byUser = new Map<string, Principal[]>();
  private readonly named = new Map<string, SidName>();
  private readonly sidNames: SidNameCache;

  constructor(
    private readonly sources: () => ContentSource[],
    private readonly credential: (id: string) => Promise<Credential | null>,
    private readonly opts: SmbPrincipalCacheOptions = {},
  ) {
    this.sidNames = new SidNameCache(opts.sidNames);
  }

  /** Principals resolved for `username` so far ([] before {@link prefetch}). */
  get(username: string): Principal[] {
    return this.byUser.get(username) ?? [];
  }

  /** The server's name for an SMB SID seen so far (`SAMBA\alice`), or undefined. */
  label(principal: Principal): string | undefined {
    const n = this.named.get(principal.toUpperCase());
    return n ? sidLabel(n) : undefined;
  }

  /** The server's answer for an SMB SID seen so far (name, domain, SID type), or undefined. */
  nameOf(principal: Principal): SidName | undefined {
    return this.named.get(principal.toUpperCase());
  }

  /**
   * Look up `username` on every SMB server (no-op without SMB sources or mounted-share folder
   * sources, or when already known), then name the SIDs found: one `lookupsids` process per
   * server for the SIDs not named yet (a server that cannot answer leaves them unnamed).
   */
  async prefetch(username: string): Promise<void> {
    if (this.byUser.has(username)) return;
    const smb = this.sources().filter(hasSmbSecurity);
    if (smb.length === 0) return;
    const { principals } = await resolveSmbPrincipalsForSources(smb, this.credential, username);
    if (this.opts.names !== false) await this.name(smb, principals);
    this.byUser.set(username, principals);
  }

  private async name(sources: ContentSource[], principals: Principal[]): Promise<void> {
    const servers = new Map<string, { url: string; credentialId: string | null }>();
    for (const s of smbServersOf(sources)) {
      const host = s.url.replace(/^smb:\/\//i, '').split('/')[0];
      if (!servers.has(host)) servers.set(host, s);
    }
    for (const { url, credentialId } of servers.values()) {
      const unnamed = principals.filter((p) => p.startsWith('S-') && !this.named.has(p.toUpperCase()));
      if (!unnamed.length) return;
      try {
        const cred = credentialId ? await this.credential(credentialId) : null;
        for (const [sid, n] of await this.sidNames.names(url, cred, unnamed)) if (n) this.named.set(sid, n);
      } catch {
        /* names are for display: a server that cannot answer leaves its SIDs unnamed */
      }
    }
  }
}
