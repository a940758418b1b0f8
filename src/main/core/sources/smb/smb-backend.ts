import type { SmbLocation } from './smb-address.js';
import type { ListingResult, SmbEntry } from './smbclient-output.js';
import type { SmbCredential } from './smbclient-process.js';

/** One share as a back-end serves it, for one crawl. */
export interface SmbTarget {
  /** Server, port and share (`path` is ignored). */
  location: SmbLocation;
  /** The crawl account, or null for the current login. */
  credential: SmbCredential | null;
  /** Capture each entry's DACL while listing. */
  captureAcls: boolean;
  /** Aborted when the crawl stops: running client processes are ended. */
  signal: AbortSignal;
}

/**
 * How the SMB handler reaches a share. One instance serves one share for one crawl and is closed
 * at its end. Paths are segments below the share (`[]` is the share root).
 *
 * Errors are `HandlerError`s: `auth` (login refused), `not-found` (share or path missing),
 * `access-denied`, `unavailable` (server unreachable or gone: every later call fails the same way),
 * `io` (anything else, for that call only).
 */
export interface SmbBackend {
  /** The entries for `paths` (never the root), in order, each listed by itself. */
  stat(paths: readonly (readonly string[])[]): Promise<ListingResult[]>;
  /** The entries of a folder; with `captureAcls`, each carries its DACL. */
  list(folder: readonly string[]): Promise<SmbEntry[]>;
  /**
   * Optional hint: these folders will probably be listed soon, so a back-end may list them ahead,
   * batched with others. Never throws; a later `list` of the same folder gets that listing.
   */
  prefetch?(folders: readonly (readonly string[])[]): void;
  /**
   * At most `maxBytes` of a file; `size` is its listed size. A file over `maxBytes` may come back
   * empty (`truncated`); with `head`, a back-end that can read a range returns its first
   * `maxBytes` bytes.
   */
  read(
    file: readonly string[],
    size: number,
    maxBytes: number,
    head?: boolean,
  ): Promise<{ bytes: Buffer; truncated: boolean }>;
  /** End every process, remove temporary files. Idempotent. */
  close(): Promise<void>;
}

/** Creates the back-end for a share. */
export type SmbBackendFactory = (target: SmbTarget) => SmbBackend;
