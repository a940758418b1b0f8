import zlib from 'node:zlib';

/** Largest body text kept per document (characters); longer text is cut before indexing. */
export const MAX_BODY_CHARS = 4_000_000;

/**
 * Compress a document's extracted text for `bodies.body_z`. The full-text index is contentless,
 * so this compressed copy is what snippets and the preview read.
 */
export function encodeBody(text: string): Buffer {
  return zlib.deflateRawSync(Buffer.from(text, 'utf8'), { level: 4 });
}

/** Inverse of {@link encodeBody}; `null`/empty gives ''. */
export function decodeBody(blob: Buffer | Uint8Array | null | undefined): string {
  if (!blob || blob.length === 0) return '';
  return zlib.inflateRawSync(blob).toString('utf8');
}
