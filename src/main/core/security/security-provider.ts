import type { FileSecurityCapture } from '../sources/file/file-handler.js';
import type { Principal } from '../model.js';

/** Who is searching: the principals a query is trimmed to. */
export interface CurrentUser {
  /** Account name, e.g. `alice`. */
  user: string;
  /** Every principal of the user: `everyone`, `uid:…`, `gid:…`, SIDs, `user:name`, `group:name`. */
  principals: Principal[];
  /** One line for the UI: "Searching as alice · groups: alice, sales". */
  display: string;
  /** The account's platform id (`uid:1001`, or a SID), when known. */
  id?: Principal;
  /** The groups named in `display`, with their platform ids (`gid:1004`, SIDs). */
  groups?: { id: Principal; name: string }[];
}

/**
 * The platform's security: who the current user is, and how file items get descriptors.
 * Implemented per platform in this folder and chosen by the composition root.
 */
export interface SecurityProvider {
  /** Resolve the user a query runs as. Resolved once per session by the caller. */
  currentUser(): CurrentUser;
  /** How the file handler captures descriptors; absent = file items carry none. */
  fileCapture?: FileSecurityCapture;
  /**
   * The user behind a POSIX uid, for a service answering other users (the daemon). Absent where
   * the platform has no uids.
   */
  userFromUid?(uid: number): Promise<CurrentUser>;
}

/** Extra principals for a resolved user (e.g. SMB domain SIDs from the SMB handler). */
export type PrincipalExtender = (user: CurrentUser) => Principal[];
