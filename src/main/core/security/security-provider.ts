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
}
