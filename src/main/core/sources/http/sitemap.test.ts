import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { parseSitemap } from './sitemap.js';

describe('parseSitemap', () => {
  it('reads urlset locs with entities and namespaces', () => {
    const xml = `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <url><loc> http://h/a?x=1&amp;y=2 </loc><lastmod>2024-01-01</lastmod></url>
  <url><loc>https://h/b</loc></url>
  <url><loc>ftp://h/c</loc></url>
</urlset>`;
    expect(parseSitemap(Buffer.from(xml))).toEqual({
      urls: ['http://h/a?x=1&y=2', 'https://h/b'],
      sitemaps: [],
    });
  });

  it('reads sitemap indexes, gzip-compressed files and plain-text lists', () => {
    const index = '<sitemapindex><sitemap><loc>http://h/s1.xml.gz</loc></sitemap></sitemapindex>';
    expect(parseSitemap(zlib.gzipSync(index))).toEqual({ urls: [], sitemaps: ['http://h/s1.xml.gz'] });
    expect(parseSitemap(Buffer.from('http://h/1\nnot a url\nhttps://h/2\n')).urls).toEqual([
      'http://h/1',
      'https://h/2',
    ]);
  });

  it('returns nothing for garbage and for a gzip bomb past the cap', () => {
    expect(parseSitemap(Buffer.from([0x1f, 0x8b, 1, 2, 3]))).toEqual({ urls: [], sitemaps: [] });
    expect(parseSitemap(zlib.gzipSync(Buffer.alloc(4 * 1024 * 1024, 0x20)), 1024 * 1024)).toEqual({
      urls: [],
      sitemaps: [],
    });
  });
});
