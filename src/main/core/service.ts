import fs from 'node:fs';
import path from 'node:path';
import type {
  CrawlRequest,
  DocumentPreview,
  IndexStatus,
  LogRequest,
  SearchRequest,
  SearchResponse,
  SourceStats,
} from './api-types.js';
import { closeInterruptedCrawls, CrawlSession } from './crawl/crawl-session.js';
import { RuleMatcher, type RuleDecision } from './crawl/crawl-rules.js';
import { crawlTree, toRuleTarget, type ContentExtractor } from './crawl/tree-crawler.js';
import type { Credential, CredentialStore } from './credential-store.js';
import { openDatabase, type Db } from './index/database.js';
import { IndexWriter } from './index/index-writer.js';
import { normalizeAddress, SourceStore, SourceError } from './index/source-store.js';
import type {
  CrawlRule,
  ContentSource,
  CrawlLogEntry,
  CrawlProgress,
  CrawlRecord,
  FieldWeights,
  NewContentSource,
} from './model.js';
import { preview as previewDoc, search as searchIndex, suggest as suggestTerms } from './query/search.js';
import type { AclFilter } from './query/search.js';
import type { RefreshTermTopsResult } from './query/term-tops.js';
import { TermTopsRefresher } from './query/term-tops-refresher.js';
import { visibleAclIds } from './security/acl-eval.js';
import type { CurrentUser, SecurityProvider } from './security/security-provider.js';
import type { HandlerRegistry } from './sources/registry.js';
import { HttpSettingsError, resolveHttpSettings } from './sources/http/http-settings.js';
import { mountedShareProblem } from './sources/smb/mounted-share-settings.js';

/** Events the service emits. */
export interface ServiceEvents {
  progress: CrawlProgress;
  'crawl-finished': CrawlRecord;
  'sources-changed': ContentSource[];
}

export type ServiceEventName = keyof ServiceEvents;

/** What the composition root hands the service. */
export interface ServiceDeps {
  dataDir: string;
  db: Db;
  handlers: HandlerRegistry;
  extractor: ContentExtractor & { close?(): Promise<void> };
  security: SecurityProvider;
  credentials: CredentialStore;
  /** Look up what a user's principals need from the network (SMB SIDs) before trimming for them. */
  preparePrincipals?: (username: string) => Promise<void>;
  /** At most this many sources crawl at once (default 2). */
  maxConcurrentCrawls?: number;
}

/** The part of the service that is trimmed to one user. */
export interface UserView {
  whoami(): CurrentUser;
  search(req: SearchRequest): SearchResponse;
  preview(id: number, query?: string): DocumentPreview | null;
  suggest(prefix: string): string[];
  openItem(id: number): OpenTarget | null;
}

/** A place an item can be opened: a local path or a URL. */
export interface OpenTarget {
  kind: 'file' | 'url';
  target: string;
}

/** Background index upkeep (frequent-word tops) waits this long after a person's last query. */
const QUERY_QUIET_MS = 1_500;

/**
 * The engine's API: sources, crawls, search, preview, status. One object per data directory,
 * serving every transport (CLI, web shell, Electron IPC, tests).
 *
 * Contract: search/preview/suggest/open are trimmed to the current user resolved once at
 * construction; an id the user may not see behaves exactly like an id that does not exist.
 */
export class TrawlService {
  readonly sources: SourceStore;
  private readonly user: CurrentUser;
  private readonly listeners = new Map<ServiceEventName, Set<(v: never) => void>>();
  private readonly running = new Map<
    number,
    { promise: Promise<CrawlRecord>; abort: AbortController; progress: CrawlProgress | null }
  >();
  private readonly queue: (() => void)[] = [];
  private active = 0;
  private readonly aclCache = new Map<string, AclFilter>();
  private readonly self: UserView;
  /**
   * The one writer of this connection: every crawl (and live update) writes through it, so their
   * batched transactions never interleave (two writers on one connection would commit or roll
   * back each other's work).
   */
  private readonly writer: IndexWriter;
  private readonly termTops: TermTopsRefresher;
  private lastQueryAt = 0;
  private closed = false;
  /** Full and incremental crawls wait on this between items (live updates do not). */
  private crawlGate: { wait(): Promise<void> } | null = null;
  private activity: (() => void) | null = null;
  /** Bumped whenever indexed content or sources change; lets the query layer drop its caches. */
  private generation = 0;

