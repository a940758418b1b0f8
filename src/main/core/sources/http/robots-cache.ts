import { FetchError, type HttpFetcher } from './http-fetcher.js';
import { parseRobotsTxt, type RobotsTxt } from './robots-rules.js';

/**
 * robots.txt per `scheme://host:port`, fetched and cached the way RFC 9309 asks: 2xx → parsed;
 * 4xx (and more than 5 redirects) → no restrictions; 5xx, 429 or unreachable → *disallow all*
 * until a retry. At most 500 KiB is read. Successful results are cached up to 24 h; an
 * unavailable result only until its retry time.
 */

/** Bytes of robots.txt read (RFC 9309: at least 500 KiB). */
export const ROBOTS_MAX_BYTES = 500 * 1024;
/** Redirects followed for robots.txt (RFC 9309: at least 5). */
export const ROBOTS_MAX_REDIRECTS = 5;
/** Longest time a robots.txt is cached (RFC 9309: SHOULD NOT exceed 24 h). */
export const ROBOTS_TTL_MS = 24 * 60 * 60 * 1000;

/** The state of one origin's robots.txt. */
export type RobotsEntry =
  | { kind: 'parsed'; robots: RobotsTxt; status: number; fetchedAt: number; expiresAt: number }
  | { kind: 'allow-all'; status: number; reason: string; fetchedAt: number; expiresAt: number }
  | { kind: 'unavailable'; status: number; reason: string; fetchedAt: number; expiresAt: number };

/** A cache of robots.txt results shared by the crawls of one handler (one engine). */
export class RobotsCache {
  private readonly entries = new Map<string, RobotsEntry>();

  constructor(private readonly ttlMs = ROBOTS_TTL_MS) {}

  /** The cached, unexpired entry of an origin (`scheme://host:port`). */
  get(origin: string, now = Date.now()): RobotsEntry | undefined {
    const e = this.entries.get(origin);
    if (e && e.expiresAt > now) return e;
    if (e) this.entries.delete(origin);
    return undefined;
  }

  /** Forget everything (tests, settings changes). */
  clear(): void {
    this.entries.clear();
  }

  /**
   * Fetch an origin's robots.txt and cache the outcome; `retryMs` is how long an unavailable
   * result holds. Never throws except when `signal` aborts (FetchError with the stopped status).
   */
  async load(
    origin: string,
    fetcher: HttpFetcher,
    opts: { retryMs: number; signal?: AbortSignal },
  ): Promise<RobotsEntry> {
    const fetchedAt = Date.now();
    let url = `${origin.replace(/:(80|443)$/, (m, p) => ((p === '80' && origin.startsWith('http:')) || (p === '443' && origin.startsWith('https:')) ? '' : m))}/robots.txt`;
    let entry: RobotsEntry | undefined;
    for (let hop = 0; hop <= ROBOTS_MAX_REDIRECTS && !entry; hop++) {
      let res;
      try {
        res = await fetcher.fetch({ url, signal: opts.signal, maxBytes: ROBOTS_MAX_BYTES });
      } catch (e) {
        if (opts.signal?.aborted) throw e;
        const fe = e instanceof FetchError ? e : new FetchError(-3, String(e));
        entry = {
          kind: 'unavailable',
          status: fe.status,
          reason: `robots.txt unreachable: ${fe.message}`,
          fetchedAt,
          expiresAt: Date.now() + opts.retryMs,
        };
        break;
      }
      const s = res.status;
      if (s >= 200 && s < 300) {
        const body = res.decodeError ? '' : res.body.toString('utf8');
        entry = {
          kind: 'parsed',
          robots: parseRobotsTxt(body),
          status: s,
          fetchedAt,
          expiresAt: fetchedAt + this.ttlMs,
        };
      } else if (s >= 300 && s < 400 && res.headers.location) {
        try {
          url = new URL(String(res.headers.location), url).href;
        } catch {
          entry = {
            kind: 'allow-all',
            status: s,
            reason: 'robots.txt redirects to an invalid URL',
            fetchedAt,
            expiresAt: fetchedAt + this.ttlMs,
          };
        }
      } else if (s === 429 || s >= 500) {
        entry = {
          kind: 'unavailable',
          status: s,
          reason: `robots.txt unavailable (HTTP ${s})`,
          fetchedAt,
          expiresAt: Date.now() + opts.retryMs,
        };
      } else {
        entry = {
          kind: 'allow-all',
          status: s,
          reason: `no robots.txt (HTTP ${s})`,
          fetchedAt,
          expiresAt: fetchedAt + this.ttlMs,
        };
      }
    }
    entry ??= {
      kind: 'allow-all',
      status: 310,
      reason: `robots.txt redirects more than ${ROBOTS_MAX_REDIRECTS} times`,
      fetchedAt,
      expiresAt: fetchedAt + this.ttlMs,
    };
    this.entries.set(origin, entry);
    return entry;
  }
}
