import { describe, expect, it } from 'vitest';
import { canonicalKey, fetchUrl, originKey, parseHttpUrl, siteKey } from './url-canon.js';

describe('canonicalKey', () => {
  it('lowercases scheme and host, drops the default port, fragment and credentials', () => {
    expect(canonicalKey('HTTP://User:Secret@Example.COM:80/A/b.html#Section')).toBe(
      'http://example.com/A/b.html',
    );
    expect(canonicalKey('https://example.com:443/x')).toBe('https://example.com/x');
    expect(canonicalKey('https://example.com:8443/x')).toBe('https://example.com:8443/x');
  });

  it('keeps path case and parameter order', () => {
    expect(canonicalKey('http://h/Path?b=2&a=1')).toBe('http://h/Path?b=2&a=1');
    expect(canonicalKey('http://h/path')).not.toBe(canonicalKey('http://h/Path'));
  });

  it('strips session ids from path parameters and the query', () => {
    expect(canonicalKey('http://h/app;jsessionid=0A1B2C3D?x=1')).toBe('http://h/app?x=1');
    expect(canonicalKey('http://h/p?PHPSESSID=abc123&page=2')).toBe('http://h/p?page=2');
    expect(canonicalKey('http://h/p?page=2&ASPSESSIONIDQQGGQGPG=KJHGFDSA')).toBe('http://h/p?page=2');
    expect(canonicalKey(`http://h/p?sid=${'a1'.repeat(16)}&q=x`)).toBe('http://h/p?q=x');
    expect(canonicalKey('http://h/p?sid=42')).toBe('http://h/p?sid=42');
  });

  it('drops a trailing ? or & and empty pairs', () => {
    expect(canonicalKey('http://h/p?')).toBe('http://h/p');
    expect(canonicalKey('http://h/p?a=1&')).toBe('http://h/p?a=1');
    expect(canonicalKey('http://h/p?a=1&&b=2')).toBe('http://h/p?a=1&b=2');
  });

  it('refuses non-http URLs', () => {
    expect(canonicalKey('mailto:a@b.c')).toBeUndefined();
    expect(canonicalKey('ftp://h/x')).toBeUndefined();
    expect(canonicalKey('not a url')).toBeUndefined();
  });
});

describe('fetch URLs and host keys', () => {
  it('fetches a link as found, minus fragment and credentials, resolved against its page', () => {
    expect(fetchUrl('../b?x=1#frag', 'http://h/a/c/page.html')).toBe('http://h/a/b?x=1');
    expect(fetchUrl('http://u:p@h/x')).toBe('http://h/x');
    expect(fetchUrl('javascript:void(0)')).toBeUndefined();
  });

  it('keys politeness by scheme, host and port, and scope by host (http and https alike)', () => {
    expect(originKey(parseHttpUrl('http://H/x')!)).toBe('http://h:80');
    expect(originKey(parseHttpUrl('https://h:8443/')!)).toBe('https://h:8443');
    expect(siteKey(parseHttpUrl('http://h/')!)).toBe(siteKey(parseHttpUrl('https://h/')!));
    expect(siteKey(parseHttpUrl('http://h:8080/')!)).toBe('h:8080');
  });
});