  /** Open the engine for a data directory with the platform's handlers, filters and security. */
  static async open(opts: import('./engine.js').EngineOptions): Promise<TrawlService> {
    const { createEngine } = await import('./engine.js');
    return createEngine(opts);
  }

  constructor(private readonly deps: ServiceDeps) {
    this.sources = new SourceStore(deps.db);
    this.user = deps.security.currentUser();
    this.self = this.forUser(this.user);
    this.writer = new IndexWriter(deps.db);
    closeInterruptedCrawls(deps.db);
    // Steps aside while crawls run and for a moment after each search or suggestion.
    this.termTops = new TermTopsRefresher(
      deps.db,
      () => this.running.size > 0 || Date.now() - this.lastQueryAt < QUERY_QUIET_MS,
    );
    this.termTops.schedule();
  }

  get db(): Db {
    return this.deps.db;
  }

  get dataDir(): string {
    return this.deps.dataDir;
  }

  // ---- events ----

  /** Subscribe to an event; returns the unsubscribe function. */
  on<E extends ServiceEventName>(event: E, cb: (v: ServiceEvents[E]) => void): () => void {
    let set = this.listeners.get(event);
    if (!set) this.listeners.set(event, (set = new Set()));
    set.add(cb as (v: never) => void);
    return () => set!.delete(cb as (v: never) => void);
  }

  private emit<E extends ServiceEventName>(event: E, value: ServiceEvents[E]): void {
    if (event !== 'progress') this.generation++;
    for (const cb of this.listeners.get(event) ?? []) {
      try {
        (cb as (v: ServiceEvents[E]) => void)(value);
      } catch {
        /* a listener's failure is its own */
      }
    }
  }

  // ---- sources ----

  listSources(): ContentSource[] {
    return this.sources.list();
  }

  addSource(input: NewContentSource): ContentSource {
    const s = this.sources.add({ ...input, rules: this.ownCredentialRules(input.rules) });
    try {
      validateKindSettings(s);
    } catch (e) {
      this.sources.remove(s.id);
      throw e;
    }
    this.emit('sources-changed', this.sources.list());
    return s;
  }

  updateSource(id: number, patch: Partial<NewContentSource> & { paused?: boolean }): ContentSource {
    const before = this.sources.get(id);
    const s = this.sources.update(
      id,
      patch.rules ? { ...patch, rules: this.ownCredentialRules(patch.rules) } : patch,
    );
    try {
      validateKindSettings(s);
    } catch (e) {
      if (before) this.sources.update(id, { ...before, startAddresses: before.displayAddresses });
      throw e;
    }
    this.emit('sources-changed', this.sources.list());
    return s;
  }

  removeSource(id: number): void {
    this.running.get(id)?.abort.abort();
    if (!this.sources.remove(id)) throw new SourceError(`no source with id ${id}`);
    this.aclCache.clear();
    this.emit('sources-changed', this.sources.list());
  }

  /**
   * Items fetched with a rule's credential are readable by the rule's principals; a rule saved
   * without any gets the user who saved it (a daemon crawling as root must not widen that).
   */
  private ownCredentialRules(rules: CrawlRule[] | undefined): CrawlRule[] | undefined {
    const me = this.user.id ?? `user:${this.user.user}`;
    return rules?.map((r) => (r.credentialId && !r.principals?.length ? { ...r, principals: [me] } : r));
  }

  /** Test a path or URL against a source's rules, as the crawl would decide for a file. */
  testRules(sourceId: number, urlOrPath: string): RuleDecision {
    const s = this.sources.get(sourceId);
    if (!s) throw new SourceError(`no source with id ${sourceId}`);
    const root = toRuleTarget({ url: s.startAddresses[0], displayPath: s.displayAddresses[0] });
    let input = urlOrPath.trim();
    const isFolder = /[\\/]$/.test(input);
    if (s.kind === 'file' && !input.startsWith('file:') && !path.isAbsolute(input))
      input = path.join(s.displayAddresses[0], input);
    const { url, display } = normalizeAddress(input);
    const target = toRuleTarget({ url, displayPath: display });
    return new RuleMatcher(s).decide(target, root, isFolder);
  }

  // ---- crawls ----

