import { RuleMatcher } from '../../crawl/crawl-rules.js';
import type { ContentSource, CrawlRule } from '../../model.js';
import type { HttpSettings } from './http-settings.js';
import { siteKey } from './url-canon.js';

/** Longest URL crawled (the classic limit of 2083 characters). */
export const MAX_URL_LENGTH = 2083;

/** Heritrix's pathological-path rule: a path segment run repeated three or more times in a row. */
const REPEATED_SEGMENTS = /\/(.*?\/)\1{2,}/;

/** A scope decision: accepted (with the crawl rule that decided, if any) or rejected with a reason. */
export type ScopeDecision =
  { accept: true; rule: CrawlRule | null } | { accept: false; reason: string; rule: CrawlRule | null };

/** Link hops (`L`) and embed hops (`E`) of a hop path; redirects (`R`) and prerequisites do not count. */
export function linkHops(hops: string): number {
  let n = 0;
  for (const c of hops) if (c === 'L' || c === 'E') n++;
  return n;
}

/** Length of the run of redirects at the end of a hop path. */
export function trailingRedirects(hops: string): number {
  let n = 0;
  for (let i = hops.length - 1; i >= 0 && hops[i] === 'R'; i--) n++;
  return n;
}

/** `decodeURI` that keeps malformed escapes as they are. */
export function decodeForRules(url: string): string {
  try {
    return decodeURI(url);
  } catch {
    return url;
  }
}

/**
 * Decides which URLs a web crawl fetches, in this order (first rejection wins):
 * URL length → crawl rules (first match wins; an include rule whose pattern names the URL's host
 * also lifts the same-host limit; with include rules, a non-seed URL no rule matches is out) → same host as a seed → max hops →
 * complex URLs (with `?`) → max path depth → pathological repetition (`/a/b/a/b/a/b/`).
 * Seeds are exempt from the same-host, hops and include-only checks but not from exclude rules.
 */
export class UrlScope {
  private readonly rules: RuleMatcher;
  private readonly sites = new Set<string>();

  constructor(
    source: Pick<ContentSource, 'rules' | 'settings' | 'kind'>,
    private readonly settings: HttpSettings,
  ) {
    this.rules = new RuleMatcher({ ...source, kind: 'http' });
  }

  /** Put a host in scope (seeds, and redirect targets of seeds). */
  addSite(u: URL): void {
    this.sites.add(siteKey(u));
  }

  /** True when the URL's site is one of the seeds' sites. */
  isSeedSite(u: URL): boolean {
    return this.sites.has(siteKey(u));
  }

  /** The crawl rule that decides `u` (for credentials), without the other checks. */
  ruleFor(u: URL, seed: string): CrawlRule | null {
    return this.rules.decide(decodeForRules(u.href), decodeForRules(seed), false).rule;
  }

  /** Decide whether `u`, reached by hop path `hops` from `seed`, is crawled. */
  decide(u: URL, hops: string, seed: string, isSeed: boolean): ScopeDecision {
    if (u.href.length > MAX_URL_LENGTH)
      return { accept: false, reason: `URL longer than ${MAX_URL_LENGTH} characters`, rule: null };
    const d = this.rules.decide(decodeForRules(u.href), decodeForRules(seed), false);
    if (d.rule && d.rule.action === 'exclude') return { accept: false, reason: d.reason, rule: d.rule };
    if (!d.included && !isSeed) return { accept: false, reason: d.reason, rule: null };
    // An include rule lifts the same-host limit only for hosts it names (`**` must not open the web).
    const byInclude =
      d.rule?.action === 'include' &&
      d.rule.pattern.replace(/\\/g, '').toLowerCase().includes(u.hostname.toLowerCase());
    if (!isSeed) {
      if (this.settings.sameHostOnly && !byInclude && !this.isSeedSite(u)) {
        return {
          accept: false,
          reason: `host ${u.host} is not a start address's host (same host only)`,
          rule: null,
        };
      }
      if (linkHops(hops) > this.settings.maxHops) {
        return {
          accept: false,
          reason: `more than ${this.settings.maxHops} hops from the start address`,
          rule: d.rule,
        };
      }
    }
    if (!this.settings.complexUrls && u.search)
      return { accept: false, reason: 'URL has a query string (complex URLs are off)', rule: d.rule };
    const depth = u.pathname.split('/').filter(Boolean).length;
    if (depth > this.settings.maxPathDepth) {
      return {
        accept: false,
        reason: `path deeper than ${this.settings.maxPathDepth} segments`,
        rule: d.rule,
      };
    }
    if (REPEATED_SEGMENTS.test(u.pathname))
      return { accept: false, reason: 'path repeats a segment run three times (crawler trap)', rule: d.rule };
    return { accept: true, rule: d.rule };
  }
}
