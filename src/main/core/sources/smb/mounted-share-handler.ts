/**
 * Folder sources that are mounted SMB shares: the `file:` handler, wrapped so that a source with
 * `settings.smb.shareIdentity` is enumerated and read through the local mount (fast) while each
 * file's security descriptor is its NT DACL on the share (what the server enforces), not the
 * mount's POSIX modes (on a cifs or FUSE mount those show the mounting user, meaningless for
 * trimming). Sources without the setting go to the wrapped handler untouched.
 */
import crypto from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { SecurityDescriptor } from '../../model.js';
import { createFileHandler } from '../file/file-handler.js';
import {
  HandlerError,
  type HandlerContext,
  type HierarchicalHandler,
  type ItemStat,
  type OpenedItem,
  type OpenOptions,
} from '../handler.js';
import { MountedShareAcls, type MountedShareAclOptions } from './mounted-share-acls.js';
import { MountedShareError, mountedShareOf, type MountedShare } from './mounted-share-settings.js';
import { smbDisplay } from './smb-address.js';
import type { SmbBackendFactory } from './smb-backend.js';
import { createSmbclientBackend, type SmbclientOptions } from './smbclient-backend.js';
import type { SmbCredential } from './smbclient-process.js';
import { createWindowsBackend, type WindowsBackendOptions } from './windows-backend.js';

/** Options for {@link withMountedShares}. */
export interface MountedShareHandlerOptions extends MountedShareAclOptions {
  /** How shares are reached; default `smbclient` everywhere but Windows, UNC paths + PowerShell there. */
  backend?: 'smbclient' | 'windows' | SmbBackendFactory;
  /** smbclient tuning (its breadth-first prefetch is always off here: the local walk drives it). */
  smbclient?: SmbclientOptions;
  windows?: WindowsBackendOptions;
  /** The handler that enumerates and reads mounted sources (default: a file handler without capture). */
  mountHandler?: HierarchicalHandler;
}

interface MountCrawl {
  share: MountedShare;
  /** Every file's `securityKey`: changes when the identity does, so every descriptor is re-read. */
  key: string;
  acls: Promise<MountedShareAcls> | null;
}

/**
 * Wrap the `file:` handler so folder sources with `settings.smb.shareIdentity` get NT DACLs from
 * the share. Per crawl: the setting is validated when the crawl starts (HandlerError `io` naming
 * the problem), each start folder is checked against the share (`not-found` when it does not look
 * like the named share folder), one back-end session reads DACLs (credential
 * `settings.smb.credentialId`, else the current login) and is closed by `close(ctx)`.
 *
 * Items keep their `file:` URLs and local display paths; their `securityKey` is fixed per share
 * identity, so incremental crawls decide by mtime, size and ctime alone and read no DACL for an
 * unchanged file (a DACL change that leaves a file's ctime alone — smbnetfs reports ctime = mtime
 * — is picked up by the next full crawl).
 */
