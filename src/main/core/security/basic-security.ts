import os from 'node:os';
import type { SecurityProvider } from './security-provider.js';

/**
 * The fallback security provider: the process's own user, uid and primary gid, and no descriptor
 * capture (file items are visible to everyone). Used where no platform provider applies.
 */
export function basicSecurity(): SecurityProvider {
  const info = os.userInfo();
  const principals = ['everyone', `user:${info.username}`];
  if (info.uid >= 0) principals.push(`uid:${info.uid}`, `gid:${info.gid}`);
  return {
    currentUser: () => ({ user: info.username, principals, display: `Searching as ${info.username}` }),
  };
}
