/**
 * The NT DACLs of a mounted share's files, read from the share itself (one crawl's worth): a file's
 * descriptor comes from the listing-with-DACLs of its folder on the server (one `ls "dir\*"` with
 * `showacls` per folder, batched by the back-end) and the traverse checks of the folders above it,
 * exactly as the SMB handler computes them. Only files the crawl asks about cost anything: an
 * incremental crawl that finds nothing changed reads no DACL.
 */
import fs from 'node:fs';
import type { SecurityDescriptor } from '../../model.js';
import { HandlerError } from '../handler.js';
import type { MountedShare } from './mounted-share-settings.js';
import { sharePathOf } from './mounted-share-settings.js';
import { fileDescriptor, NOBODY, ntCheck, type NtCheck } from './nt-security.js';
import { smbDisplay } from './smb-address.js';
import type { SmbBackend } from './smb-backend.js';
import type { SmbEntry } from './smbclient-output.js';

/** Tuning of {@link MountedShareAcls}. */
export interface MountedShareAclOptions {
  /** Listed entries kept for files still to be asked about (default 50,000; oldest folders go first). */
  cacheEntries?: number;
  /**
   * Once the crawl has asked about this many files (default 16), and about at least half the files
   * of the folders it asked anything in — a full crawl, or many changes — the DACLs of every folder
   * it lists are read ahead in batches: a full crawl costs a few client processes, an incremental
   * one only the folders with changed files (a listing each, plus one process for the folders
   * above them that are not known yet).
   */
  readaheadAfter?: number;
}

const key = (p: readonly string[]): string => p.join('\u0000');

/** The entry named `name` (exact, then Unicode-normalised, then case-insensitive: SMB names are). */
function pick(entries: ReadonlyMap<string, SmbEntry>, name: string): SmbEntry | undefined {
  const exact = entries.get(name);
  if (exact) return exact;
  const nfc = name.normalize('NFC');
  const lower = nfc.toLowerCase();
  let folded: SmbEntry | undefined;
  for (const [n, e] of entries) {
    const m = n.normalize('NFC');
    if (m === nfc) return e;
    if (!folded && m.toLowerCase() === lower) folded = e;
  }
  return folded;
}

/** Errors after which the crawl cannot go on (a lost server, a refused login). */
function isFatal(e: unknown): boolean {
  return e instanceof HandlerError && (e.code === 'auth' || e.code === 'unavailable');
}

/**
 * One crawl's DACL reader for a mounted share. Paths given are local paths under the mount root;
 * they map to share paths by `sharePathOf`.
 *
 * Errors: `auth` / `unavailable` from the server are thrown (the crawl fails); a file missing on
 * the share is `not-found` (vanished, or a mount root mapped to the wrong folder). A DACL the crawl
 * account cannot read (a folder it may not list, a name smbclient cannot pass) makes the file
 * visible to nobody, never to everyone.
 */
export class MountedShareAcls {
  private readonly listings = new Map<string, Promise<Map<string, SmbEntry>>>();
  private readonly sizes = new Map<string, number>();
  private cached = 0;
  private readonly chains = new Map<string, Promise<NtCheck[]>>();
  private readonly hinted = new Set<string>();
  private pendingHints: string[][] = [];
  /** Files of the local folders listed and not yet asked about (before readahead). */
  private readonly filesOf = new Map<string, number>();
  /** Files asked about, and files in the folders they are in. */
  private asked = 0;
  private inAskedFolders = 0;
  private readahead = false;

  constructor(
    private readonly share: MountedShare,
    private readonly backend: SmbBackend,
    private readonly opts: MountedShareAclOptions = {},
  ) {}

