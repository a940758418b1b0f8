import os from 'node:os';
import type { CrawlSession, LogLine } from '../../crawl/crawl-session.js';
import type { ContentExtractor } from '../../crawl/tree-crawler.js';
import type { FilterOutput } from '../../filters/filter.js';
import { contentHash } from '../../index/content-hash.js';
import type { CrawlRule, SecurityDescriptor } from '../../model.js';
import type { HandlerContext } from '../handler.js';
import { type Candidate, HostQueue, politenessDelay } from './host-queue.js';
import {
  FetchError,
  header,
  HttpFetcher,
  LocalStatus,
  retryAfterMs,
  type FetchResult,
} from './http-fetcher.js';
import { resolveHttpSettings, type HttpSettings } from './http-settings.js';
import type { RobotsCache } from './robots-cache.js';
import { ALLOW_ALL, DISALLOW_ALL, productToken, rulesFor } from './robots-rules.js';
import { parseSitemap } from './sitemap.js';
import { canonicalKey, originKey, parseHttpUrl } from './url-canon.js';
import { decodeForRules, trailingRedirects, UrlScope } from './url-scope.js';
import { effectiveMime, extOfUrl, httpDate, nameOfUrl, parseContentType } from './web-content.js';

/** A page from earlier crawls (the documents table is the crawl history). */
interface HistoryRow {
  id: number;
  url: string;
  etag: string | null;
  last_modified: string | null;
  content_hash: string | null;
  outlinks: string | null;
  mtime: number;
  ctime: number;
  size: number;
}

/** Outlinks stored per page (enough to re-enqueue below a 304 without a page's worth of JSON). */
const MAX_STORED_OUTLINKS = 5000;
/** Sitemap files read per crawl. */
const MAX_SITEMAPS = 50;

/** Dependencies a web crawl shares with other crawls of the same handler. */
export interface WebCrawlDeps {
  robots: RobotsCache;
}

/**
 * Crawl one website source into the index (the link-based counterpart of `crawlTree`).
 *
 * Seeds are the source's start addresses; links come from the filters (and optionally sitemaps).
 * Full crawl: every page is fetched and indexed again. Incremental: conditional requests with the
 * stored ETag / Last-Modified; a 304 (or a body whose digest is unchanged) counts *not modified*, is
 * not re-indexed, and its stored outlinks are followed. 404/410 remove the page. At the end of a
 * completed crawl, pages of the history that were not reached leave the index, except those whose
 * fetch failed transiently and those on hosts that were parked or whose robots.txt was
 * unavailable. A stop (signal) ends the crawl, keeps what was written and deletes nothing.
 *
 * Never throws for per-URL problems (each URL gets one log line); throws HttpSettingsError for
 * invalid settings before anything is fetched, and rethrows a failure of the index writer after
 * the fetches in flight have settled (nothing is swept then).
 */
export async function crawlWeb(
  session: CrawlSession,
  extractor: ContentExtractor,
  ctx: HandlerContext,
  deps: WebCrawlDeps,
): Promise<void> {
  const crawl = new WebCrawl(
    session,
    extractor,
    ctx,
    deps,
    resolveHttpSettings(session.source.settings.http),
  );
  try {
    await crawl.run();
  } finally {
    crawl.close();
  }
}

class WebCrawl {
  private readonly scope: UrlScope;
  private readonly fetcher: HttpFetcher;
  private readonly history = new Map<string, HistoryRow>();
  private readonly seen = new Set<string>();
  /** History keys confirmed present or already dealt with this crawl. */
  private readonly reached = new Set<string>();
  /** History keys kept although not reached (transient failures). */
  private readonly protectedKeys = new Set<string>();
  private readonly hosts = new Map<string, HostQueue>();
  private readonly credentials = new Map<string, Promise<{ user: string; password: string } | null>>();
  private readonly agent: string;
  private readonly defaultPrincipal = `user:${os.userInfo().username}`;
  private inFlight = 0;
  private wakeUp: (() => void) | null = null;
  private wakeTimer: NodeJS.Timeout | undefined;
  private budgetHit = false;
  private sitemapsRead = 0;
  private rr = 0;
  private fatal: Error | null = null;