export function withMountedShares(
  files: HierarchicalHandler,
  opts: MountedShareHandlerOptions = {},
): HierarchicalHandler {
  const mount = opts.mountHandler ?? createFileHandler();
  const crawls = new WeakMap<HandlerContext, MountCrawl | null>();
  const factory: SmbBackendFactory =
    typeof opts.backend === 'function'
      ? opts.backend
      : (opts.backend ?? (process.platform === 'win32' ? 'windows' : 'smbclient')) === 'windows'
        ? (t) => createWindowsBackend(t, opts.windows)
        : (t) => createSmbclientBackend(t, { ...opts.smbclient, prefetch: false });

  function crawlOf(ctx: HandlerContext): MountCrawl | null {
    let c = crawls.get(ctx);
    if (c !== undefined) return c;
    let share: MountedShare | null;
    try {
      share = mountedShareOf(ctx.source);
    } catch (e) {
      if (e instanceof MountedShareError)
        throw new HandlerError('io', `invalid source settings: ${e.message}`);
      throw e;
    }
    c = share
      ? {
          share,
          key: `smb:${crypto
            .createHash('sha1')
            .update(`${share.url}\u0000${share.checkTraverse}`)
            .digest('hex')
            .slice(0, 20)}`,
          acls: null,
        }
      : null;
    crawls.set(ctx, c);
    return c;
  }

  function aclsOf(c: MountCrawl, ctx: HandlerContext): Promise<MountedShareAcls> {
    c.acls ??= (async () => {
      const id = c.share.credentialId;
      let credential: SmbCredential | null = null;
      if (id) {
        credential = (await ctx.credential?.(id)) ?? null;
        if (!credential)
          throw new HandlerError(
            'auth',
            `${smbDisplay({ ...c.share.location, path: [] }, 'unc')}: the stored credential "${id}" was not found`,
          );
      }
      const backend = factory({
        location: { ...c.share.location, path: [] },
        credential,
        captureAcls: true,
        signal: ctx.signal,
      });
      return new MountedShareAcls(c.share, backend, opts);
    })();
    return c.acls;
  }

  /** Files get the share identity's key (the stats are the mount handler's fresh objects). */
  const mark = (c: MountCrawl, st: ItemStat): ItemStat => {
    if (!st.isContainer) {
      st.security = undefined;
      st.securityKey = c.key;
    }
    return st;
  };

  const isStart = (ctx: HandlerContext, url: string): boolean =>
    ctx.source.startAddresses.some((a) => a === url || safePath(a) === safePath(url));

  return {
    kind: 'hierarchical',
    schemes: files.schemes,

    begin(ctx: HandlerContext): Promise<void> | void {
      return crawlOf(ctx) ? mount.begin?.(ctx) : files.begin?.(ctx);
    },

    // A share's files are read through the mount: their text is kept in the index.
    textAtSource(item: ItemStat, ctx: HandlerContext): boolean {
      return crawlOf(ctx) === null && (files.textAtSource?.(item, ctx) ?? false);
    },

    async stat(url: string, ctx: HandlerContext): Promise<ItemStat> {
      const c = crawlOf(ctx);
      if (!c) return files.stat(url, ctx);
      const st = await mount.stat(url, ctx);
      if (isStart(ctx, url)) await (await aclsOf(c, ctx)).verify(st.displayPath, st.isContainer);
      return mark(c, st);
    },

    async list(container: ItemStat, ctx: HandlerContext): Promise<ItemStat[]> {
      const c = crawlOf(ctx);
      if (!c) return files.list(container, ctx);
      const children = await mount.list(container, ctx);
      const acls = await aclsOf(c, ctx);
      const folders = children.filter((ch) => ch.isContainer).length;
      acls.listed(container.displayPath, children.length - folders, folders);
      for (const ch of children) mark(c, ch);
      return children;
    },

    async open(
      item: ItemStat,
      maxBytes: number,
      ctx: HandlerContext,
      opts?: OpenOptions,
    ): Promise<OpenedItem> {
      const c = crawlOf(ctx);
      if (!c) return files.open(item, maxBytes, ctx, opts);
      const opened = await mount.open(item, maxBytes, ctx, opts);
      const security = await (await aclsOf(c, ctx)).descriptor(item.displayPath);
      return { bytes: opened.bytes, truncated: opened.truncated, security };
    },

    async describe(item: ItemStat, ctx: HandlerContext): Promise<SecurityDescriptor | null | undefined> {
      const c = crawlOf(ctx);
      if (!c) return files.describe?.(item, ctx);
      return (await aclsOf(c, ctx)).descriptor(item.displayPath);
    },

    async close(ctx: HandlerContext): Promise<void> {
      const c = crawls.get(ctx);
      crawls.delete(ctx);
      if (c === undefined || c === null) {
        await files.close?.(ctx);
        return;
      }
      await mount.close?.(ctx);
      if (c.acls) await (await c.acls.catch(() => null))?.close();
    },
  };
}

function safePath(url: string): string {
  try {
    return url.startsWith('file:') ? fileURLToPath(url) : url;
  } catch {
    return url;
  }
}
