import os from 'node:os';
import { FilterError, type FilterInput, type FilterOutput } from '../filters/filter.js';
import { canLeaveTextAtSource } from '../filters/text-at-source.js';
import { contentHash } from '../index/content-hash.js';
import {
  HandlerError,
  type HandlerContext,
  type HierarchicalHandler,
  type ItemStat,
} from '../sources/handler.js';
import type { SecurityDescriptor } from '../model.js';
import { NOBODY } from '../security/posix-permissions.js';
import { RuleMatcher } from './crawl-rules.js';
import { smbRuleTarget } from '../sources/smb/smb-address.js';
import type { CrawlSession } from './crawl-session.js';
import { TaskPool } from './task-pool.js';

/** How the crawler turns bytes into text: picks a filter for an item and runs it (under its caps). */
export interface ContentExtractor {
  /**
   * The filter for an item; `metadataOnly` means "do not even read the bytes", `headBytes` "read
   * this much of a larger item first" (see `FilterSpec.headBytes`).
   */
  pick(
    ext: string,
    mime?: string,
  ): { id: string; maxBytes: number; metadataOnly: boolean; headBytes?: number };
  run(input: FilterInput): Promise<FilterOutput>;
}

/** Options for {@link crawlTree}. */
export interface TreeCrawlOptions {
  /**
   * A partial crawl: only these URLs (files or folders, below the source's start addresses) are
   * visited, and only items at or below them can be deleted. Used by live watching to apply a batch
   * of file-system events through the same path as a crawl.
   */
  paths?: string[];
  /**
   * Waited on before each item is opened and each folder is listed: lets the crawl yield while
   * the user is searching (and to a CPU budget). Live updates pass none.
   */
  gate?: { wait(): Promise<void> };
}

/** What the history says about an item from earlier crawls (keyed by its URL). */
interface HistoryRow {
  id: number;
  mtime: number;
  ctime: number;
  size: number;
  security_key: string | null;
  /** `undefined` until read: only items that are processed need it (see `startItem`). */
  content_hash?: string | null;
  /** Reached by this crawl (items not reached leave the index at the end). */
  seen: boolean;
}

export function extOf(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(dot + 1).toLowerCase() : '';
}

/**
 * Crawl one hierarchical source (file system, SMB) into the index.
 *
 * Full crawl: every included item is read and filtered again. Incremental crawl: an item whose
 * mtime, ctime and size equal the history's is counted *not modified* and never opened; a changed
 * item whose bytes hash as before is only touched. In both, items gone from the source (or now
 * excluded) leave the index — except below containers that could not be listed, which are kept.
 * A stop (signal) ends the walk, commits what was written, and deletes nothing.
 *
 * Never throws for per-item problems (they are counted and logged); throws HandlerError when a
 * start address cannot be reached, before anything is deleted.
 */
