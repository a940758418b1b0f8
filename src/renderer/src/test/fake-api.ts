/**
 * An in-memory implementation of the contract for component tests. Requests go through the real
 * `dispatch` (zod validation included), so a component that sends a malformed request fails here
 * exactly as it would against the engine. Every call is recorded.
 */
import type {
  BackgroundStatus,
  ContentSource,
  CrawlProgress,
  DocumentPreview,
  LiveSourceStatus,
  SearchHit,
  SearchResponse,
} from '../../../shared/contract.js';
import { EventHub } from '../../../shared/event-hub.js';
import { createLocalClient, TrawlError, type Handlers, type TrawlApi } from '../../../shared/rpc.js';

export interface FakeDoc {
  id: number;
  sourceId?: number;
  title: string;
  path: string;
  text: string;
  ext?: string;
  mtime?: number;
  size?: number;
  /** Snippet override (escaped HTML with <mark>), else built from `text`. */
  snippet?: string;
  /** The file changed after it was indexed: the preview has no text (text left at the source). */
  changedSinceIndexed?: true;
}

export interface FakeOptions {
  sources?: ContentSource[];
  docs?: FakeDoc[];
  /** Total reported by search regardless of matches (virtualization tests). */
  syntheticTotal?: number;
  /** Delay before a search answers, per query. */
  searchDelay?(query: string): number;
  /** What `liveStatus` answers (default null: no background runner attached). */
  live?: BackgroundStatus | null;
  /** Replace individual handlers (e.g. to act as the Electron transport). */
  overrides?: Partial<Handlers>;
}

export interface FakeApi {
  api: TrawlApi;
  calls: { method: string; request: unknown }[];
  events: EventHub;
  sources: ContentSource[];
  callsOf(method: string): unknown[];
}

export function makeSource(
  id: number,
  name: string,
  path: string,
  extra: Partial<ContentSource> = {},
): ContentSource {
  return {
    id,
    name,
    kind: 'file',
    startAddresses: [`file://${path}`],
    displayAddresses: [path],
    rules: [],
    settings: {
      maxFileSize: 50 * 1024 * 1024,
      followSymlinks: false,
      includeHidden: false,
      allowTypes: [],
      denyTypes: [],
      defaultExcludes: true,
      parallelism: 0,
      weights: { title: 10, keywords: 5, description: 3, url: 2, body: 1 },
      schedule: {},
    },
    paused: false,
    createdAt: 0,
    ...extra,
  };
}

function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function hitRanges(text: string, terms: string[]): [number, number][] {
  const lower = text.toLowerCase();
  const ranges: [number, number][] = [];
  for (const term of terms) {
    for (let i = lower.indexOf(term); i !== -1; i = lower.indexOf(term, i + term.length))
      ranges.push([i, i + term.length]);
  }
  return ranges.sort((a, b) => a[0] - b[0]);
}

