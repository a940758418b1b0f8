import crypto from 'node:crypto';

/**
 * The fingerprint of an item's bytes kept in `documents.content_hash`: an incremental crawl that
 * finds changed timestamps but the same fingerprint only touches the row, and text left at the
 * source is shown only while the file still has it.
 */
export function contentHash(bytes: Uint8Array): string {
  return crypto.createHash('sha1').update(bytes).digest('hex');
}
