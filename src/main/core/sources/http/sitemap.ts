import zlib from 'node:zlib';
import { Parser } from 'htmlparser2';

/** What one sitemap file lists: page URLs (`urlset`) and further sitemaps (`sitemapindex`). */
export interface SitemapContent {
  urls: string[];
  sitemaps: string[];
}

/** Most URLs read from one sitemap file (the sitemaps.org limit). */
export const SITEMAP_MAX_URLS = 50_000;

/**
 * Parse a sitemap (XML `urlset` / `sitemapindex`, optionally gzip-compressed, or a plain-text list
 * of URLs). Never throws: unreadable input yields empty lists. Only absolute http(s) `<loc>`s are
 * returned.
 */
export function parseSitemap(body: Buffer, maxInflated = 64 * 1024 * 1024): SitemapContent {
  let bytes = body;
  if (bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b) {
    try {
      bytes = zlib.gunzipSync(bytes, { maxOutputLength: maxInflated });
    } catch {
      return { urls: [], sitemaps: [] };
    }
  }
  const text = bytes.toString('utf8');
  const out: SitemapContent = { urls: [], sitemaps: [] };
  const isHttp = (s: string): boolean => /^https?:\/\//i.test(s);
  if (!/^\s*(<\?xml|<urlset|<sitemapindex|<!--)/i.test(text)) {
    for (const line of text.split(/\r?\n/)) {
      const s = line.trim();
      if (isHttp(s) && out.urls.length < SITEMAP_MAX_URLS) out.urls.push(s);
    }
    return out;
  }
  const stack: string[] = [];
  let loc: string[] | null = null;
  const parser = new Parser(
    {
      onopentag(name) {
        const local = name.replace(/^.*:/, '').toLowerCase();
        stack.push(local);
        if (local === 'loc') loc = [];
      },
      ontext(t) {
        if (loc) loc.push(t);
      },
      onclosetag(name) {
        const local = name.replace(/^.*:/, '').toLowerCase();
        if (local === 'loc' && loc) {
          const value = loc.join('').trim();
          const parent = stack[stack.length - 2];
          if (isHttp(value)) {
            if (parent === 'sitemap') out.sitemaps.push(value);
            else if (parent === 'url' && out.urls.length < SITEMAP_MAX_URLS) out.urls.push(value);
          }
          loc = null;
        }
        stack.pop();
      },
    },
    { xmlMode: true, decodeEntities: true },
  );
  parser.write(text);
  parser.end();
  return out;
}