export function createFakeApi(opts: FakeOptions = {}): FakeApi {
  const events = new EventHub();
  const calls: { method: string; request: unknown }[] = [];
  const sources = [...(opts.sources ?? [])];
  const docs = opts.docs ?? [];
  let nextSourceId = Math.max(0, ...sources.map((s) => s.id)) + 1;

  const termsOf = (query: string) =>
    query
      .toLowerCase()
      .split(/\s+/)
      .filter((t) => t && !t.includes(':'));

  const toHit = (d: FakeDoc, terms: string[]): SearchHit => {
    const marked =
      d.snippet ??
      terms.reduce((acc, t) => acc.split(t).join(`<mark>${t}</mark>`), escapeHtml(d.text.slice(0, 200)));
    return {
      id: d.id,
      sourceId: d.sourceId ?? 1,
      url: `file://${d.path}`,
      path: d.path,
      title: d.title,
      snippet: marked,
      score: 1,
      mtime: d.mtime ?? Date.UTC(2024, 4, 1),
      size: d.size ?? d.text.length,
      type: 'text/plain',
      ext: d.ext ?? d.path.split('.').pop() ?? '',
    };
  };

  const handlers: Handlers = {
    listSources: () => sources,
    addSource: (req) => {
      const path = req.startAddresses[0];
      const s = makeSource(nextSourceId++, req.name ?? path.split('/').filter(Boolean).pop() ?? path, path, {
        kind: req.kind ?? 'file',
      });
      sources.push(s);
      events.emit('sources-changed', [...sources]);
      return s;
    },
    updateSource: ({ id, patch }) => {
      const i = sources.findIndex((s) => s.id === id);
      if (i === -1) throw new TrawlError('NOT_FOUND', `No source with id ${id}`);
      const cur = sources[i];
      const next: ContentSource = {
        ...cur,
        name: patch.name ?? cur.name,
        rules: patch.rules ?? cur.rules,
        paused: patch.paused ?? cur.paused,
        displayAddresses: patch.startAddresses ?? cur.displayAddresses,
        settings: { ...cur.settings, ...(patch.settings ?? {}) } as ContentSource['settings'],
      };
      sources[i] = next;
      return next;
    },
    removeSource: ({ id }) => {
      const i = sources.findIndex((s) => s.id === id);
      if (i !== -1) sources.splice(i, 1);
      return null;
    },
    testRules: ({ target }) => {
      const rule = sources
        .flatMap((s) => s.rules)
        .find((r) => r.action === 'exclude' && target.endsWith(r.pattern.replace(/^\*+/, '')));
      return rule
        ? { included: false, rule, reason: `excluded by rule 1 (${rule.pattern})` }
        : { included: true, rule: null, reason: 'no rule matched' };
    },
    startCrawl: () => null,
    stopCrawl: () => null,
    pause: () => null,
    resume: () => null,
    search: async (req) => {
      if ((req.query.match(/"/g)?.length ?? 0) % 2 === 1) {
        throw Object.assign(new Error('Unbalanced quote: close the phrase with "'), {
          name: 'QuerySyntaxError',
        });
      }
      const delay = opts.searchDelay?.(req.query) ?? 0;
      if (delay > 0) await new Promise((r) => setTimeout(r, delay));
      const terms = termsOf(req.query);
      const offset = req.offset ?? 0;
      const limit = req.limit ?? 50;
      let hits: SearchHit[];
      let total: number;
      if (opts.syntheticTotal !== undefined) {
        total = opts.syntheticTotal;
        hits = [];
        for (let i = offset; i < Math.min(total, offset + limit); i++) {
          hits.push(
            toHit(
              {
                id: i + 1,
                title: `Document ${i + 1}`,
                path: `/data/doc-${i + 1}.txt`,
                text: `${terms[0] ?? ''} number ${i + 1}`,
              },
              terms,
            ),
          );
        }
      } else {
        const matching = docs.filter((d) =>
          terms.every((t) => `${d.title} ${d.text}`.toLowerCase().includes(t)),
        );
        total = matching.length;
        hits = matching.slice(offset, offset + limit).map((d) => toHit(d, terms));
      }
      const res: SearchResponse = { total, hits, tookMs: 3, terms };
      return res;
    },
    preview: ({ id, query }) => {
      const d = docs.find((x) => x.id === id);
      if (!d) return null;
      const preview: DocumentPreview = {
        id: d.id,
        url: `file://${d.path}`,
        path: d.path,
        title: d.title,
        author: null,
        description: null,
        keywords: null,
        type: 'text/plain',
        size: d.text.length,
        mtime: d.mtime ?? 0,
        text: d.changedSinceIndexed ? '' : d.text,
        hits: d.changedSinceIndexed ? [] : hitRanges(d.text, termsOf(query ?? '')),
        truncated: false,
        ...(d.changedSinceIndexed ? { changedSinceIndexed: true as const } : {}),
      };
      return preview;
    },
    suggest: ({ prefix }) => {
      const last = prefix.trim().split(/\s+/).pop()?.toLowerCase() ?? '';
      const words = new Set(
        docs
          .flatMap((d) => d.text.toLowerCase().split(/\W+/))
          .filter((w) => w.startsWith(last) && w !== last),
      );
      return [...words].slice(0, 5);
    },
    status: () => ({
      dataDir: '/tmp/fake',
      documents: docs.length,
      indexBytes: 123456,
      sources: sources.map((s) => ({
        ...s,
        stats: {
          sourceId: s.id,
          documents: docs.length,
          failed: 0,
          byType: [{ ext: 'txt', count: docs.length }],
          lastCrawl: null,
        },
      })),
      running: [],
    }),
    liveStatus: () => opts.live ?? null,
    log: () => [
      {
        id: 1,
        crawlId: 1,
        sourceId: 1,
        at: Date.UTC(2024, 4, 1),
        url: 'file:///data/broken.pdf',
        outcome: 'failed',
        reason: 'corrupt PDF',
      },
      {
        id: 2,
        crawlId: 1,
        sourceId: 1,
        at: Date.UTC(2024, 4, 1),
        url: 'file:///data/x.tmp',
        outcome: 'excluded',
        reason: 'excluded by rule 1 (*.tmp)',
      },
    ],
    whoami: () => ({
      user: 'alice',
      principals: ['everyone', 'uid:1000', 'gid:1000'],
      display: 'alice · groups: alice, sales',
    }),
    openItem: ({ id }) => {
      const d = docs.find((x) => x.id === id);
      return d ? { kind: 'file', target: d.path, opened: true } : null;
    },
    setCredential: () => null,
    credentialIds: () => ['intranet'],
    pickFolder: () => {
      throw new TrawlError('UNSUPPORTED', 'No folder picker here');
    },
    hideWindow: () => null,
    appInfo: () => ({
      transport: 'web',
      version: 'test',
      platform: 'linux',
      canPickFolder: false,
      canOpenFiles: true,
    }),
    desktopSettings: () => {
      throw new TrawlError('UNSUPPORTED', 'desktop only');
    },
    updateDesktopSettings: () => {
      throw new TrawlError('UNSUPPORTED', 'desktop only');
    },
  };

  const recorded = Object.fromEntries(
    Object.entries({ ...handlers, ...opts.overrides }).map(([name, fn]) => [
      name,
      (request: unknown) => {
        calls.push({ method: name, request });
        return (fn as (r: unknown) => unknown)(request);
      },
    ]),
  ) as unknown as Handlers;

  const api = createLocalClient(recorded, (event, listener) => events.on(event, listener as never));
  return {
    api,
    calls,
    events,
    sources,
    callsOf: (method) => calls.filter((c) => c.method === method).map((c) => c.request),
  };
}

/** A running progress event for a source. */
export function progressEvent(
  sourceId: number,
  done: number,
  discovered: number,
  state: CrawlProgress['state'] = 'running',
): CrawlProgress {
  return {
    crawlId: 1,
    sourceId,
    mode: 'full',
    counts: { discovered, added: done, updated: 0, notModified: 0, deleted: 0, failed: 0, excluded: 0 },
    done,
    currentItem: state === 'running' ? `/data/file-${done}.txt` : null,
    rate: 12.5,
    state,
  };
}

/** One source's live state as the background runner reports it. */
export function liveSource(
  sourceId: number,
  state: LiveSourceStatus['state'],
  extra: Partial<LiveSourceStatus> = {},
): LiveSourceStatus {
  return {
    sourceId,
    name: `Source ${sourceId}`,
    state,
    reason: null,
    watches: state === 'watching' ? 12 : 0,
    pollMinutes: state === 'polling' ? 15 : null,
    pendingChanges: 0,
    liveUpdates: 0,
    lastUpdate: null,
    nextIncrementalAt: null,
    nextFullAt: null,
    crawling: null,
    ...extra,
  };
}

/** A running background runner's status holding `sources`. */
export function backgroundStatus(sources: LiveSourceStatus[]): BackgroundStatus {
  return {
    running: true,
    paused: false,
    sources,
    watches: sources.reduce((n, s) => n + s.watches, 0),
    watchBudget: 100_000,
    inotify: { limit: 65_536, inUse: null },
    memory: null,
    throttle: null,
    priority: null,
  };
}