  constructor(
    private readonly session: CrawlSession,
    private readonly extractor: ContentExtractor,
    private readonly ctx: HandlerContext,
    private readonly deps: WebCrawlDeps,
    private readonly settings: HttpSettings,
  ) {
    // The source-wide max file size caps web documents too.
    settings.maxDocumentBytes = Math.min(
      settings.maxDocumentBytes,
      session.source.settings.maxFileSize || Number.POSITIVE_INFINITY,
    );
    this.scope = new UrlScope(session.source, settings);
    this.fetcher = new HttpFetcher(settings);
    this.agent = productToken(settings.userAgent);
  }

  close(): void {
    clearTimeout(this.wakeTimer);
    this.fetcher.close();
  }

  private get signal(): AbortSignal {
    return this.session.signal;
  }

  async run(): Promise<void> {
    const { source } = this.session;
    const db = this.session.opts.db;
    for (const row of db
      .prepare(
        'SELECT id, url, etag, last_modified, content_hash, outlinks, mtime, ctime, size FROM documents WHERE source_id = ?',
      )
      .iterate(source.id) as IterableIterator<HistoryRow>) {
      const key = canonicalKey(row.url);
      if (key) this.history.set(key, row);
    }
    for (const seed of source.startAddresses) {
      const u = parseHttpUrl(seed);
      if (u) this.scope.addSite(u);
    }
    for (const seed of source.startAddresses) {
      const u = parseHttpUrl(seed);
      if (!u) {
        this.session.counts.failed++;
        this.session.log({ url: seed, outcome: 'failed', reason: 'not an http(s) URL' });
        continue;
      }
      this.enqueue(u, { hops: '', via: null, seed: u.href, chain: [], isSeed: true });
    }
    const onAbort = (): void => this.wake();
    this.signal.addEventListener('abort', onAbort, { once: true });
    try {
      await this.loop();
    } finally {
      this.signal.removeEventListener('abort', onAbort);
    }
    if (this.fatal) throw this.fatal;
    if (this.signal.aborted) return;
    this.sweep();
    this.session.tick(true);
  }

  // ---- scheduling ----

  private wake(): void {
    clearTimeout(this.wakeTimer);
    const w = this.wakeUp;
    this.wakeUp = null;
    w?.();
  }

  private async loop(): Promise<void> {
    for (;;) {
      if (this.signal.aborted || this.fatal) break;
      const now = Date.now();
      let earliest = Number.POSITIVE_INFINITY;
      let pending = false;
      const queues = [...this.hosts.values()];
      const n = queues.length;
      this.rr = n ? (this.rr + 1) % n : 0;
      for (let i = 0; i < n && this.inFlight < this.settings.concurrency; i++) {
        const host = queues[(this.rr + i) % n];
        if (host.closed) {
          if (host.size) this.failQueued(host);
          continue;
        }
        if (host.size === 0 || host.robotsLoading) {
          if (host.size) pending = true;
          continue;
        }
        pending = true;
        while (
          host.size &&
          host.inFlight < this.settings.perHostConnections &&
          this.inFlight < this.settings.concurrency
        ) {
          if (host.nextAt > now) {
            earliest = Math.min(earliest, host.nextAt);
            break;
          }
          if (this.settings.obeyRobots && !host.robots) {
            if (host.inFlight === 0) this.start(host, () => this.loadRobots(host));
            break;
          }
          const cand = host.shift()!;
          if (host.robots && !host.robots.isAllowed(cand.url)) {
            this.exclude(cand, LocalStatus.robotsBlocked, 'blocked by robots.txt', 'robots-blocked');
            continue;
          }
          this.start(host, () => (cand.sitemap ? this.readSitemap(host, cand) : this.fetchPage(host, cand)));
          if (host.crawlDelayMs > 0 || this.settings.minDelayMs > 0 || this.settings.delayFactor > 0) break;
        }
      }
      if (!pending && this.inFlight === 0) break;
      await new Promise<void>((resolve) => {
        this.wakeUp = resolve;
        if (earliest < Number.POSITIVE_INFINITY)
          this.wakeTimer = setTimeout(() => this.wake(), Math.max(1, earliest - Date.now()));
        if (this.signal.aborted) this.wake();
      });
    }
    while (this.inFlight > 0) await new Promise<void>((resolve) => (this.wakeUp = resolve));
  }

