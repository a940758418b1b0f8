import { TrawlService } from './service.js';
import { openDatabase } from './index/database.js';
import { HandlerRegistry } from './sources/registry.js';
import { createFileHandler } from './sources/file/file-handler.js';
import { createHttpHandler } from './sources/http/http-handler.js';
import { createSmbHandler } from './sources/smb/smb-handler.js';
import { withMountedShares } from './sources/smb/mounted-share-handler.js';
import { SourceStore } from './index/source-store.js';
import { SmbPrincipalCache } from './security/smb-principal-cache.js';
import { withSmbPrincipalNames } from './security/smb-principal-names.js';
import os from 'node:os';
import { FileCredentialStore, type CredentialStore } from './credential-store.js';
import type { SecurityProvider } from './security/security-provider.js';
import { settingsValue } from './index/settings-value.js';
import { platformSecurity, type PlatformSecurityOptions } from './security/platform-security.js';
import { createFilterRunner } from './filters/filter-runner.js';
import { createContentExtractor } from './filters/content-extractor.js';

/** Options for {@link createEngine}. */
export interface EngineOptions {
  dataDir: string;
  /** Filter worker threads (default: cores - 1, at least 1). */
  filterWorkers?: number;
  /**
   * The security provider, or a factory given the engine's platform options (SMB principals) —
   * the daemon uses one to keep the provider's `userFromUid` and capture.
   */
  security?: SecurityProvider | ((opts: PlatformSecurityOptions) => SecurityProvider);
  credentials?: CredentialStore;
  maxConcurrentCrawls?: number;
}

/**
 * The composition root: opens the index, registers every protocol handler and filter explicitly,
 * and returns the service. Nothing registers itself on import.
 */
export async function createEngine(opts: EngineOptions): Promise<TrawlService> {
  const db = openDatabase(opts.dataDir);
  const credentials = opts.credentials ?? new FileCredentialStore(opts.dataDir);
  const sources = new SourceStore(db);
  const smbPrincipals = new SmbPrincipalCache(
    () => sources.list(),
    (id) => credentials.get(id),
  );
  // The current user's SIDs on SMB servers must be known before the first query is trimmed.
  await smbPrincipals.prefetch(os.userInfo().username).catch(() => undefined);
  const platformOpts: PlatformSecurityOptions = {
    extraPrincipals: (u) => smbPrincipals.get(u.user),
    preparePrincipals: (username) => smbPrincipals.prefetch(username),
    posix: { memory: settingsValue(db, 'security.posix-folder-acls') },
  };
  const security =
    typeof opts.security === 'function'
      ? opts.security(platformOpts)
      : (opts.security ?? platformSecurity(platformOpts));
  const handlers = new HandlerRegistry()
    // folder sources that are mounted SMB shares (settings.smb.shareIdentity) get the share's DACLs
    .register(withMountedShares(createFileHandler({ security: security.fileCapture })))
    .register(createHttpHandler())
    .register(createSmbHandler());
  const extractor = createContentExtractor(createFilterRunner({ workers: opts.filterWorkers }));
  return new TrawlService({
    dataDir: opts.dataDir,
    db,
    handlers,
    extractor,
    // the user's SMB groups named by their servers (the service's whoami)
    security: withSmbPrincipalNames(security, smbPrincipals),
    credentials,
    preparePrincipals: (username) => smbPrincipals.prefetch(username),
    maxConcurrentCrawls: opts.maxConcurrentCrawls,
  });
}
