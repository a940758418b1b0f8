import { PosixFileCapture, type PosixCaptureOptions } from './posix-security.js';
import {
  PosixUserDirectory,
  posixUser,
  processIdentity,
  processWindowsIdentity,
  windowsUser,
} from './current-user.js';
import type { CurrentUser, PrincipalExtender, SecurityProvider } from './security-provider.js';
import { WindowsFileCapture } from './windows-acl.js';

/** Options for the platform security providers. */
export interface PlatformSecurityOptions {
  /**
   * Extra principals for every resolved user, e.g. the SMB handler's `resolveSmbPrincipals`
   * (domain SIDs, `S-1-22-*` Unix mappings of a Samba server that shares the user database).
   */
  extraPrincipals?: PrincipalExtender;
  /**
   * Called with a user's name before `userFromUid` computes their principals, so network lookups
   * behind `extraPrincipals` (SMB SIDs) are done by then. Failures are ignored.
   */
  preparePrincipals?: (username: string) => Promise<void>;
  /** POSIX capture tuning (tests). */
  posix?: PosixCaptureOptions;
}

/** A provider whose capture can be told to forget cached folder state (before a crawl). */
export interface PosixSecurityProvider extends SecurityProvider {
  fileCapture: PosixFileCapture;
  userFromUid(uid: number): Promise<CurrentUser>;
}

/**
 * POSIX security: the current user is this process's uid with every group from the group database
 * (plus the process's own), file items carry descriptors from {@link PosixFileCapture}, and
 * `userFromUid` resolves other users for the daemon. The current user is resolved on first use.
 */
export function posixSecurity(opts: PlatformSecurityOptions = {}): PosixSecurityProvider {
  let me: CurrentUser | null = null;
  const directory = new PosixUserDirectory(opts.extraPrincipals, opts.preparePrincipals);
  return {
    currentUser: () => (me ??= posixUser(processIdentity(), opts.extraPrincipals)),
    fileCapture: new PosixFileCapture(opts.posix),
    userFromUid: (uid) => directory.get(uid),
  };
}

/**
 * Windows security: the current user from `whoami /user /groups` (user SID, every group SID,
 * deny-only groups), file items carry their NTFS DACL (batched `icacls /save`).
 */
export function windowsSecurity(opts: PlatformSecurityOptions = {}): SecurityProvider {
  let me: CurrentUser | null = null;
  return {
    currentUser: () => (me ??= windowsUser(processWindowsIdentity(), opts.extraPrincipals)),
    fileCapture: new WindowsFileCapture(),
  };
}

/** The security provider for the platform this process runs on. */
export function platformSecurity(opts: PlatformSecurityOptions = {}): SecurityProvider {
  return process.platform === 'win32' ? windowsSecurity(opts) : posixSecurity(opts);
}
