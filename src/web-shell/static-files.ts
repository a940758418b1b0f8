/**
 * Serves the built renderer: files under one root only, known content types, hashed assets
 * cached, everything else falling back to index.html (the UI is a single page).
 */
import fs from 'node:fs/promises';
import path from 'node:path';

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

export interface StaticFile {
  body: Buffer;
  contentType: string;
  immutable: boolean;
}

/**
 * Resolves a URL path to a file inside `root`, or null when it escapes the root, is not a regular
 * file, or has a content type we do not serve. Paths without an extension resolve to index.html.
 */
export async function readStaticFile(root: string, urlPath: string): Promise<StaticFile | null> {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return null;
  }
  if (decoded.includes('\0') || decoded.includes('\\')) return null;
  const rootAbs = path.resolve(root);
  let rel = path.posix.normalize(decoded).replace(/^\/+/, '');
  if (rel === '' || rel === '.' || path.posix.extname(rel) === '') rel = 'index.html';
  const file = path.resolve(rootAbs, rel);
  if (file !== rootAbs && !file.startsWith(rootAbs + path.sep)) return null;
  const contentType = CONTENT_TYPES[path.extname(file).toLowerCase()];
  if (!contentType) return null;
  try {
    const [realRoot, real] = await Promise.all([fs.realpath(rootAbs), fs.realpath(file)]);
    if (!real.startsWith(realRoot + path.sep)) return null;
    const stat = await fs.stat(real);
    if (!stat.isFile()) return null;
    const body = await fs.readFile(real);
    return { body, contentType, immutable: rel.startsWith('assets/') };
  } catch {
    return null;
  }
}
