import { describe, expect, it } from 'vitest';
import { defaultSettings } from '../../index/source-store.js';
import type { CrawlRule } from '../../model.js';
import { resolveHttpSettings } from './http-settings.js';
import { parseHttpUrl } from './url-canon.js';
import { linkHops, trailingRedirects, UrlScope } from './url-scope.js';

const SEED = 'http://site.example/docs/';

function scope(rules: CrawlRule[] = [], http: Record<string, unknown> = {}): UrlScope {
  const s = new UrlScope(
    { kind: 'http', rules, settings: defaultSettings('http') },
    resolveHttpSettings(http),
  );
  s.addSite(parseHttpUrl(SEED)!);
  return s;
}

const decide = (s: UrlScope, url: string, hops = 'L', isSeed = false) =>
  s.decide(parseHttpUrl(url)!, hops, SEED, isSeed);

describe('UrlScope', () => {
  it('keeps to the seeds’ hosts by default, and lets an include rule reach further', () => {
    expect(decide(scope(), 'http://site.example/other').accept).toBe(true);
    expect(decide(scope(), 'https://site.example/secure').accept).toBe(true);
    expect(decide(scope(), 'http://elsewhere.example/').accept).toBe(false);
    expect(decide(scope([], { sameHostOnly: false }), 'http://elsewhere.example/').accept).toBe(true);
    const s = scope([
      { action: 'include', syntax: 'prefix', pattern: 'http://wiki.example/' },
      { action: 'include', syntax: 'glob', pattern: '**' },
    ]);
    expect(decide(s, 'http://wiki.example/page').accept).toBe(true);
    expect(decide(s, 'http://elsewhere.example/').accept).toBe(false);
  });

  it('applies crawl rules first match wins, exclude rules to seeds too', () => {
    const s = scope([
      { action: 'exclude', syntax: 'glob', pattern: '**/*.zip' },
      { action: 'exclude', syntax: 'regex', pattern: '/private/' },
    ]);
    expect(decide(s, 'http://site.example/files/a.zip')).toMatchObject({
      accept: false,
      reason: expect.stringMatching(/rule 1/),
    });
    expect(decide(s, 'http://site.example/private/x', '', true)).toMatchObject({
      accept: false,
      reason: expect.stringMatching(/rule 2/),
    });
    expect(decide(s, 'http://site.example/public/x').accept).toBe(true);
  });

  it('counts link and embed hops, not redirects, against maxHops', () => {
    const s = scope([], { maxHops: 2 });
    expect(decide(s, 'http://site.example/a', 'LL').accept).toBe(true);
    expect(decide(s, 'http://site.example/a', 'LLRR').accept).toBe(true);
    expect(decide(s, 'http://site.example/a', 'LLE')).toMatchObject({
      accept: false,
      reason: expect.stringMatching(/2 hops/),
    });
    expect(linkHops('LRERL')).toBe(3);
    expect(trailingRedirects('LRLRR')).toBe(2);
  });

  it('rejects query URLs when complex URLs are off, deep paths and repeated segment runs', () => {
    expect(decide(scope([], { complexUrls: false }), 'http://site.example/cal?m=1').accept).toBe(false);
    expect(decide(scope(), 'http://site.example/cal?m=1').accept).toBe(true);
    expect(decide(scope([], { maxPathDepth: 3 }), 'http://site.example/a/b/c/d').accept).toBe(false);
    expect(decide(scope([], { maxPathDepth: 3 }), 'http://site.example/a/b/c').accept).toBe(true);
    expect(decide(scope(), 'http://site.example/a/b/a/b/a/b/').accept).toBe(false);
    expect(decide(scope(), 'http://site.example/x/x/x/page').accept).toBe(false);
    expect(decide(scope(), 'http://site.example/a/b/a/b/').accept).toBe(true);
    expect(decide(scope(), `http://site.example/${'a'.repeat(2100)}`).accept).toBe(false);
  });
});