  private start(host: HostQueue, task: () => Promise<void>): void {
    this.inFlight++;
    host.inFlight++;
    // Polite hosts take one fetch at a time: the next waits for this one plus the delay.
    if (this.settings.perHostConnections === 1) host.nextAt = Number.POSITIVE_INFINITY;
    void task()
      .catch((e: unknown) => {
        // Per-URL problems never throw; what does (the index database failing) ends the crawl.
        this.fatal ??= e instanceof Error ? e : new Error(String(e));
      })
      .finally(() => {
        this.inFlight--;
        host.inFlight--;
        if (host.nextAt === Number.POSITIVE_INFINITY) host.nextAt = 0;
        this.wake();
      });
  }

  private hostFor(u: URL): HostQueue {
    const origin = originKey(u);
    let h = this.hosts.get(origin);
    if (!h) {
      h = new HostQueue(origin);
      this.hosts.set(origin, h);
    }
    return h;
  }

  /** Set the host's next start time after a fetch (Heritrix politeness). */
  private politeAfter(
    host: HostQueue,
    res: { durationMs: number; wireBytes: number } | null,
    extraMs = 0,
  ): void {
    const delay = res
      ? politenessDelay(this.settings, res.durationMs, res.wireBytes, host.crawlDelayMs)
      : Math.max(this.settings.minDelayMs, host.crawlDelayMs);
    host.nextAt = Math.max(
      host.nextAt === Number.POSITIVE_INFINITY ? 0 : host.nextAt,
      Date.now() + Math.max(delay, extraMs),
    );
  }

  // ---- discovery ----

  private enqueue(u: URL, c: Omit<Candidate, 'url' | 'key' | 'tries'> & { sitemap?: boolean }): void {
    const key = canonicalKey(u);
    if (!key || this.seen.has(key)) return;
    this.seen.add(key);
    const cand: Candidate = { ...c, url: u.href, key, tries: 0 };
    if (!c.sitemap) {
      const d = this.scope.decide(u, c.hops, c.seed, c.isSeed);
      if (!d.accept) {
        this.exclude(cand, LocalStatus.outOfScope, d.reason, 'out-of-scope');
        return;
      }
      if (this.settings.maxPages > 0 && this.session.counts.discovered >= this.settings.maxPages) {
        this.budgetHit = true;
        this.exclude(
          cand,
          LocalStatus.outOfScope,
          `more than ${this.settings.maxPages} pages (maxPages)`,
          'budget',
        );
        return;
      }
      this.session.counts.discovered++;
    }
    const host = this.hostFor(u);
    if (host.closed) {
      this.failClosed(host, cand);
      return;
    }
    host.push(cand);
  }

  /** Follow links of a page (or the stored outlinks of an unchanged one). */
  private follow(from: Candidate, links: readonly string[], kind: 'L' | 'E'): void {
    for (const link of links) {
      const u = parseHttpUrl(link, from.url);
      if (u)
        this.enqueue(u, { hops: from.hops + kind, via: from.url, seed: from.seed, chain: [], isSeed: false });
    }
  }

  private followStored(from: Candidate, hist: HistoryRow | undefined): void {
    if (!hist?.outlinks) return;
    try {
      this.follow(from, JSON.parse(hist.outlinks) as string[], 'L');
    } catch {}
  }

  // ---- outcomes ----

  private line(c: Candidate, fields: Omit<LogLine, 'url' | 'hops' | 'via'>): void {
    const annotations =
      [fields.annotations, c.tries > 0 ? `${c.tries + 1}t` : null].filter(Boolean).join(',') || null;
    this.session.log({ url: c.url, hops: c.hops || '-', via: c.via, ...fields, annotations });
    this.session.currentItem = c.url;
    this.session.tick();
  }

  private exclude(c: Candidate, status: number, reason: string, annotation: string): void {
    this.session.counts.excluded++;
    this.line(c, { outcome: 'excluded', status, reason, annotations: annotation });
  }