export async function crawlTree(
  session: CrawlSession,
  handler: HierarchicalHandler,
  extractor: ContentExtractor,
  ctx: HandlerContext,
  opts: TreeCrawlOptions = {},
): Promise<void> {
  const { source, writer, counts } = session;
  const db = session.opts.db;
  const incremental = session.mode === 'incremental';
  const history = new Map<string, HistoryRow>();
  // Every item of the source, on each crawl: rows as arrays, one at a time (each is garbage once
  // copied, and dies young), so only the map and its rows outlive the load.
  const rows = db
    .prepare('SELECT id, url, mtime, ctime, size, security_key FROM documents WHERE source_id = ?')
    .raw()
    .iterate(source.id) as IterableIterator<[number, string, number, number, number, string | null]>;
  for (const [id, url, mtime, ctime, size, security_key] of rows) {
    history.set(url, { id, mtime, ctime, size, security_key, seen: false });
  }
  const readHash = db.prepare('SELECT content_hash FROM documents WHERE id = ?').pluck();
  const markSeen = (url: string): void => {
    const hist = history.get(url);
    if (hist) hist.seen = true;
  };
  const keptPrefixes: string[] = [];
  const visited = new Set<string>();
  const rules = new RuleMatcher(source);
  const parallel = source.settings.parallelism || Math.max(2, os.availableParallelism() * 2);
  const items = new TaskPool(parallel);
  const lists = new TaskPool(8);
  // A lost server or refused login ends the crawl: per-item failures would overwrite good rows.
  let fatal: HandlerError | null = null;
  const isFatal = (e: unknown): e is HandlerError =>
    e instanceof HandlerError && (e.code === 'unavailable' || e.code === 'auth');

  await handler.begin?.(ctx);
  const roots: ItemStat[] = [];
  for (const url of source.startAddresses) roots.push(await handler.stat(url, ctx));
  const scopes = opts.paths?.map((p) => p.replace(/\/+$/, ''));

  /** Incremental crawls leave an item alone when its timestamps, size and security are as recorded. */
  const unchangedSince = (hist: HistoryRow | undefined, item: ItemStat): boolean =>
    incremental &&
    hist !== undefined &&
    hist.mtime === item.mtimeMs &&
    hist.size === item.size &&
    hist.ctime === item.ctimeMs &&
    (item.securityKey === undefined || item.securityKey === hist.security_key);
  const unchanged = (item: ItemStat): boolean => unchangedSince(history.get(item.url), item);

  /**
   * Process an item (when the pool has room). An incremental crawl first reads the item's recorded
   * content hash, once: before anything processed writes to its row.
   */
  const startItem = (item: ItemStat, hist = history.get(item.url)): Promise<void> => {
    if (incremental && hist && hist.content_hash === undefined) {
      hist.content_hash = (readHash.get(hist.id) as string | null | undefined) ?? null;
    }
    return items.run(() => processItem(item));
  };

  const processItem = async (item: ItemStat): Promise<void> => {
    if (fatal) return;
    const hist = history.get(item.url);
    if (unchanged(item)) {
      counts.notModified++;
      return;
    }
    await opts.gate?.wait();
    if (session.signal.aborted || fatal) return;
    session.currentItem = item.displayPath;
    const ext = extOf(item.name);
    const spec = extractor.pick(ext);
    // A filter that reads heads reads no more of a file over the size limit than its head.
    const tooLarge = item.size > source.settings.maxFileSize && spec.headBytes === undefined;
    let security: SecurityDescriptor | null | undefined = item.security;
    let text = '';
    let out: FilterOutput | null = null;
    let status: 'ok' | 'metadata' | 'failed' = 'metadata';
    let error: string | null = tooLarge
      ? `larger than the source's max file size (${source.settings.maxFileSize} bytes): indexed by name only`
      : null;
    let hash: string | null = null;
    let textAtSource = false;
    try {
      if (!tooLarge && !spec.metadataOnly) {
        const limit = Math.min(spec.maxBytes, source.settings.maxFileSize);
        const overLimit = `larger than ${limit < spec.maxBytes ? "the source's max file size" : `the ${spec.id} filter's limit`} (${limit} bytes): indexed by name only`;
        // Read whole up to one byte past the limit (to tell an item at the limit from a larger one)
        // — or, for a filter whose metadata sits at the start, only the head of a larger item.
        const whole = () => handler.open(item, limit + 1, ctx);
        // A file its filter would refuse is not read up to the limit in vain.
        if (spec.headBytes === undefined && item.size > limit) throw new FilterError('too-large', overLimit);
        const head =
          spec.headBytes !== undefined && item.size > spec.headBytes ? Math.min(spec.headBytes, limit) : 0;
        let opened = head > 0 ? await handler.open(item, head, ctx, { head: true }) : await whole();
        let partial = head > 0 && opened.truncated;
        // A source that cannot read a head (smbclient, a large file) reads the item whole instead.
        if (partial && opened.bytes.length === 0) {
          opened = await whole();
          partial = false;
        }
        if (opened.security !== undefined) security = opened.security;
        hash = contentHash(opened.bytes);
        if (incremental && hist && hist.content_hash === hash) {
          writer.touch(hist.id, {
            mtime: item.mtimeMs,
            ctime: item.ctimeMs,
            size: item.size,
            securityKey: item.securityKey,
            security,
          });
          counts.notModified++;
          return;
        }
        if (!partial && (opened.truncated || opened.bytes.length > limit)) {
          error = overLimit;
        } else {
          const atSource = handler.textAtSource?.(item, ctx) === true;
          const input: FilterInput = {
            bytes: opened.bytes,
            name: item.name,
            ext,
            url: item.url,
            textAtSource: atSource,
          };
          try {
            out = await extractor.run(partial ? { ...input, partial } : input);
          } catch (e) {
            if (!(partial && e instanceof FilterError && e.code === 'needs-whole')) throw e;
            // Its metadata is not all in the head (a large cover picture, tags at the end). A file
            // over the limit is not read in vain up to it.
            if (item.size > limit)
              throw new FilterError('too-large', `${e.message}, and the file is ${overLimit}`);
            opened = await whole();
            hash = contentHash(opened.bytes);
            if (opened.truncated || opened.bytes.length > limit)
              throw new FilterError('too-large', `${e.message}, and the file is ${overLimit}`);
            out = await extractor.run({ ...input, bytes: opened.bytes });
          }
          text = out.text;
          status = 'ok';
          textAtSource = atSource && canLeaveTextAtSource(out.filter, opened.bytes.length);
        }
      } else if (security === undefined && handler.describe) {
        security = await handler.describe(item, ctx);
      }
    } catch (e) {
      if (isFatal(e)) {
        fatal ??= e;
        return;
      }
      status = e instanceof FilterError && e.code === 'too-large' ? 'metadata' : 'failed';
      error = e instanceof Error ? e.message : String(e);
      if (e instanceof HandlerError && e.code === 'not-found') {
        // vanished since it was listed: treat as gone
        if (hist) hist.seen = false;
        return;
      }
      // The row keeps the item findable by name: never without the descriptor it would have had
      // (an unreadable file is exactly the one others must not see). Unknown → visible to no one.
      if (security === undefined && handler.describe) {
        try {
          security = await handler.describe(item, ctx);
        } catch {
          security = NOBODY;
        }
      }
    }
    if (session.signal.aborted || fatal) return;
    writer.upsert(
      {
        sourceId: source.id,
        url: item.url,
        path: item.displayPath,
        name: item.name,
        ext,
        size: item.size,
        mtime: item.mtimeMs,
        ctime: item.ctimeMs,
        mime: out?.mime ?? '',
        title: out?.title ?? null,
        description: out?.description ?? null,
        keywords: out?.keywords ?? null,
        author: out?.author ?? null,
        text,
        bodyZ: out?.bodyZ ?? null,
        textAtSource,
        contentHash: hash,
        security,
        securityKey: item.securityKey ?? null,
        status,
        error,
      },
      hist?.id,
    );
    if (status === 'failed') {
      counts.failed++;
      session.log({ url: item.displayPath, outcome: 'failed', reason: error });
    } else if (hist) counts.updated++;
    else counts.added++;
    session.tick();
  };

  const visit = async (container: ItemStat, root: ItemStat): Promise<void> => {
    if (session.signal.aborted || fatal) return;
    let children: ItemStat[];
    await opts.gate?.wait();
    try {
      children = await handler.list(container, ctx);
    } catch (e) {
      if (isFatal(e)) {
        fatal ??= e;
        return;
      }
      keptPrefixes.push(container.url.endsWith('/') ? container.url : `${container.url}/`);
      counts.failed++;
      session.log({ url: container.displayPath, outcome: 'failed', reason: (e as Error).message });
      return;
    }
    const rootTarget = toRuleTarget(root);
    for (const child of children) {
      if (session.signal.aborted || fatal) return;
      const target = toRuleTarget(child);
      const decision = rules.decide(target, rootTarget, child.isContainer);
      if (!decision.included) {
        counts.excluded++;
        session.log({ url: child.displayPath, outcome: 'excluded', reason: decision.reason });
        continue;
      }
      if (child.viaSymlink && !source.settings.followSymlinks) {
        counts.excluded++;
        session.log({
          url: child.displayPath,
          outcome: 'excluded',
          reason: 'symbolic link (follow symlinks is off)',
        });
        continue;
      }
      if (child.isContainer) {
        if (child.identity) {
          if (visited.has(child.identity)) {
            counts.excluded++;
            session.log({
              url: child.displayPath,
              outcome: 'excluded',
              reason: 'symbolic link loop (folder already crawled)',
            });
            continue;
          }
          visited.add(child.identity);
        }
        void lists.run(() => visit(child, root));
      } else {
        counts.discovered++;
        const hist = history.get(child.url);
        if (hist) hist.seen = true;
        if (unchangedSince(hist, child)) counts.notModified++;
        else await startItem(child, hist);
      }
    }
    session.tick();
  };

  if (scopes) {
    for (const scope of scopes) {
      const root = roots.find(
        (r) => scope === r.url || scope.startsWith(r.url.endsWith('/') ? r.url : `${r.url}/`),
      );
      if (!root) continue;
      let item: ItemStat;
      try {
        item = await handler.stat(scope, ctx);
      } catch (e) {
        if (e instanceof HandlerError && e.code === 'not-found') continue;
        keptPrefixes.push(scope);
        continue;
      }
      if (!ancestorsIncluded(rules, item, root)) continue;
      if (item.isContainer) {
        if (item.identity) visited.add(item.identity);
        await lists.run(() => visit(item, root));
      } else {
        counts.discovered++;
        markSeen(item.url);
        await startItem(item);
      }
    }
  } else {
    for (const root of roots) {
      if (root.isContainer) {
        if (root.identity) visited.add(root.identity);
        await lists.run(() => visit(root, root));
      } else {
        counts.discovered++;
        markSeen(root.url);
        await startItem(root);
      }
    }
  }
  // Listing tasks enqueue more listing tasks: drain until both pools are idle.
  while (lists.busy() || items.busy()) {
    await lists.idle();
    await items.idle();
  }
  if (fatal) throw fatal;
  // Per-item problems are logged inside the tasks; anything that escaped them (a failing write,
  // a bug) must fail the crawl rather than lose items silently.
  const unexpected = items.errors[0] ?? lists.errors[0];
  if (unexpected) throw unexpected instanceof Error ? unexpected : new Error(String(unexpected));
  if (session.signal.aborted) return;

  for (const [url, row] of history) {
    if (row.seen) continue;
    if (scopes && !scopes.some((p) => url === p || url.startsWith(`${p}/`))) continue;
    if (keptPrefixes.some((p) => url.startsWith(p))) continue;
    writer.delete(row.id);
    counts.deleted++;
  }
  session.tick(true);
}

/** Whether the item and every folder between it and its root are included by the rules. */
function ancestorsIncluded(rules: RuleMatcher, item: ItemStat, root: ItemStat): boolean {
  const rootTarget = toRuleTarget(root);
  const target = toRuleTarget(item);
  if (!rules.decide(target, rootTarget, item.isContainer).included) return false;
  const rel = target.slice(rootTarget.length).split('/').filter(Boolean);
  let cur = rootTarget.replace(/\/+$/, '');
  for (let i = 0; i < rel.length - 1; i++) {
    cur = `${cur}/${rel[i]}`;
    if (!rules.decide(cur, rootTarget, true).included) return false;
  }
  return true;
}

/** Rules see file items as POSIX-style absolute paths, SMB items as decoded URLs. */
export function toRuleTarget(item: Pick<ItemStat, 'url' | 'displayPath'>): string {
  if (item.url.startsWith('file:')) {
    const p = item.displayPath;
    return p.includes('\\') ? p.replace(/\\/g, '/') : p;
  }
  if (item.url.startsWith('smb:')) return smbRuleTarget(item.url);
  return decodeURI(item.url);
}
