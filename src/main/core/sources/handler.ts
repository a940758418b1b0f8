import type { ContentSource, SecurityDescriptor } from '../model.js';
import type { CrawlSession } from '../crawl/crawl-session.js';
import type { ContentExtractor } from '../crawl/tree-crawler.js';

/**
 * What a hierarchical handler reports for one entry of a container: enough to decide, without
 * opening it, whether the item changed since the last crawl.
 */
export interface ItemStat {
  /** Canonical URL of the item (`file:///abs/path`, `smb://host/share/path`). */
  url: string;
  /** What a person sees as the item's location (native path, UNC path). */
  displayPath: string;
  /** Base name. */
  name: string;
  isContainer: boolean;
  size: number;
  /** Modification time, ms since epoch. */
  mtimeMs: number;
  /** Change time (metadata incl. permissions), ms since epoch; equals mtimeMs where unknown. */
  ctimeMs: number;
  /** Identity of the underlying object for loop detection (e.g. `dev:ino`), when known. */
  identity?: string;
  /** True when the entry was reached through a symbolic link. */
  viaSymlink?: boolean;
  /**
   * Security descriptor when the handler gets it cheaply while listing (SMB batches DACLs per
   * folder). `undefined` = not captured here (see `open`); `null` = no descriptor (visible to all).
   */
  security?: SecurityDescriptor | null;
  /** A fingerprint of the security state; a change re-captures the descriptor. */
  securityKey?: string;
}

/** The bytes of an opened item. */
export interface OpenedItem {
  bytes: Buffer;
  /** True when the handler stopped reading at the size cap. */
  truncated: boolean;
  /** Security descriptor; `undefined` when the item's stat already carried it. */
  security?: SecurityDescriptor | null;
}

/** How an item is read (see `HierarchicalHandler.open`). */
export interface OpenOptions {
  /** Return the first `maxBytes` bytes of a larger item. */
  head?: boolean;
}

/** Per-crawl context handed to handlers. */
export interface HandlerContext {
  source: ContentSource;
  /** Aborted when the crawl is stopped. */
  signal: AbortSignal;
  /** Resolves a stored credential (never logged). */
  credential?: (id: string) => Promise<{ user: string; password: string; domain?: string } | null>;
}

/**
 * A hierarchical protocol handler (file system, SMB): enumerates containers and reports each child
 * with its timestamps, and opens items the crawl decided to (re)index.
 *
 * Contract: `list` returns the direct children only; errors on a child container are reported by
 * throwing `HandlerError` from `list` for that container (the crawl logs it and goes on).
 */
export interface HierarchicalHandler {
  readonly kind: 'hierarchical';
  /** URL schemes served, lowercase without `:` (e.g. `file`). */
  readonly schemes: readonly string[];
  /** Stat a start address. Throws `HandlerError` when it does not exist or cannot be read. */
  stat(url: string, ctx: HandlerContext): Promise<ItemStat>;
  /** The direct children of a container. */
  list(container: ItemStat, ctx: HandlerContext): Promise<ItemStat[]>;
  /**
   * Read an item's bytes, at most `maxBytes`, plus its security descriptor. An item over
   * `maxBytes` comes back `truncated`, with no bytes at all if the handler likes. With `head`, the
   * caller wants the first `maxBytes` bytes of a larger item (a filter's head read, see
   * `FilterSpec.headBytes`): a handler that can read a range returns them; one that cannot returns
   * none, and the crawler reads the item whole instead.
   */
  open(item: ItemStat, maxBytes: number, ctx: HandlerContext, opts?: OpenOptions): Promise<OpenedItem>;
  /**
   * Optional: the security descriptor of an item the crawl indexes without opening (metadata-only
   * types). Handlers that capture descriptors in `open` should implement it.
   */
  describe?(item: ItemStat, ctx: HandlerContext): Promise<SecurityDescriptor | null | undefined>;
  /**
   * Optional: whether the index may keep no copy of the item's text, because its bytes can be
   * read again cheaply, synchronously, from its `file:` URL on this machine at query time (local
   * disks; not network file systems or mounted shares). Absent means no.
   */
  textAtSource?(item: ItemStat, ctx: HandlerContext): boolean;
  /** Optional: called once when a crawl starts (drop per-crawl caches). */
  begin?(ctx: HandlerContext): Promise<void> | void;
  /** Optional: release long-lived resources (sessions, child processes) at the end of a crawl. */
  close?(ctx: HandlerContext): Promise<void>;
}

/**
 * A link-based protocol handler (HTTP): fetches pages and follows their links. It owns its crawl
 * loop (queue, scope, politeness, revisits) and reports through the same session (counts, log,
 * progress) and writer as the hierarchical crawler.
 */
export interface LinkHandler {
  readonly kind: 'link';
  readonly schemes: readonly string[];
  /** Crawl the session's source (full or incremental per `session.mode`). */
  crawl(session: CrawlSession, extractor: ContentExtractor, ctx: HandlerContext): Promise<void>;
}

export type ProtocolHandler = HierarchicalHandler | LinkHandler;

/** A handler-level failure with a stable code; the crawl records `message` as the reason. */
export class HandlerError extends Error {
  constructor(
    readonly code: 'not-found' | 'access-denied' | 'io' | 'auth' | 'unavailable' | 'too-large' | 'loop',
    message: string,
  ) {
    super(message);
    this.name = 'HandlerError';
  }
}
