/**
 * A folder source that is a mounted SMB share (a cifs or FUSE mount, `/Volumes/x`, a mapped drive)
 * can be told which share it is: `settings.smb.shareIdentity` names the share (and folder) that
 * appears at the mount root, so its files get the share's NT DACLs instead of the mount's POSIX
 * modes (docs/SMB-HANDLER.md, "Mounted shares").
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SourceKind } from '../../model.js';
import { HandlerError } from '../handler.js';
import { parseSmbAddress, smbUrl, type SmbLocation } from './smb-address.js';

/** What `settings.smb` of a folder source may hold. */
export interface MountedShareSettings {
  /** The share (and folder in it) at the mount root: `smb://server[:port]/share[/path]` or `\\server\share[\path]`. */
  shareIdentity: string;
  /** The local folder where `shareIdentity` appears; default the source's only start address. */
  mountRoot?: string;
  /** A stored credential the DACLs are read with (else the current login). */
  credentialId?: string;
  /** Require traverse permission on every folder from the share root down (default true). */
  checkTraverse?: boolean;
}

/** A validated mounted-share setting. */
export interface MountedShare {
  /** Server, port, share and the folder below the share that the mount root shows. */
  location: SmbLocation;
  /** Canonical URL of `location`. */
  url: string;
  /** Absolute local path of the mount root (no trailing separator). */
  mountRoot: string;
  credentialId: string | null;
  checkTraverse: boolean;
}

const KNOWN = new Set(['shareIdentity', 'mountRoot', 'credentialId', 'checkTraverse']);

/** The parts of a source the setting depends on. */
export interface MountedShareSource {
  kind: SourceKind;
  /** Canonical start addresses (`file:` URLs) or local paths. */
  startAddresses: readonly string[];
  settings: { smb?: Record<string, unknown> };
}

/** Thrown for an invalid mounted-share setting; `message` is meant for the person who set it. */
export class MountedShareError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MountedShareError';
  }
}

function localPathOf(address: string): string {
  return address.startsWith('file:') ? fileURLToPath(address) : address;
}

/** `child` equals `root` or lies below it (both absolute, same platform rules). */
export function isUnder(child: string, root: string): boolean {
  const rel = path.relative(root, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/**
 * The mounted-share setting of a source, validated, or null when it has none.
 *
 * Throws {@link MountedShareError} when `settings.smb.shareIdentity` is set but unusable: not a
 * folder source, not an SMB address with a share, a relative or missing mount root, a start
 * address outside the mount root, unknown keys or wrong types.
 */
export function mountedShareOf(source: MountedShareSource): MountedShare | null {
  const smb = source.settings.smb;
  if (!smb || smb.shareIdentity === undefined || smb.shareIdentity === null) return null;
  if (source.kind !== 'file')
    throw new MountedShareError(
      'settings.smb.shareIdentity is for folder sources (a mounted share); an SMB source already is the share',
    );
  for (const k of Object.keys(smb))
    if (!KNOWN.has(k))
      throw new MountedShareError(
        `settings.smb.${k} is not a setting of a mounted share (known: ${[...KNOWN].join(', ')})`,
      );
  if (typeof smb.shareIdentity !== 'string' || !smb.shareIdentity.trim())
    throw new MountedShareError(
      'settings.smb.shareIdentity must be an SMB address such as smb://server/share',
    );
  let location: SmbLocation;
  try {
    location = parseSmbAddress(smb.shareIdentity);
  } catch (e) {
    throw new MountedShareError(
      `settings.smb.shareIdentity: ${(e as Error).message} (expected smb://server[:port]/share[/folder] or \\\\server\\share[\\folder])`,
    );
  }
  if (location.path.some((s) => s === '.' || s === '..'))
    throw new MountedShareError(
      `settings.smb.shareIdentity must not contain . or .. segments: ${smb.shareIdentity}`,
    );
  if (smb.credentialId !== undefined && (typeof smb.credentialId !== 'string' || !smb.credentialId))
    throw new MountedShareError('settings.smb.credentialId must be the id of a stored credential');
  if (smb.checkTraverse !== undefined && typeof smb.checkTraverse !== 'boolean')
    throw new MountedShareError('settings.smb.checkTraverse must be true or false');
  const starts = source.startAddresses.map(localPathOf);
  let mountRoot: string;
  if (smb.mountRoot === undefined) {
    if (starts.length !== 1)
      throw new MountedShareError(
        'settings.smb.mountRoot is needed when a mounted-share source has several start folders',
      );
    mountRoot = starts[0];
  } else {
    if (typeof smb.mountRoot !== 'string' || !path.isAbsolute(smb.mountRoot))
      throw new MountedShareError(
        `settings.smb.mountRoot must be an absolute local path (where the share is mounted): ${String(smb.mountRoot)}`,
      );
    mountRoot = path.resolve(smb.mountRoot);
  }
  for (const s of starts) {
    if (!isUnder(s, mountRoot))
      throw new MountedShareError(
        `${s} is not under the mount root ${mountRoot}: the share identity ${smbUrl(location)} applies only below it`,
      );
  }
  return {
    location,
    url: smbUrl(location),
    mountRoot,
    credentialId: (smb.credentialId as string | undefined) ?? null,
    checkTraverse: (smb.checkTraverse as boolean | undefined) ?? true,
  };
}

/** The problem with a source's mounted-share setting, or null when it is valid or absent. */
export function mountedShareProblem(source: MountedShareSource): string | null {
  try {
    mountedShareOf(source);
    return null;
  } catch (e) {
    if (e instanceof MountedShareError) return e.message;
    throw e;
  }
}

/**
 * The share path segments of a local path below the mount root (`[...share folder, ...relative]`).
 * Throws HandlerError('not-found') for a path outside the mount root.
 */
export function sharePathOf(share: MountedShare, localPath: string): string[] {
  if (!isUnder(localPath, share.mountRoot))
    throw new HandlerError('not-found', `${localPath} is not under the mount root ${share.mountRoot}`);
  const rel = path.relative(share.mountRoot, localPath);
  return [...share.location.path, ...(rel ? rel.split(path.sep) : [])];
}