  /**
   * Crawl one source or every unpaused source. Resolves with each crawl's record when all are done.
   * A request for a source that is already crawling joins that crawl instead of starting another.
   */
  async crawl(req: CrawlRequest = {}): Promise<CrawlRecord[]> {
    const targets =
      req.sourceId != null
        ? [this.sources.get(req.sourceId) ?? this.fail(`no source with id ${req.sourceId}`)]
        : this.sources.list().filter((s) => !s.paused);
    return Promise.all(targets.map((s) => this.crawlOne(s, req.mode ?? 'incremental')));
  }

  private fail(msg: string): never {
    throw new SourceError(msg);
  }

  private crawlOne(source: ContentSource, mode: 'full' | 'incremental'): Promise<CrawlRecord> {
    const existing = this.running.get(source.id);
    if (existing) return existing.promise;
    const abort = new AbortController();
    void this.termTops.pause();
    const entry = {
      promise: null as unknown as Promise<CrawlRecord>,
      abort,
      progress: null as CrawlProgress | null,
    };
    entry.promise = this.withSlot(() =>
      this.runCrawl(source, mode, abort.signal, (p) => (entry.progress = p)),
    ).finally(() => this.running.delete(source.id));
    this.running.set(source.id, entry);
    return entry.promise;
  }

  private async withSlot<T>(fn: () => Promise<T>): Promise<T> {
    const max = this.deps.maxConcurrentCrawls ?? 2;
    while (this.active >= max) await new Promise<void>((r) => this.queue.push(r));
    this.active++;
    try {
      return await fn();
    } finally {
      this.active--;
      this.queue.shift()?.();
    }
  }

  private async runCrawl(
    source: ContentSource,
    mode: 'full' | 'incremental',
    signal: AbortSignal,
    track: (p: CrawlProgress) => void,
    paths?: string[],
  ): Promise<CrawlRecord> {
    const writer = this.writer;
    const session = new CrawlSession({
      db: this.db,
      writer,
      source,
      mode,
      signal,
      onProgress: (p) => {
        track(p);
        this.emit('progress', p);
      },
    });
    const handler = this.deps.handlers.forUrl(source.startAddresses[0]);
    const ctx = {
      source,
      signal,
      credential: (id: string) => this.deps.credentials.get(id),
    };
    let record: CrawlRecord;
    try {
      if (!handler) throw new SourceError(`no protocol handler for ${source.startAddresses[0]}`);
      session.tick(true);
      if (handler.kind === 'hierarchical') {
        try {
          await crawlTree(session, handler, this.deps.extractor, ctx, {
            paths,
            gate: paths ? undefined : (this.crawlGate ?? undefined),
          });
        } finally {
          await handler.close?.(ctx);
        }
      } else {
        await handler.crawl(session, this.deps.extractor, ctx);
      }
      record = session.finish(signal.aborted ? 'stopped' : 'done');
    } catch (e) {
      try {
        writer.flush();
      } catch {
        writer.rollback();
      }
      record = session.finish('failed', (e as Error).message);
    }
    this.aclCache.clear();
    this.emit('crawl-finished', record);
    const { added, updated, deleted } = record.counts;
    if (added + updated + deleted > 0) this.termTops.schedule();
    return record;
  }

  /**
   * Apply a batch of changed paths (URLs) of a hierarchical source through a partial crawl: each
   * path is re-examined (added, updated, not modified, or deleted with everything below it).
   * Waits for a running crawl of the same source to finish first. Used by live watching.
   */
  async updatePaths(sourceId: number, paths: string[]): Promise<CrawlRecord> {
    const source = this.sources.get(sourceId) ?? this.fail(`no source with id ${sourceId}`);
    await this.running.get(sourceId)?.promise.catch(() => undefined);
    return this.runCrawl(source, 'incremental', new AbortController().signal, () => {}, paths);
  }

  /** Crawls yield to this gate between items (the live runner's activity and CPU-budget gate). */
  setCrawlGate(gate: { wait(): Promise<void> } | null): void {
    this.crawlGate = gate;
  }

  /**
   * Called on every search and suggestion a transport serves to a person (web shell, Electron),
   * so crawls can step aside while someone types.
   */
  setActivityListener(listener: (() => void) | null): void {
    this.activity = listener;
  }

  /** Stop one source's crawl, or all crawls. What was indexed so far is kept. */
  stopCrawl(sourceId?: number): void {
    for (const [id, r] of this.running) if (sourceId == null || id === sourceId) r.abort.abort();
  }