  /**
   * Check that a start address below the mount root is what the share identity says: the folder
   * (or file) exists on the share, and a folder's names overlap the local ones. Throws HandlerError
   * (`not-found` with a message naming both sides, or the server's `auth` / `unavailable`).
   */
  async verify(localPath: string, isContainer: boolean): Promise<void> {
    const segs = sharePathOf(this.share, localPath);
    const where = smbDisplay({ ...this.share.location, path: segs }, 'url');
    const mismatch = (why: string): HandlerError =>
      new HandlerError(
        'not-found',
        `${localPath} does not look like ${where} (${why}): check settings.smb.shareIdentity and mountRoot`,
      );
    if (!isContainer) {
      if (!segs.length) throw mismatch('a file cannot be the share root');
      const entries = await this.listing(segs.slice(0, -1)).catch((e: unknown) => {
        throw isFatal(e) ? e : mismatch((e as Error).message);
      });
      if (!pick(entries, segs[segs.length - 1])) throw mismatch('no such file on the share');
      return;
    }
    const remote = await this.listing(segs).catch((e: unknown) => {
      throw isFatal(e) ? e : mismatch((e as Error).message);
    });
    let local: string[];
    try {
      local = fs.readdirSync(localPath);
    } catch {
      return; // the crawl reports the local error itself
    }
    if (local.length && !local.some((n) => pick(remote, n)))
      throw mismatch(`none of its ${local.length} names is in that folder on the share`);
  }

  /**
   * The crawl listed a local folder holding `files` files and `folders` sub-folders: once it is
   * seen asking about whole folders (a full crawl), their DACLs are read ahead.
   */
  listed(localFolder: string, files: number, folders: number): void {
    if (!files && !folders) return;
    let segs: string[];
    try {
      segs = sharePathOf(this.share, localFolder);
    } catch {
      return;
    }
    if (files && !this.readahead) {
      this.filesOf.set(key(segs), files);
      if (this.filesOf.size > 10_000) this.filesOf.delete(this.filesOf.keys().next().value!);
    }
    if (!this.backend.prefetch) return;
    if (this.readahead) this.prefetch([segs]);
    else {
      this.pendingHints.push(segs);
      if (this.pendingHints.length > 256) this.pendingHints.shift();
    }
  }

  /** The read descriptor of a file below the mount root, from the share's DACLs. */
  async descriptor(localPath: string): Promise<SecurityDescriptor | null> {
    const segs = sharePathOf(this.share, localPath);
    if (!segs.length) throw new HandlerError('not-found', `${localPath}: the share root is not a file`);
    const folder = segs.slice(0, -1);
    this.noteAsked(folder);
    const name = segs[segs.length - 1];
    try {
      // both at once: the folder's listing and (when not known) the folders above it
      const chain = this.chainOf(folder);
      const entry = pick(await this.listing(folder), name);
      if (!entry) {
        throw new HandlerError(
          'not-found',
          `${localPath}: not on the share as ${smbDisplay({ ...this.share.location, path: segs }, 'url')}`,
        );
      }
      if (entry.dacl === undefined) return NOBODY;
      return fileDescriptor({ dacl: entry.dacl, owner: entry.owner }, await chain);
    } catch (e) {
      if (isFatal(e) || (e instanceof HandlerError && e.code === 'not-found')) throw e;
      return NOBODY;
    }
  }

  /** End the back-end's processes and remove its credentials file. Idempotent. */
  async close(): Promise<void> {
    this.listings.clear();
    this.chains.clear();
    await this.backend.close();
  }

  private noteAsked(folder: readonly string[]): void {
    if (this.readahead) return;
    this.asked++;
    const k = key(folder);
    const files = this.filesOf.get(k);
    if (files !== undefined) {
      this.filesOf.delete(k);
      this.inAskedFolders += files;
    }
    if (this.asked < (this.opts.readaheadAfter ?? 16) || this.asked * 2 < this.inAskedFolders) return;
    this.readahead = true;
    this.filesOf.clear();
    const pending = this.pendingHints;
    this.pendingHints = [];
    this.prefetch(pending);
  }

  private prefetch(folders: string[][]): void {
    const fresh = folders.filter((f) => {
      const k = key(f);
      if (this.listings.has(k) || this.hinted.has(k)) return false;
      this.hinted.add(k);
      return true;
    });
    if (fresh.length) this.backend.prefetch?.(fresh);
  }

