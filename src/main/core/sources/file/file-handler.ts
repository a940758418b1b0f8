import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { networkFsReason, readMounts } from '../../live/watch-feasibility.js';
import type { SecurityDescriptor } from '../../model.js';
import {
  HandlerError,
  type HandlerContext,
  type HierarchicalHandler,
  type ItemStat,
  type OpenedItem,
} from '../handler.js';

/**
 * Captures an item's security descriptor on the local file system. Injected by the composition
 * root (POSIX modes + ACLs, or NTFS DACLs); without one, file items carry no descriptor.
 */
export interface FileSecurityCapture {
  /** A cheap fingerprint from the stat (mode, owner, ctime…); a change triggers `capture`. */
  key(filePath: string, st: fs.Stats): string;
  /**
   * `key` for the files of one folder: the returned function gives the same keys for files
   * directly in `dir`, with what they share (the folders above) looked at once, on its first call.
   * Optional; a listing asks for it once instead of calling `key` per file.
   */
  keysIn?(dir: string): (filePath: string, st: fs.Stats) => string;
  /** The item's read-access descriptor, or null for "visible to everyone". */
  capture(filePath: string, st: fs.Stats): Promise<SecurityDescriptor | null>;
  /** Forget cached folder state (called when a crawl starts). */
  invalidate?(): void;
  /** Keep what the crawl learned that outlives the process (called when a crawl ends). */
  settle?(): void;
}

/**
 * Absolute POSIX paths of plain characters (no `.`/`..`/empty segments, nothing pathToFileURL
 * would encode) map to `file://` + path: skip pathToFileURL's work for them.
 */
const PLAIN_POSIX_PATH = /^(?:\/(?!\.{1,2}(?:\/|$))[A-Za-z0-9._-]+)+$/;
/** A listed entry name (never `.` or `..`) that keeps a plain path plain. */
const PLAIN_NAME = /^[A-Za-z0-9._-]+$/;

function fileUrl(p: string): string {
  return process.platform !== 'win32' && PLAIN_POSIX_PATH.test(p) ? `file://${p}` : pathToFileURL(p).href;
}

type KeyOf = (filePath: string, st: fs.Stats) => string;

function toStat(p: string, st: fs.Stats, viaSymlink: boolean, sec?: FileSecurityCapture): ItemStat {
  return statItem(p, path.basename(p) || p, fileUrl(p), st, viaSymlink, sec && ((f, s) => sec.key(f, s)));
}

function statItem(
  p: string,
  name: string,
  url: string,
  st: fs.Stats,
  viaSymlink: boolean,
  keyOf?: KeyOf,
): ItemStat {
  const isContainer = st.isDirectory();
  return {
    url,
    displayPath: p,
    name,
    isContainer,
    size: isContainer ? 0 : st.size,
    mtimeMs: Math.trunc(st.mtimeMs),
    ctimeMs: Math.trunc(st.ctimeMs),
    identity: isContainer ? `${st.dev}:${st.ino}` : undefined,
    viaSymlink,
    securityKey: keyOf && !isContainer ? keyOf(p, st) : undefined,
  };
}

function mapFsError(e: NodeJS.ErrnoException, p: string): HandlerError {
  switch (e.code) {
    case 'ENOENT':
    case 'ENOTDIR':
      return new HandlerError('not-found', `${p}: no such file or folder`);
    case 'EACCES':
    case 'EPERM':
      return new HandlerError('access-denied', `${p}: permission denied`);
    case 'ELOOP':
      return new HandlerError('loop', `${p}: too many levels of symbolic links`);
    default:
      return new HandlerError('io', `${p}: ${e.code ?? ''} ${e.message}`.trim());
  }
}

/** Options for {@link createFileHandler}. */
export interface FileHandlerOptions {
  security?: FileSecurityCapture;
}

/**
 * The `file:` handler: folders are containers, files are items. Symbolic links are followed only
 * when the source allows it (loop detection is the crawler's, by `identity`); otherwise they are
 * reported as excluded by the crawler through `viaSymlink`.
 */