  private fail(
    c: Candidate,
    status: number,
    reason: string,
    annotation: string | null,
    transient: boolean,
    res?: FetchResult,
  ): void {
    this.session.counts.failed++;
    if (transient) {
      this.protectedKeys.add(c.key);
      // Pages below a page that failed for now are still part of the site.
      this.followStored(c, this.history.get(c.key));
    }
    this.line(c, {
      outcome: 'failed',
      status,
      reason,
      annotations: annotation,
      size: res?.wireBytes,
      durationMs: res?.durationMs,
    });
  }

  private failClosed(host: HostQueue, c: Candidate): void {
    const closed = host.closed!;
    this.fail(c, closed.status, closed.reason, closed.annotation, true);
  }

  private failQueued(host: HostQueue): void {
    for (const c of host.drain()) this.failClosed(host, c);
  }

  /** Remove the page's document now (404/410, redirect, permanent error). */
  private removeNow(c: Candidate): boolean {
    const hist = this.history.get(c.key);
    if (!hist) return false;
    this.session.writer.delete(hist.id);
    this.session.counts.deleted++;
    this.history.delete(c.key);
    return true;
  }

  /** Delete history pages the crawl did not reach (completed crawls only). */
  private sweep(): void {
    if (this.budgetHit) return;
    const closedOrigins = new Set([...this.hosts.values()].filter((h) => h.closed).map((h) => h.origin));
    for (const [key, row] of this.history) {
      if (this.reached.has(key) || this.protectedKeys.has(key)) continue;
      const u = parseHttpUrl(row.url);
      if (u && closedOrigins.has(originKey(u))) continue;
      this.session.writer.delete(row.id);
      this.session.counts.deleted++;
      this.session.log({
        url: row.url,
        outcome: 'deleted',
        reason: this.seen.has(key) ? 'no longer in scope' : 'no longer linked from the start addresses',
      });
    }
  }

  // ---- robots.txt ----

  private async loadRobots(host: HostQueue): Promise<void> {
    host.robotsLoading = true;
    try {
      let entry = this.deps.robots.get(host.origin);
      let fetched = false;
      if (!entry) {
        const t0 = Date.now();
        entry = await this.deps.robots.load(host.origin, this.fetcher, {
          retryMs: this.settings.robotsRetryMs,
          signal: this.signal,
        });
        fetched = true;
        this.politeAfter(host, { durationMs: Date.now() - t0, wireBytes: 0 });
      }
      if (entry.kind === 'parsed') {
        host.robots = rulesFor(entry.robots, this.agent);
        if (this.settings.sitemaps && entry.robots.sitemaps.length)
          this.enqueueSitemaps(entry.robots.sitemaps, host);
      } else if (entry.kind === 'allow-all') {
        host.robots = ALLOW_ALL;
      } else {
        // Unavailable: everything is disallowed for now; ask again once the entry expires.
        host.robotsTries++;
        if (host.robotsTries > this.settings.retries) {
          host.robots = DISALLOW_ALL;
          host.closed = {
            status: LocalStatus.robotsPrerequisite,
            reason: `${entry.reason}: everything on ${host.origin} is disallowed until it can be read (RFC 9309)`,
            annotation: 'robots-unavailable',
          };
          this.failQueued(host);
        } else {
          host.nextAt = Math.max(entry.expiresAt, Date.now());
        }
      }
      const delay = host.robots?.crawlDelay;
      if (delay) host.crawlDelayMs = Math.min(delay, this.settings.maxCrawlDelaySeconds) * 1000;
      if (fetched && host.crawlDelayMs) this.politeAfter(host, null);
    } catch (e) {
      if (!this.signal.aborted) throw e;
    } finally {
      host.robotsLoading = false;
    }
  }

  private enqueueSitemaps(urls: string[], host: HostQueue): void {
    for (const s of urls) {
      const u = parseHttpUrl(s);
      if (!u || !this.scope.isSeedSite(u)) continue;
      if (this.sitemapsRead >= MAX_SITEMAPS) return;
      this.sitemapsRead++;
      this.enqueue(u, {
        hops: 'P',
        via: `${host.origin}/robots.txt`,
        seed: u.href,
        chain: [],
        isSeed: false,
        sitemap: true,
      });
    }
  }

