/**
 * Data shapes the engine's service returns to its callers (CLI, UI contract, web shell, tests).
 * Plain serialisable objects only.
 */
import type { ContentSource, CrawlLogEntry, CrawlMode, CrawlProgress, CrawlRecord } from './model.js';
import type { BackgroundStatus } from './live/background.js';

export type SortOrder = 'relevance' | 'date' | 'name';

/** A search request. `query` uses Trawl's query language (see docs/QUERY.md). */
export interface SearchRequest {
  query: string;
  limit?: number;
  offset?: number;
  sort?: SortOrder;
  /** Restrict to these sources. */
  sourceIds?: number[];
  /** Restrict to these extensions (lowercase, no dot). */
  types?: string[];
  /** Modified at or after (ms since epoch). */
  modifiedFrom?: number;
  /** Modified before (ms since epoch). */
  modifiedTo?: number;
}

/** One result. `snippet` is HTML-escaped text in which hits are wrapped in `<mark>…</mark>`. */
export interface SearchHit {
  id: number;
  sourceId: number;
  url: string;
  path: string;
  title: string;
  snippet: string;
  score: number;
  mtime: number;
  size: number;
  /** MIME type. */
  type: string;
  ext: string;
  /** True when the document matched only some of the query's terms (sentence-query fallback). */
  partial?: boolean;
}

export interface SearchResponse {
  total: number;
  hits: SearchHit[];
  tookMs: number;
  /** Terms the query looked for (stemmed forms not included), for client-side highlighting. */
  terms: string[];
  /** True when the fallback to documents matching some terms was used. */
  relaxed?: boolean;
}

/** A document's extracted text and properties for the preview pane. */
export interface DocumentPreview {
  id: number;
  url: string;
  path: string;
  title: string;
  author: string | null;
  description: string | null;
  keywords: string | null;
  type: string;
  size: number;
  mtime: number;
  text: string;
  /** Character ranges of hits in `text` for the given query: [start, end) pairs. */
  hits: [number, number][];
  truncated: boolean;
  /**
   * Set when the text is not shown because the file changed after it was indexed (its text is
   * read from the file, and only the indexed bytes are shown); the next crawl indexes the change.
   */
  changedSinceIndexed?: true;
}

export interface SourceStats {
  sourceId: number;
  documents: number;
  failed: number;
  byType: { ext: string; count: number }[];
  lastCrawl: CrawlRecord | null;
}

export interface IndexStatus {
  dataDir: string;
  documents: number;
  indexBytes: number;
  sources: (ContentSource & { stats: SourceStats })[];
  running: CrawlProgress[];
  /** The live runner's state (watching, schedules, watch count, memory) when one serves this index. */
  live?: BackgroundStatus | null;
}

export interface CrawlRequest {
  sourceId?: number;
  mode?: CrawlMode;
}

export interface LogRequest {
  sourceId?: number;
  crawlId?: number;
  failedOnly?: boolean;
  limit?: number;
}

export type { ContentSource, CrawlLogEntry, CrawlMode, CrawlProgress, CrawlRecord };