  /** A folder's entries by name (one listing per folder while cached; failures are kept too). */
  private listing(folder: readonly string[]): Promise<Map<string, SmbEntry>> {
    const k = key(folder);
    const known = this.listings.get(k);
    if (known) {
      this.listings.delete(k);
      this.listings.set(k, known);
      return known;
    }
    const p = this.backend.list(folder).then((entries) => {
      const byName = new Map<string, SmbEntry>();
      for (const e of entries) byName.set(e.name, e);
      if (this.listings.get(k) === p) {
        this.sizes.set(k, entries.length);
        this.cached += entries.length;
        this.evict(k);
      }
      return byName;
    });
    p.catch(() => {
      /* kept: every file of a folder that cannot be listed gets the same answer */
    });
    this.listings.set(k, p);
    return p;
  }

  private evict(keep: string): void {
    const limit = this.opts.cacheEntries ?? 50_000;
    for (const k of this.listings.keys()) {
      if (this.cached <= limit) break;
      if (k === keep) continue;
      const n = this.sizes.get(k);
      if (n === undefined) continue; // still running
      this.listings.delete(k);
      this.sizes.delete(k);
      this.cached -= n;
    }
  }

  /** The traverse checks of every folder from the share root down to `folder` (inclusive). */
  private chainOf(folder: readonly string[]): Promise<NtCheck[]> {
    if (!this.share.checkTraverse || !folder.length) return Promise.resolve([]);
    const k = key(folder);
    const known = this.chains.get(k);
    if (known) return known;
    const parent = folder.slice(0, -1);
    const pk = key(parent);
    let chain: Promise<NtCheck[]>;
    if (this.readahead || this.listings.has(pk) || this.hinted.has(pk)) {
      // the parent's listing is here or on its way: its entry for this folder carries the DACL
      chain = (async () => {
        const e = pick(await this.listing(parent), folder[folder.length - 1]);
        if (!e || !e.isDir) throw this.noFolder(folder);
        return extend(await this.chainOf(parent), e);
      })();
      this.remember(k, chain);
      return chain;
    }
    // otherwise one client process lists every folder above that is not known yet, by itself
    const missing: string[][] = [];
    let base: Promise<NtCheck[]> = Promise.resolve([]);
    for (let i = folder.length; i >= 1; i--) {
      const pre = folder.slice(0, i);
      const c = this.chains.get(key(pre));
      if (c) {
        base = c;
        break;
      }
      missing.unshift(pre);
    }
    const stat = this.backend.stat(missing);
    let prev = base;
    missing.forEach((pre, j) => {
      const above = prev;
      const c = (async () => {
        const r = (await stat)[j];
        if (!r.ok) throw r.error;
        const e = pick(new Map(r.entries.map((x) => [x.name, x])), pre[pre.length - 1]);
        if (!e || !e.isDir) throw this.noFolder(pre);
        return extend(await above, e);
      })();
      this.remember(key(pre), c);
      prev = c;
    });
    return prev;
  }

  private remember(k: string, chain: Promise<NtCheck[]>): void {
    chain.catch(() => {
      /* observed by the descriptor that asked */
    });
    this.chains.set(k, chain);
  }

  private noFolder(folder: readonly string[]): HandlerError {
    return new HandlerError(
      'not-found',
      `${smbDisplay({ ...this.share.location, path: [...folder] }, 'url')}: no such folder on the share`,
    );
  }
}

/** A chain with one more folder's traverse check (distinct checks only; `always` adds nothing). */
function extend(chain: NtCheck[], folder: SmbEntry): NtCheck[] {
  if (folder.dacl === undefined) return chain;
  const c = ntCheck({ dacl: folder.dacl, owner: folder.owner }, 'traverse');
  if (c === 'always') return chain;
  const j = JSON.stringify(c);
  return chain.some((x) => JSON.stringify(x) === j) ? chain : [...chain, c];
}