export function createFileHandler(opts: FileHandlerOptions = {}): HierarchicalHandler {
  const sec = opts.security;
  // Per crawl: whether every start address is on a local file system (text may stay at the source).
  const localDisk = new WeakMap<HandlerContext, boolean>();
  return {
    kind: 'hierarchical',
    schemes: ['file'],

    textAtSource(_item: ItemStat, ctx: HandlerContext): boolean {
      let local = localDisk.get(ctx);
      if (local === undefined) {
        const mounts = readMounts();
        local = ctx.source.startAddresses.every((a) => {
          try {
            return networkFsReason(fileURLToPath(a), mounts) === null;
          } catch {
            return false;
          }
        });
        localDisk.set(ctx, local);
      }
      return local;
    },

    async stat(url: string): Promise<ItemStat> {
      const p = fileURLToPath(url);
      try {
        return toStat(p, await fs.promises.stat(p), false, sec);
      } catch (e) {
        throw mapFsError(e as NodeJS.ErrnoException, p);
      }
    },

    async list(container: ItemStat, ctx: HandlerContext): Promise<ItemStat[]> {
      // Synchronous calls, one folder at a time: a readdir and an lstat cost a few microseconds
      // each, far less than the promise round trip of their async forms (a no-change crawl of
      // 20,000 files is mostly this loop). A folder is a short, bounded stretch of work.
      const dir = container.displayPath;
      let entries: fs.Dirent[];
      try {
        entries = fs.readdirSync(dir, { withFileTypes: true });
      } catch (e) {
        throw mapFsError(e as NodeJS.ErrnoException, dir);
      }
      const follow = ctx.source.settings.followSymlinks;
      // What the entries share is worked out once: an entry name is one plain segment, so
      // path.join(dir, name) is `prefix + name`, and its URL is `file://` + that when both are plain.
      const prefix = path.join(dir, '_').slice(0, -1);
      const plainPrefix = process.platform !== 'win32' && PLAIN_POSIX_PATH.test(`${prefix}_`);
      const keyOf: KeyOf | undefined = sec?.keysIn
        ? sec.keysIn(path.dirname(`${prefix}_`))
        : sec && ((f, s) => sec.key(f, s));
      const out: ItemStat[] = [];
      for (const ent of entries) {
        const link = ent.isSymbolicLink();
        if (!link && !ent.isFile() && !ent.isDirectory()) continue;
        const name = ent.name;
        const p = prefix + name;
        const url = plainPrefix && PLAIN_NAME.test(name) ? `file://${p}` : pathToFileURL(p).href;
        if (link) {
          const st = follow
            ? fs.statSync(p, { throwIfNoEntry: false })
            : fs.lstatSync(p, { throwIfNoEntry: false });
          if (!st) continue; // dangling link
          const item = statItem(p, name, url, st, true, keyOf);
          out.push(follow ? item : { ...item, isContainer: false, viaSymlink: true });
          continue;
        }
        const st = fs.lstatSync(p, { throwIfNoEntry: false });
        if (st) out.push(statItem(p, name, url, st, false, keyOf)); // else: vanished since readdir
      }
      out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      return out;
    },

    begin(): void {
      sec?.invalidate?.();
    },

    close(): Promise<void> {
      sec?.settle?.();
      return Promise.resolve();
    },

    async describe(item: ItemStat): Promise<SecurityDescriptor | null | undefined> {
      if (!sec) return undefined;
      try {
        return await sec.capture(item.displayPath, await fs.promises.stat(item.displayPath));
      } catch (e) {
        throw mapFsError(e as NodeJS.ErrnoException, item.displayPath);
      }
    },

    async open(item: ItemStat, maxBytes: number): Promise<OpenedItem> {
      const p = item.displayPath;
      let fh: fs.promises.FileHandle | undefined;
      try {
        fh = await fs.promises.open(p, 'r');
        const st = await fh.stat();
        const want = Math.min(st.size, maxBytes);
        const buf = Buffer.allocUnsafe(want);
        let off = 0;
        while (off < want) {
          const { bytesRead } = await fh.read(buf, off, want - off, off);
          if (bytesRead === 0) break;
          off += bytesRead;
        }
        const security = sec ? await sec.capture(p, st) : undefined;
        return { bytes: off === want ? buf : buf.subarray(0, off), truncated: st.size > maxBytes, security };
      } catch (e) {
        if (e instanceof HandlerError) throw e;
        throw mapFsError(e as NodeJS.ErrnoException, p);
      } finally {
        await fh?.close();
      }
    },
  };
}
