/**
 * Start-address syntax per source kind. Used by the contract's validation and by the renderer's
 * "add source" form so both reject the same inputs with the same words.
 */
import type { SourceKind } from '../main/core/model.js';

const WINDOWS_DRIVE = /^[a-zA-Z]:[\\/]/;
const UNC = /^\\\\[^\\/]+[\\/][^\\/]+/;

/** The kind an address belongs to, or null when it is not a valid start address of any kind. */
export function classifyAddress(address: string): SourceKind | null {
  const a = address.trim();
  if (a === '' || a.includes('\0')) return null;
  if (a.startsWith('/') || a.startsWith('~/') || a === '~' || WINDOWS_DRIVE.test(a)) return 'file';
  if (UNC.test(a)) return 'smb';
  let url: URL;
  try {
    url = new URL(a);
  } catch {
    return null;
  }
  switch (url.protocol) {
    case 'file:':
      return 'file';
    case 'smb:':
      return url.hostname !== '' && url.pathname.length > 1 ? 'smb' : null;
    case 'http:':
    case 'https:':
      return url.hostname !== '' ? 'http' : null;
    default:
      return null;
  }
}

/** Why `address` is not a valid start address for `kind`, or null when it is. */
export function addressProblem(address: string, kind?: SourceKind): string | null {
  const actual = classifyAddress(address);
  if (actual === null) {
    return 'Not a folder path, SMB path (\\\\server\\share or smb://server/share) or http(s) URL';
  }
  if (kind !== undefined && actual !== kind) {
    const expected = { file: 'a folder path', smb: 'an SMB path', http: 'an http(s) URL' }[kind];
    return `Expected ${expected}`;
  }
  return null;
}