  private async readSitemap(host: HostQueue, c: Candidate): Promise<void> {
    let res: FetchResult;
    try {
      res = await this.fetcher.fetch({ url: c.url, signal: this.signal });
    } catch (e) {
      if (this.signal.aborted) return;
      this.politeAfter(host, null);
      const fe = e as FetchError;
      this.line(c, {
        outcome: 'failed',
        status: fe.status,
        reason: `sitemap: ${fe.message}`,
        annotations: 'sitemap',
      });
      return;
    }
    this.politeAfter(host, res);
    if (res.status < 200 || res.status >= 300) {
      this.line(c, {
        outcome: 'failed',
        status: res.status,
        reason: `sitemap: HTTP ${res.status}`,
        annotations: 'sitemap',
        size: res.wireBytes,
        durationMs: res.durationMs,
      });
      return;
    }
    const content = parseSitemap(res.body, this.settings.maxDecompressedBytes);
    this.line(c, {
      outcome: 'excluded',
      status: res.status,
      reason: `sitemap: ${content.urls.length} URLs, ${content.sitemaps.length} sitemaps`,
      annotations: 'sitemap',
      size: res.wireBytes,
      durationMs: res.durationMs,
    });
    this.session.counts.excluded++;
    this.enqueueSitemaps(content.sitemaps, host);
    const seedOf = (u: URL): string =>
      this.session.source.startAddresses.find((s) => parseHttpUrl(s)?.host === u.host) ??
      this.session.source.startAddresses[0];
    for (const loc of content.urls) {
      const u = parseHttpUrl(loc);
      if (u) this.enqueue(u, { hops: 'PL', via: c.url, seed: seedOf(u), chain: [], isSeed: false });
    }
  }

  // ---- pages ----

  private credentialFor(rule: CrawlRule | null): Promise<{ user: string; password: string } | null> {
    const id = rule?.credentialId;
    if (!id || !this.ctx.credential) return Promise.resolve(null);
    let p = this.credentials.get(id);
    if (!p) {
      p = this.ctx.credential(id).catch(() => null);
      this.credentials.set(id, p);
    }
    return p;
  }

  private retry(host: HostQueue, c: Candidate, waitMs: number): void {
    c.tries++;
    host.push(c);
    this.politeAfter(host, null, waitMs);
  }

  private async fetchPage(host: HostQueue, c: Candidate): Promise<void> {
    const u = new URL(c.url);
    const hist = this.history.get(c.key);
    const incremental = this.session.mode === 'incremental';
    const headers: Record<string, string> = {};
    if (incremental && hist && hist.content_hash) {
      if (hist.etag) headers['if-none-match'] = hist.etag;
      if (hist.last_modified) headers['if-modified-since'] = hist.last_modified;
    }
    const rule = this.scope.ruleFor(u, c.seed);
    const cred = await this.credentialFor(rule);
    if (cred)
      headers.authorization = `Basic ${Buffer.from(`${cred.user}:${cred.password}`).toString('base64')}`;
    const security: SecurityDescriptor | null = cred
      ? {
          entries: (rule?.principals?.length ? rule.principals : [this.defaultPrincipal]).map(
            (principal) => ({ type: 'allow' as const, principal }),
          ),
        }
      : null;

    let res: FetchResult;
    try {
      res = await this.fetcher.fetch({ url: c.url, headers, signal: this.signal });
    } catch (e) {
      if (this.signal.aborted) return;
      const fe = e instanceof FetchError ? e : new FetchError(LocalStatus.lost, String(e));
      host.netErrors++;
      if (host.netErrors >= this.settings.maxNetErrors) {
        host.closed = {
          status: fe.status,
          reason: `server parked after ${host.netErrors} consecutive network errors (last: ${fe.message})`,
          annotation: 'host-parked',
        };
        this.fail(c, fe.status, host.closed.reason, host.closed.annotation, true);
        this.failQueued(host);
        return;
      }
      if (c.tries < this.settings.retries) {
        this.retry(host, c, this.settings.retryBackoffMs * 2 ** c.tries);
        return;
      }
      this.politeAfter(host, null);
      this.fail(c, fe.status, fe.message, null, true);
      return;
    }
    host.netErrors = 0;
    this.politeAfter(host, res);
    const s = res.status;
    const base = { status: s, size: res.wireBytes, durationMs: res.durationMs };

    if (s === 304) {
      if (hist) {
        this.reached.add(c.key);
        this.session.counts.notModified++;
        this.line(c, {
          ...base,
          outcome: 'not-modified',
          reason: null,
          mime: null,
          annotations: 'not-modified',
        });
        this.followStored(c, hist);
      } else {
        this.fail(c, s, '304 Not Modified without a stored copy', null, false, res);
      }
      return;
    }
    if (s >= 300 && s < 400) return this.redirect(c, res);
    if (s === 404 || s === 410) {
      const removed = this.removeNow(c);
      if (removed) this.line(c, { ...base, outcome: 'deleted', reason: `gone (HTTP ${s})` });
      else {
        this.session.counts.failed++;
        this.line(c, { ...base, outcome: 'failed', reason: `not found (HTTP ${s})` });
      }
      return;
    }
    if (s === 429 || s === 503 || s === 408 || s >= 500) {
      const after = s === 429 || s === 503 ? retryAfterMs(header(res.headers, 'retry-after')) : undefined;
      const wait = after ?? this.settings.retryBackoffMs * 2 ** c.tries;
      if (c.tries < this.settings.retries && wait <= this.settings.maxRetryAfterSeconds * 1000) {
        this.retry(host, c, wait);
        return;
      }
      const why =
        after !== undefined && wait > this.settings.maxRetryAfterSeconds * 1000
          ? `, Retry-After ${Math.round(wait / 1000)} s exceeds the cap`
          : '';
      this.fail(c, s, `server error (HTTP ${s})${why}`, null, true, res);
      return;
    }
    if (s < 200 || s >= 300) {
      const removed = this.removeNow(c);
      this.session.counts.failed++;
      this.line(c, {
        ...base,
        outcome: 'failed',
        reason: `HTTP ${s}${removed ? ': removed from the index' : ''}`,
      });
      return;
    }
    await this.indexPage(c, u, res, hist, security);
  }

