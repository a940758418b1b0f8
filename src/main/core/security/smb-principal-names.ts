import type { CurrentUser, SecurityProvider } from './security-provider.js';
import type { SmbPrincipalCache } from './smb-principal-cache.js';

/** SID types that are groups (domain group, alias, well-known group): not the user's own account. */
const GROUP_TYPES = new Set([2, 4, 5]);

/**
 * The user with the SMB groups among its principals named in `groups` (`{ id: SID, name:
 * 'SAMBA\sales' }`), as far as their servers named them; everything else unchanged.
 */
export function withSmbGroupNames(user: CurrentUser, names: SmbPrincipalCache): CurrentUser {
  const known = new Set((user.groups ?? []).map((g) => g.id));
  const extra: { id: string; name: string }[] = [];
  for (const p of user.principals) {
    const n = names.nameOf(p);
    if (!n || !GROUP_TYPES.has(n.type) || known.has(p)) continue;
    known.add(p);
    extra.push({ id: p, name: names.label(p)! });
  }
  return extra.length ? { ...user, groups: [...(user.groups ?? []), ...extra] } : user;
}

/**
 * A security provider whose resolved users (`currentUser`, `userFromUid`) list their SMB groups by
 * name (see {@link withSmbGroupNames}); file capture and everything else is the wrapped provider's.
 */
export function withSmbPrincipalNames(
  security: SecurityProvider,
  names: SmbPrincipalCache,
): SecurityProvider {
  const out = Object.create(security) as SecurityProvider;
  out.currentUser = () => withSmbGroupNames(security.currentUser(), names);
  if (security.userFromUid) {
    const fromUid = security.userFromUid.bind(security);
    out.userFromUid = async (uid) => withSmbGroupNames(await fromUid(uid), names);
  }
  return out;
}
