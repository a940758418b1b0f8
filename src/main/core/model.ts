/**
 * The engine's vocabulary: content sources, crawl rules, items, principals and security descriptors.
 * Plain data only; every other engine module speaks in these types.
 */

/** Which protocol family a content source uses; decides the handler and the crawl loop. */
export type SourceKind = 'file' | 'smb' | 'http';

/** How a crawl rule's pattern is matched against an item's URL or path. */
export type RuleSyntax = 'glob' | 'regex' | 'prefix';

/**
 * One ordered crawl rule. Rules are tried in order and the first one whose pattern matches decides;
 * an item no rule matches is included (subject to the source's default excludes and settings).
 */
export interface CrawlRule {
  action: 'include' | 'exclude';
  syntax: RuleSyntax;
  pattern: string;
  /** Id of a stored credential used for items this rule matches (HTTP basic auth, SMB account). */
  credentialId?: string | null;
  /**
   * Principals that may read items fetched with this rule's credential (security trimming of
   * authenticated web pages). Empty/absent: the user who configured the rule.
   */
  principals?: string[];
}

/** BM25 column weights, as the classic spider's per-site field weights. */
export interface FieldWeights {
  title: number;
  keywords: number;
  description: number;
  url: number;
  body: number;
}

/** Per-source schedule; null/absent disables that kind of scheduled crawl. */
export interface ScheduleSettings {
  incrementalMinutes?: number | null;
  fullDays?: number | null;
}

/** Settings of a content source. Kind-specific blocks (`http`, `smb`) are owned by their handlers. */
export interface SourceSettings {
  /** Items larger than this are indexed by metadata only. */
  maxFileSize: number;
  followSymlinks: boolean;
  includeHidden: boolean;
  /** Extension allow list (lowercase, no dot); empty = all. */
  allowTypes: string[];
  /** Extension deny list (lowercase, no dot). */
  denyTypes: string[];
  /** Apply the built-in excludes (VCS folders, node_modules, caches). */
  defaultExcludes: boolean;
  /** Items processed in parallel; 0 = from the core count. */
  parallelism: number;
  weights: FieldWeights;
  schedule: ScheduleSettings;
  /** Handler-specific settings (validated by the handler that owns them). */
  http?: Record<string, unknown>;
  smb?: Record<string, unknown>;
}

/** A configured content source as stored in the database. */
export interface ContentSource {
  id: number;
  name: string;
  kind: SourceKind;
  /** Start addresses as canonical URLs (`file:///…`, `smb://…`, `https://…`). */
  startAddresses: string[];
  /** The user-facing spelling of the start addresses (e.g. `\\server\share`, `~/Documents`). */
  displayAddresses: string[];
  rules: CrawlRule[];
  settings: SourceSettings;
  paused: boolean;
  createdAt: number;
}

/** What a caller supplies to create a source; omitted settings take defaults. */
export interface NewContentSource {
  name?: string;
  kind?: SourceKind;
  startAddresses: string[];
  rules?: CrawlRule[];
  settings?: Partial<SourceSettings>;
}

/** A principal: `everyone`, or a platform id such as `uid:1000`, `gid:100`, or a SID `S-1-5-21-…`. */
export type Principal = string;

/** One allow or deny entry for *read* access. */
export interface AccessEntry {
  type: 'allow' | 'deny';
  principal: Principal;
}

/**
 * An item's security descriptor: read-access entries. Deny wins over allow (as on Windows).
 * An item without a descriptor is visible to everyone.
 */
export interface SecurityDescriptor {
  entries: AccessEntry[];
}

/** Outcome counters of one crawl. */
export interface CrawlCounts {
  discovered: number;
  added: number;
  updated: number;
  notModified: number;
  deleted: number;
  failed: number;
  excluded: number;
}

export type CrawlMode = 'full' | 'incremental';

/** Progress of a running crawl, as emitted to the UI and the CLI. */
export interface CrawlProgress {
  crawlId: number;
  sourceId: number;
  mode: CrawlMode;
  counts: CrawlCounts;
  /** Discovered items finished (added + updated + notModified + failed); never above `discovered`. */
  done: number;
  currentItem: string | null;
  /** Items per second since the crawl began. */
  rate: number;
  state: 'running' | 'done' | 'failed' | 'stopped';
}

/** A crawl's record in the crawl history. */
export interface CrawlRecord {
  id: number;
  sourceId: number;
  mode: CrawlMode;
  startedAt: number;
  endedAt: number | null;
  status: 'running' | 'done' | 'failed' | 'stopped';
  counts: CrawlCounts;
  error: string | null;
}

/** One crawl log line (failures and exclusions always; web crawls log every URL). */
export interface CrawlLogEntry {
  id: number;
  crawlId: number;
  sourceId: number;
  at: number;
  url: string;
  outcome: 'added' | 'updated' | 'not-modified' | 'deleted' | 'failed' | 'excluded';
  reason: string | null;
  /** HTTP status or negative local failure code (web crawls). */
  status?: number | null;
  size?: number | null;
  hops?: string | null;
  via?: string | null;
  mime?: string | null;
  durationMs?: number | null;
  digest?: string | null;
  annotations?: string | null;
}

export function emptyCounts(): CrawlCounts {
  return { discovered: 0, added: 0, updated: 0, notModified: 0, deleted: 0, failed: 0, excluded: 0 };
}
