import type { AgentRules } from './robots-rules.js';

/** One URL waiting to be fetched. */
export interface Candidate {
  /** URL to fetch (as found, without fragment and credentials). */
  url: string;
  /** Seen-set key (`canonicalKey`). */
  key: string;
  /** Hop path from the seed: `L` link, `E` embed, `R` redirect, `P` prerequisite (sitemap). */
  hops: string;
  /** The URL whose fetch found this one (null for seeds). */
  via: string | null;
  /** The start address this URL descends from (root for the crawl rules). */
  seed: string;
  /** Previous tries (0 on the first fetch). */
  tries: number;
  /** Seen-set keys of the redirects that led here (loop detection). */
  chain: string[];
  /** A sitemap to read for URLs rather than a page to index. */
  sitemap?: boolean;
  /** Exempt from the same-host and hop checks (seeds and their redirect targets). */
  isSeed: boolean;
}

/**
 * Politeness state of one `scheme://host:port`: its FIFO of candidates (breadth first), the time
 * its next fetch may start, its robots.txt rules and its consecutive network errors.
 */
export class HostQueue {
  private items: Candidate[] = [];
  private head = 0;
  /** Fetches in flight to this host. */
  inFlight = 0;
  /** Earliest time (ms) the next fetch may start. */
  nextAt = 0;
  /** robots.txt rules once known (null: not loaded yet). */
  robots: AgentRules | null = null;
  robotsLoading = false;
  /** Unavailable robots.txt fetches so far. */
  robotsTries = 0;
  /** Consecutive network errors (reset by any HTTP response). */
  netErrors = 0;
  /** Why the host takes no more fetches in this crawl (parked server, robots.txt unavailable). */
  closed: { status: number; reason: string; annotation: string } | null = null;
  /** robots.txt Crawl-delay in ms after capping (0 = none). */
  crawlDelayMs = 0;

  constructor(readonly origin: string) {}

  get size(): number {
    return this.items.length - this.head;
  }

  push(c: Candidate): void {
    this.items.push(c);
  }

  shift(): Candidate | undefined {
    if (this.head >= this.items.length) return undefined;
    const c = this.items[this.head];
    this.items[this.head++] = undefined as unknown as Candidate;
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return c;
  }

  /** Remove and return everything queued. */
  drain(): Candidate[] {
    const rest = this.items.slice(this.head);
    this.items = [];
    this.head = 0;
    return rest;
  }
}

/** Politeness settings the delay computation reads. */
export interface DelayPolicy {
  delayFactor: number;
  minDelayMs: number;
  maxDelayMs: number;
  maxHostBandwidthKBps: number;
}

/**
 * Delay before the next fetch to a host after one that took `durationMs` and read `bytes`
 * (Heritrix DispositionProcessor): factor × duration clamped to [min, max], raised to the host's
 * capped Crawl-delay, raised to what the bandwidth cap needs for `bytes`.
 */
export function politenessDelay(
  policy: DelayPolicy,
  durationMs: number,
  bytes: number,
  crawlDelayMs: number,
): number {
  let delay = Math.min(Math.max(policy.delayFactor * durationMs, policy.minDelayMs), policy.maxDelayMs);
  delay = Math.max(delay, crawlDelayMs);
  if (policy.maxHostBandwidthKBps > 0)
    delay = Math.max(delay, bytes / (policy.maxHostBandwidthKBps * 1.024) - durationMs);
  return Math.max(0, Math.round(delay));
}