  /** Pause a source (no scheduled or "all sources" crawls) or every source; stops running crawls. */
  pause(sourceId?: number): void {
    for (const s of this.sources.list()) {
      if (sourceId != null && s.id !== sourceId) continue;
      this.sources.update(s.id, { paused: true });
      this.stopCrawl(s.id);
    }
    this.emit('sources-changed', this.sources.list());
  }

  resume(sourceId?: number): void {
    for (const s of this.sources.list()) {
      if (sourceId != null && s.id !== sourceId) continue;
      this.sources.update(s.id, { paused: false });
    }
    this.emit('sources-changed', this.sources.list());
  }

  /** Progress of crawls that are running now. */
  runningCrawls(): CrawlProgress[] {
    return [...this.running.values()].flatMap((r) => (r.progress ? [r.progress] : []));
  }

  // ---- search ----

  private aclFilter(user: CurrentUser): AclFilter {
    const version = this.db.pragma('data_version', { simple: true }) as number;
    const count = (this.db.prepare('SELECT count(*) AS n FROM acls').get() as { n: number }).n;
    const key = `${version}:${count}:${user.principals.join('|')}`;
    const hit = this.aclCache.get(key);
    if (hit) return hit;
    const aclIds = visibleAclIds(this.db, user.principals);
    // A user who may read every stored descriptor (the usual single-user desktop) needs no
    // condition at all: "acl_id IS NULL OR acl_id IN (every id)" is every document.
    const filter: AclFilter = aclIds.length === count ? { mode: 'all' } : { mode: 'ids', aclIds };
    if (this.aclCache.size > 64) this.aclCache.clear();
    this.aclCache.set(key, filter);
    return filter;
  }

  private searchContext(user: CurrentUser) {
    const weightsBySource = new Map<number, FieldWeights>();
    const sourceNames = new Map<string, number>();
    for (const s of this.sources.list()) {
      weightsBySource.set(s.id, s.settings.weights);
      sourceNames.set(s.name.toLowerCase(), s.id);
    }
    return { acl: this.aclFilter(user), weightsBySource, sourceNames, generation: this.generation };
  }

  /**
   * Resolve what `username`'s principals need from the network (their SIDs on SMB servers); call
   * before resolving that user for {@link forUser}. Never throws for an unreachable server.
   */
  async preparePrincipals(username: string): Promise<void> {
    await this.deps.preparePrincipals?.(username).catch(() => undefined);
  }

  /**
   * The search API trimmed to another user (the daemon answers each caller as the OS user its
   * channel authenticated). The service's own methods are `forUser(whoami())`.
   */
  forUser(user: CurrentUser): UserView {
    // Each call reads one snapshot: the visible-ACL set and the query that applies it must see the
    // same committed data, or a document committed in between by another process could slip past.
    const snapshot = <T>(fn: () => T): T => this.db.transaction(fn).deferred();
    return {
      whoami: () => user,
      search: (req) => {
        this.lastQueryAt = Date.now();
        this.activity?.();
        // With no write transaction open on this connection, the snapshot sees committed data only.
        const cleanSnapshot = !this.db.inTransaction;
        return snapshot(() => searchIndex(this.db, req, { ...this.searchContext(user), cleanSnapshot }));
      },
      preview: (id, query) => snapshot(() => previewDoc(this.db, id, query, this.searchContext(user))),
      suggest: (prefix) => {
        this.lastQueryAt = Date.now();
        this.activity?.();
        return snapshot(() => suggestTerms(this.db, prefix, this.searchContext(user)));
      },
      openItem: (id) =>
        snapshot(() => {
          if (!previewDoc(this.db, id, undefined, this.searchContext(user))) return null;
          const row = this.db.prepare('SELECT url, path FROM documents WHERE id = ?').get(id) as {
            url: string;
            path: string;
          };
          return row.url.startsWith('file:')
            ? { kind: 'file', target: row.path }
            : { kind: 'url', target: row.url };
        }),
    };
  }

  /** Search the index as the current user. Throws QuerySyntaxError for malformed queries. */
  search(req: SearchRequest): SearchResponse {
    return this.self.search(req);
  }

  /** A document's text for the preview pane, or null when it does not exist or is not visible. */
  preview(id: number, query?: string): DocumentPreview | null {
    return this.self.preview(id, query);
  }

