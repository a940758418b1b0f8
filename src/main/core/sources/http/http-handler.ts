import type { LinkHandler } from '../handler.js';
import { RobotsCache } from './robots-cache.js';
import { crawlWeb } from './web-crawler.js';

/** Options for {@link createHttpHandler}. */
export interface HttpHandlerOptions {
  /** robots.txt cache shared by this handler's crawls (default: a new one, 24 h TTL). */
  robots?: RobotsCache;
}

/**
 * The website protocol handler (`http:`, `https:`): a link-based handler whose `crawl` runs the
 * whole web crawl of a source — robots.txt, per-host politeness, scope, conditional revisits —
 * through the session's writer, counts and log (see `crawlWeb`). robots.txt results are cached
 * across the crawls of one handler for up to 24 h.
 */
export function createHttpHandler(opts: HttpHandlerOptions = {}): LinkHandler {
  const robots = opts.robots ?? new RobotsCache();
  return {
    kind: 'link',
    schemes: ['http', 'https'],
    crawl: (session, extractor, ctx) => crawlWeb(session, extractor, ctx, { robots }),
  };
}
