import type { ContentSource, Principal } from '../model.js';
import { hasSmbSecurity, resolveSmbPrincipalsForSources } from '../sources/smb/smb-principals.js';
import type { Credential } from '../credential-store.js';

/**
 * A user's SIDs on the servers of the SMB sources, looked up once per user (the lookup asks each
 * server) and then served synchronously to the current-user resolution, which merges them into
 * the user's principals. Users never looked up get none (their SMB results stay trimmed to what
 * `everyone` may read).
 */
export class SmbPrincipalCache {
  private readonly byUser = new Map<string, Principal[]>();

  constructor(
    private readonly sources: () => ContentSource[],
    private readonly credential: (id: string) => Promise<Credential | null>,
  ) {}

  /** Principals resolved for `username` so far ([] before {@link prefetch}). */
  get(username: string): Principal[] {
    return this.byUser.get(username) ?? [];
  }

  /**
   * Look up `username` on every SMB server (no-op without SMB sources or mounted-share folder
   * sources, or when already known).
   */
  async prefetch(username: string): Promise<void> {
    if (this.byUser.has(username)) return;
    const smb = this.sources().filter(hasSmbSecurity);
    if (smb.length === 0) return;
    const { principals } = await resolveSmbPrincipalsForSources(smb, this.credential, username);
    this.byUser.set(username, principals);
  }
}