  private redirect(c: Candidate, res: FetchResult): void {
    const base = { status: res.status, size: res.wireBytes, durationMs: res.durationMs };
    const location = header(res.headers, 'location');
    const target = location ? parseHttpUrl(location, c.url) : undefined;
    if (!target) {
      this.removeNow(c);
      this.session.counts.failed++;
      this.line(c, {
        ...base,
        outcome: 'failed',
        reason: location ? `redirect to an unsupported URL (${location})` : 'redirect without Location',
      });
      return;
    }
    const chain = [...c.chain, c.key];
    const tkey = canonicalKey(target)!;
    if (chain.includes(tkey)) {
      this.removeNow(c);
      this.session.counts.failed++;
      this.line(c, {
        ...base,
        outcome: 'failed',
        reason: `redirect loop (${[...chain, tkey].join(' → ')})`,
        annotations: 'redirect-loop',
      });
      return;
    }
    if (trailingRedirects(c.hops) + 1 > this.settings.maxRedirects) {
      this.removeNow(c);
      this.session.counts.failed++;
      this.line(c, {
        ...base,
        outcome: 'failed',
        reason: `more than ${this.settings.maxRedirects} redirects in a row`,
        annotations: 'too-many-redirects',
      });
      return;
    }
    const removed = this.removeNow(c);
    const reason = `redirects to ${target.href}`;
    if (removed) this.line(c, { ...base, outcome: 'deleted', reason, annotations: 'redirect' });
    else this.exclude(c, res.status, reason, 'redirect');
    // A seed's redirect target (directly or through redirects only) is a seed itself.
    const seedChain = c.isSeed && /^R*$/.test(c.hops);
    if (seedChain && !isBareTld(target, new URL(c.seed))) this.scope.addSite(target);
    this.enqueue(target, {
      hops: `${c.hops}R`,
      via: c.url,
      seed: seedChain ? target.href : c.seed,
      chain,
      isSeed: seedChain,
    });
  }