  /** Completions for what the user is typing, from documents the user may see. */
  suggest(prefix: string): string[] {
    return this.self.suggest(prefix);
  }

  /** Where to open a result, after re-checking that the current user may see it. */
  openItem(id: number): OpenTarget | null {
    return this.self.openItem(id);
  }

  /** Like {@link openItem}: the folder-revealing variant uses the same check. */
  revealItem(id: number): OpenTarget | null {
    return this.self.openItem(id);
  }

  whoami(): CurrentUser {
    return this.user;
  }

  /**
   * Another OS user as the platform's security provider resolves them (uid, every gid, SMB SIDs
   * and their names), for {@link forUser}. Rejects where the platform cannot resolve uids.
   */
  async userFromUid(uid: number): Promise<CurrentUser> {
    const fromUid = this.deps.security.userFromUid;
    if (!fromUid) throw new Error('this platform resolves no users by uid');
    return fromUid.call(this.deps.security, uid);
  }

  // ---- credentials ----

  async setCredential(id: string, secret: Credential): Promise<void> {
    if (!/^[\w.@-]{1,64}$/.test(id))
      throw new SourceError('a credential id is 1-64 letters, digits, _ . @ -');
    await this.deps.credentials.set(id, secret);
  }

  async credentialIds(): Promise<string[]> {
    return this.deps.credentials.ids();
  }

  // ---- status and log ----

  sourceStats(sourceId: number): SourceStats {
    const db = this.db;
    const docs = db
      .prepare(`SELECT count(*) AS n, sum(status = 'failed') AS f FROM documents WHERE source_id = ?`)
      .get(sourceId) as {
      n: number;
      f: number | null;
    };
    const byType = db
      .prepare(
        `SELECT ext, count(*) AS count FROM documents WHERE source_id = ? GROUP BY ext ORDER BY count DESC LIMIT 20`,
      )
      .all(sourceId) as { ext: string; count: number }[];
    const last = db
      .prepare('SELECT * FROM crawls WHERE source_id = ? ORDER BY id DESC LIMIT 1')
      .get(sourceId) as CrawlRow | undefined;
    return {
      sourceId,
      documents: docs.n,
      failed: docs.f ?? 0,
      byType,
      lastCrawl: last ? crawlFromRow(last) : null,
    };
  }

  status(): IndexStatus {
    const documents = (this.db.prepare('SELECT count(*) AS n FROM documents').get() as { n: number }).n;
    let indexBytes = 0;
    for (const f of ['index.sqlite', 'index.sqlite-wal']) {
      try {
        indexBytes += fs.statSync(path.join(this.dataDir, f)).size;
      } catch {}
    }
    return {
      dataDir: this.dataDir,
      documents,
      indexBytes,
      sources: this.sources.list().map((s) => ({ ...s, stats: this.sourceStats(s.id) })),
      running: this.runningCrawls(),
    };
  }

  /** Crawl history records, newest first. */
  crawls(sourceId?: number, limit = 20): CrawlRecord[] {
    const rows = (
      sourceId == null
        ? this.db.prepare('SELECT * FROM crawls ORDER BY id DESC LIMIT ?').all(limit)
        : this.db
            .prepare('SELECT * FROM crawls WHERE source_id = ? ORDER BY id DESC LIMIT ?')
            .all(sourceId, limit)
    ) as CrawlRow[];
    return rows.map(crawlFromRow);
  }

