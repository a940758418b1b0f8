import { z } from 'zod';

/**
 * `settings.http` of a website content source: scope, politeness, robots.txt, timeouts, caps and
 * proxy. Every field is optional in storage; {@link resolveHttpSettings} fills the gaps from the
 * chosen profile, so a source saved with `{ profile: 'fast' }` gets every fast default.
 */

/** Politeness and limits per profile: `polite` suits intranet servers, `fast` loopback/test sites. */
export type HttpProfile = 'polite' | 'fast';

const proxySchema = z.object({
  host: z.string().min(1),
  port: z.number().int().min(1).max(65535),
});

/** What a user may store in `settings.http` (all optional; unknown keys are rejected). */
export const httpSettingsSchema = z
  .object({
    profile: z.enum(['polite', 'fast']),
    /** The User-Agent header; its product token (up to the first `/`) is matched against robots.txt groups. */
    userAgent: z.string().trim().min(1).max(300),
    obeyRobots: z.boolean(),
    /** Link hops from a seed (links and embeds count, redirects do not). */
    maxHops: z.number().int().min(0).max(1000),
    /** Path segments a URL may have. */
    maxPathDepth: z.number().int().min(1).max(1000),
    /** Crawl URLs with a query string (`?`). */
    complexUrls: z.boolean(),
    /** Only hosts of the start addresses (and of their redirect targets) are in scope. */
    sameHostOnly: z.boolean(),
    /** Also discover URLs from the sitemaps named in robots.txt. */
    sitemaps: z.boolean(),
    /** Delay after a fetch = factor × its duration, clamped to [minDelayMs, maxDelayMs]. */
    delayFactor: z.number().min(0).max(100),
    minDelayMs: z.number().int().min(0).max(600_000),
    maxDelayMs: z.number().int().min(0).max(600_000),
    /** robots.txt `Crawl-delay` is honoured up to this many seconds (0 = ignored). */
    maxCrawlDelaySeconds: z.number().min(0).max(3600),
    /** Per-host bandwidth cap in KB/s (0 = off). */
    maxHostBandwidthKBps: z.number().min(0),
    /** Fetches in flight across all hosts. */
    concurrency: z.number().int().min(1).max(64),
    /** Fetches in flight to one host. */
    perHostConnections: z.number().int().min(1).max(32),
    connectTimeoutMs: z.number().int().min(100).max(600_000),
    /** Idle time between bytes before a fetch fails (the classic spider's `read_timeout`). */
    readTimeoutMs: z.number().int().min(100).max(600_000),
    /** Whole-fetch cap, however slowly the bytes trickle in. */
    fetchTimeoutMs: z.number().int().min(100).max(3_600_000),
    /** Retries of a URL after network errors, 5xx, 429. */
    retries: z.number().int().min(0).max(20),
    /** First retry backoff; doubles with each try. */
    retryBackoffMs: z.number().int().min(0).max(3_600_000),
    /** `Retry-After` is honoured up to this many seconds; longer asks fail the URL. */
    maxRetryAfterSeconds: z.number().min(0).max(86_400),
    /** Consecutive network errors after which a server is parked for the rest of the crawl. */
    maxNetErrors: z.number().int().min(1).max(1000),
    /** Delay before retrying a robots.txt that was unavailable (5xx, unreachable). */
    robotsRetryMs: z.number().int().min(0).max(86_400_000),
    proxy: proxySchema.nullable(),
    /** Bytes read from the wire per document (compressed). */
    maxDocumentBytes: z.number().int().min(1024),
    /** Bytes a compressed body may inflate to (gzip/deflate/br bombs stop here). */
    maxDecompressedBytes: z.number().int().min(1024),
    /** Redirects followed in a chain before the chain fails. */
    maxRedirects: z.number().int().min(0).max(50),
    /** URLs fetched per crawl at most (0 = no limit). */
    maxPages: z.number().int().min(0),
  })
  .partial()
  .strict();

/** Stored form: every field optional. */
export type HttpSettingsInput = z.infer<typeof httpSettingsSchema>;

/** Resolved form: every field set. */
export type HttpSettings = Required<Omit<HttpSettingsInput, 'proxy'>> & {
  proxy: { host: string; port: number } | null;
};

const MB = 1024 * 1024;

const COMMON = {
  userAgent: 'TrawlBot/0.1 (desktop search; +https://github.com/trawl-search/trawl)',
  obeyRobots: true,
  maxHops: 20,
  maxPathDepth: 20,
  complexUrls: true,
  sameHostOnly: true,
  sitemaps: false,
  maxHostBandwidthKBps: 0,
  proxy: null,
  maxDocumentBytes: 32 * MB,
  maxDecompressedBytes: 64 * MB,
  maxRedirects: 10,
  maxPages: 100_000,
} as const;

/** Profile defaults. */
export const HTTP_PROFILES: Readonly<Record<HttpProfile, HttpSettings>> = {
  // Heritrix defaults (5 × duration within [3 s, 30 s], Crawl-delay ≤ 300 s) are made for the open
  // web; an intranet server tolerates more, a desktop user wants results the same day.
  polite: {
    ...COMMON,
    profile: 'polite',
    delayFactor: 2,
    minDelayMs: 500,
    maxDelayMs: 10_000,
    maxCrawlDelaySeconds: 60,
    concurrency: 4,
    perHostConnections: 1,
    connectTimeoutMs: 10_000,
    readTimeoutMs: 30_000,
    fetchTimeoutMs: 120_000,
    retries: 2,
    retryBackoffMs: 5_000,
    maxRetryAfterSeconds: 300,
    maxNetErrors: 5,
    robotsRetryMs: 60_000,
  },
  // Loopback and test sites: no delays, parallel connections, short timeouts.
  fast: {
    ...COMMON,
    profile: 'fast',
    delayFactor: 0,
    minDelayMs: 0,
    maxDelayMs: 0,
    maxCrawlDelaySeconds: 0,
    concurrency: 8,
    perHostConnections: 8,
    connectTimeoutMs: 2_000,
    readTimeoutMs: 5_000,
    fetchTimeoutMs: 30_000,
    retries: 1,
    retryBackoffMs: 100,
    maxRetryAfterSeconds: 5,
    maxNetErrors: 5,
    robotsRetryMs: 500,
  },
};

/** Thrown for invalid `settings.http`; `message` names the offending fields. */
export class HttpSettingsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HttpSettingsError';
  }
}

/**
 * Validate stored `settings.http` and fill every gap from its profile (default `polite`).
 * Throws HttpSettingsError naming each invalid field.
 */
export function resolveHttpSettings(raw: unknown): HttpSettings {
  const parsed = httpSettingsSchema.safeParse(raw ?? {});
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.') || 'http'}: ${i.message}`);
    throw new HttpSettingsError(`invalid website settings — ${problems.join('; ')}`);
  }
  const input = parsed.data;
  const base = HTTP_PROFILES[input.profile ?? 'polite'];
  const merged: HttpSettings = { ...base };
  for (const [k, v] of Object.entries(input)) if (v !== undefined) (merged as Record<string, unknown>)[k] = v;
  if (merged.maxDelayMs < merged.minDelayMs) merged.maxDelayMs = merged.minDelayMs;
  return merged;
}