  private async indexPage(
    c: Candidate,
    u: URL,
    res: FetchResult,
    hist: HistoryRow | undefined,
    security: SecurityDescriptor | null,
  ): Promise<void> {
    const { session, extractor } = this;
    const base = { status: res.status, size: res.wireBytes, durationMs: res.durationMs };
    const digest = contentHash(res.body);
    const incremental = session.mode === 'incremental';
    if (incremental && hist && !res.truncated && !res.decodeError && hist.content_hash === digest) {
      this.reached.add(c.key);
      session.writer.touch(hist.id, { mtime: hist.mtime, ctime: hist.ctime, size: hist.size, security });
      session.counts.notModified++;
      this.line(c, {
        ...base,
        outcome: 'not-modified',
        reason: 'content unchanged',
        digest: `sha1:${digest}`,
        annotations: 'duplicate:digest',
      });
      this.followStored(c, hist);
      return;
    }
    const ct = parseContentType(header(res.headers, 'content-type'));
    const name = nameOfUrl(u);
    const ext = extOfUrl(u);
    const mime = effectiveMime(ct.mime, ext, res.body);
    const spec = extractor.pick(ext, mime);
    let out: FilterOutput | null = null;
    let status: 'ok' | 'metadata' | 'failed' = 'metadata';
    let error: string | null = null;
    const annotations: string[] = [];
    if (res.decodeError) {
      status = 'failed';
      error = res.decodeError;
    } else if (res.truncated) {
      error =
        res.truncated === 'decompressed'
          ? `body inflates to more than ${this.settings.maxDecompressedBytes} bytes: indexed by URL only`
          : `larger than the source's max document size (${this.settings.maxDocumentBytes} bytes): indexed by URL only`;
      annotations.push(res.truncated === 'decompressed' ? 'decompressed-cap' : 'size-cap');
    } else if (!spec.metadataOnly) {
      if (res.body.length > spec.maxBytes) {
        error = `larger than the ${spec.id} filter's limit (${spec.maxBytes} bytes): indexed by URL only`;
      } else {
        try {
          out = await extractor.run({ bytes: res.body, name, ext, mime, charset: ct.charset, url: c.url });
          status = 'ok';
        } catch (e) {
          status = 'failed';
          error = e instanceof Error ? e.message : String(e);
        }
      }
    }
    if (this.signal.aborted) return;
    const links = out?.links ?? [];
    const embeds = out?.embeds ?? [];
    const lastModified = header(res.headers, 'last-modified') ?? null;
    const mtime = httpDate(lastModified ?? undefined) ?? res.startedAt;
    const declaredLength = Number(header(res.headers, 'content-length'));
    this.reached.add(c.key);
    session.writer.upsert(
      {
        sourceId: session.source.id,
        url: c.url,
        path: decodeForRules(c.url),
        name,
        ext,
        size: res.truncated && Number.isFinite(declaredLength) ? declaredLength : res.body.length,
        mtime,
        ctime: mtime,
        mime: out?.mime ?? mime,
        title: out?.title ?? null,
        description: out?.description ?? null,
        keywords: out?.keywords ?? null,
        author: out?.author ?? null,
        text: out?.text ?? '',
        contentHash: res.truncated || res.decodeError ? null : digest,
        security,
        status,
        error,
        etag: header(res.headers, 'etag') ?? null,
        lastModified,
        outlinks: [...links, ...embeds].slice(0, MAX_STORED_OUTLINKS),
        hops: c.hops,
      },
      hist?.id,
    );
    if (status === 'failed') session.counts.failed++;
    else if (hist) session.counts.updated++;
    else session.counts.added++;
    if (security) annotations.push('credential');
    this.line(c, {
      ...base,
      outcome: status === 'failed' ? 'failed' : hist ? 'updated' : 'added',
      reason: error,
      mime: out?.mime ?? mime,
      digest: `sha1:${digest}`,
      annotations: annotations.join(',') || null,
    });
    this.follow(c, links, 'L');
    this.follow(c, embeds, 'E');
  }
}

/**
 * Never promote a bare top-level domain (heritrix3 #461): a single-label host is promoted only when
 * the seed's host is single-label too (an intranet name such as `wiki`), or is `localhost`/an IP.
 */
function isBareTld(target: URL, seed: URL): boolean {
  const h = target.hostname;
  if (h.includes('.') || h.includes(':') || h === 'localhost' || h.startsWith('[')) return false;
  return seed.hostname.includes('.');
}