  /**
   * Crawl log lines, newest first. Defaults to the latest crawl of each requested source; with
   * `failedOnly`, also every item that is still failed from an earlier crawl (unchanged since).
   */
  log(req: LogRequest = {}): CrawlLogEntry[] {
    const where: string[] = [];
    const params: (string | number)[] = [];
    if (req.crawlId != null) {
      where.push('crawl_id = ?');
      params.push(req.crawlId);
    } else {
      where.push(
        req.sourceId != null
          ? 'crawl_id = (SELECT max(id) FROM crawls WHERE source_id = ?)'
          : 'crawl_id IN (SELECT max(id) FROM crawls GROUP BY source_id)',
      );
      if (req.sourceId != null) params.push(req.sourceId);
    }
    if (req.failedOnly) where.push(`outcome = 'failed'`);
    const limit = Math.min(Math.max(req.limit ?? 200, 1), 10_000);
    const rows = this.db
      .prepare(`SELECT * FROM crawl_log WHERE ${where.join(' AND ')} ORDER BY id DESC LIMIT ${limit}`)
      .all(...params) as LogRow[];
    const entries = rows.map(logFromRow);
    if (req.failedOnly && req.crawlId == null) {
      // Items that failed in an earlier crawl and were unchanged since are still failed: list them too.
      const listed = new Set(entries.map((e) => e.url));
      const docs = this.db
        .prepare(
          `SELECT id, source_id, path, crawl_time, error, mime, size FROM documents WHERE status = 'failed' ${req.sourceId != null ? 'AND source_id = ?' : ''} ORDER BY crawl_time DESC LIMIT ${limit}`,
        )
        .all(...(req.sourceId != null ? [req.sourceId] : [])) as {
        id: number;
        source_id: number;
        path: string;
        crawl_time: number;
        error: string | null;
        mime: string | null;
        size: number;
      }[];
      for (const d of docs) {
        if (listed.has(d.path)) continue;
        entries.push({
          id: -d.id,
          crawlId: 0,
          sourceId: d.source_id,
          at: d.crawl_time,
          url: d.path,
          outcome: 'failed',
          reason: d.error,
          mime: d.mime,
          size: d.size,
        });
      }
      entries.sort((a, b) => b.at - a.at);
    }
    return entries.slice(0, limit);
  }

  /**
   * Bring the stored top results of frequent words up to date now (otherwise done in the
   * background a few seconds after crawls change the index). Queries are correct either way.
   */
  refreshSearchShortcuts(budgetMs?: number): Promise<RefreshTermTopsResult> {
    return this.termTops.refreshNow(budgetMs);
  }

  /** Stop crawls, wait for them, release workers and close the database. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stopCrawl();
    await Promise.allSettled([...this.running.values()].map((r) => r.promise));
    await this.termTops.close();
    await this.deps.extractor.close?.();
    this.db.close();
  }
}

interface CrawlRow {
  id: number;
  source_id: number;
  mode: string;
  started_at: number;
  ended_at: number | null;
  status: string;
  discovered: number;
  added: number;
  updated: number;
  not_modified: number;
  deleted: number;
  failed: number;
  excluded: number;
  error: string | null;
}

interface LogRow {
  id: number;
  crawl_id: number;
  source_id: number;
  at: number;
  url: string;
  outcome: string;
  reason: string | null;
  status: number | null;
  size: number | null;
  hops: string | null;
  via: string | null;
  mime: string | null;
  duration_ms: number | null;
  digest: string | null;
  annotations: string | null;
}

/** Kind-specific settings are checked when a source is saved, not when it is first crawled. */
function validateKindSettings(s: ContentSource): void {
  // settings.smb.shareIdentity: a folder source that is a mounted SMB share (docs/SMB-HANDLER.md)
  const mounted = mountedShareProblem(s);
  if (mounted) throw new SourceError(mounted);
  if (s.kind !== 'http') return;
  try {
    resolveHttpSettings(s.settings.http ?? {});
  } catch (e) {
    if (e instanceof HttpSettingsError) throw new SourceError(e.message);
    throw e;
  }
}

function logFromRow(r: LogRow): CrawlLogEntry {
  return {
    id: r.id,
    crawlId: r.crawl_id,
    sourceId: r.source_id,
    at: r.at,
    url: r.url,
    outcome: r.outcome as CrawlLogEntry['outcome'],
    reason: r.reason,
    status: r.status,
    size: r.size,
    hops: r.hops,
    via: r.via,
    mime: r.mime,
    durationMs: r.duration_ms,
    digest: r.digest,
    annotations: r.annotations,
  };
}

function crawlFromRow(r: CrawlRow): CrawlRecord {
  return {
    id: r.id,
    sourceId: r.source_id,
    mode: r.mode as CrawlRecord['mode'],
    startedAt: r.started_at,
    endedAt: r.ended_at,
    status: r.status as CrawlRecord['status'],
    counts: {
      discovered: r.discovered,
      added: r.added,
      updated: r.updated,
      notModified: r.not_modified,
      deleted: r.deleted,
      failed: r.failed,
      excluded: r.excluded,
    },
    error: r.error,
  };
}

export { openDatabase };
