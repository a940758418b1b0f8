/**
 * Descriptor capture for local files on POSIX systems: the file's read permission and the search
 * permission of every folder on its path, with POSIX ACLs, encoded exactly (posix-permissions.ts).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { SecurityDescriptor } from '../model.js';
import type { FileSecurityCapture } from '../sources/file/file-handler.js';
import { AclStore, type AclStoreOptions } from './getfacl.js';
import { posixReadDescriptor, type PosixAcl, type PosixObject } from './posix-permissions.js';

/**
 * A folder's ACL answer older than its ctime is still used for this long when its last change was
 * to its entries (ctime = mtime: a file was created or removed), so a busy folder (/tmp) does not
 * cost a getfacl per listing. After a change to its metadata only (ctime > mtime: chmod, chown,
 * setfacl) the ACL is always fetched again.
 */
const FOLDER_ACL_RECENT_MS = 1000;

/** A folder's state as seen by the capture. */
interface FolderState {
  path: string;
  mode: number;
  uid: number;
  gid: number;
  ctimeMs: number;
  /** Resolved target when the folder is a symbolic link (its own path is then walked too). */
  realPath: string | null;
  acl: PosixAcl | null;
  /** This folder's own state as a string (compared on revalidation). */
  own: string;
  /** Fingerprint of this folder and everything above it (and above symlink targets). */
  fp: string;
  checkedAt: number;
}

/** Options for {@link PosixFileCapture}. */
export interface PosixCaptureOptions {
  /**
   * How long a folder's cached stat may be reused before it is taken again (default 2 ms). The
   * keys of one listing (`keysIn`) share one look at the folders, so folder stats cost one per
   * listing, not one per file; a folder permission change is seen by every key computed after
   * this delay (by a listing's keys when the listing's first key is).
   */
  folderTtlMs?: number;
  /** Passed to the ACL store; `acl: false` ignores ACLs (mode bits only). */
  getfacl?: AclStoreOptions;
  acl?: boolean;
  /**
   * Where folder ACLs seen by earlier crawls are kept (the index's settings table), so a crawl in
   * a new process does not list every folder's ACL again: a folder whose ctime is the one recorded
   * with its ACL has that ACL still (setfacl, chmod and chown move ctime).
   */
  memory?: FolderAclMemory;
}

/** A persistent place for {@link PosixFileCapture}'s folder ACL knowledge (JSON text). */
export interface FolderAclMemory {
  load(): string | null;
  save(state: string): void;
}

/** Least time between two writes of the folder ACL memory by one process. */
const MEMORY_SAVE_INTERVAL_MS = 60_000;

/** Folders remembered at most (the largest trees' folder counts; beyond it, nothing is kept). */
const MEMORY_LIMIT = 200_000;

/** A file's key: its own mode, owner, group and ctime, then the fingerprint of its folders. */
function fileKey(st: fs.Stats, folderFp: string): string {
  return `${(st.mode & 0o7777).toString(8)}.${st.uid}.${st.gid}.${st.ctimeMs}.${folderFp}`;
}

/**
 * The POSIX `FileSecurityCapture`.
 *
 * `key()` is stat math on the file (mode, owner, group, ctime) plus a fingerprint of the folders
 * above it (mode, owner, group and extended ACL of each, up to `/`), kept in a per-folder cache:
 * chmod, chown or setfacl on the file or on any folder above it changes the key, so the
 * incremental crawl re-captures the descriptor. Files created in a folder do not (its ctime is not
 * part of the fingerprint). Folder ACLs come from one recursive `getfacl -R --skip-base` per
 * crawled subtree, taken the first time a key is asked below it.
 * `capture()` builds the descriptor: read on the file and search on each folder on its path (and,
 * for symbolic links, on the target's path), with the file's ACL fetched per folder when it
 * changed since. A file everyone may read through world-searchable folders gets `null`.
 */
export class PosixFileCapture implements FileSecurityCapture {
  private readonly folders = new Map<string, FolderState>();
  /** Fingerprints by folder state (`own`): sibling folders alike share one, hashed once. */
  private readonly fps = new Map<string, string>();
  private readonly ttl: number;
  readonly acls: AclStore | null;
  private readonly memory: FolderAclMemory | null;
  /** Folder → [ctimeMs, ACL] confirmed by a getfacl answer newer than that ctime. */
  private known: Map<string, [number, PosixAcl | null]> | null = null;
  private knownChanged = false;
  private savedAt = -Infinity;

  constructor(opts: PosixCaptureOptions = {}) {
    this.ttl = opts.folderTtlMs ?? 2;
    this.acls = opts.acl === false ? null : new AclStore(opts.getfacl);
    this.memory = opts.memory ?? null;
  }

  key(filePath: string, st: fs.Stats): string {
    const dir = path.dirname(filePath);
    return fileKey(st, this.folder(dir, dir).fp);
  }

  keysIn(dir: string): (filePath: string, st: fs.Stats) => string {
    let fp: string | undefined;
    return (_filePath, st) => fileKey(st, (fp ??= this.folder(dir, dir).fp));
  }

  async capture(filePath: string, st: fs.Stats): Promise<SecurityDescriptor | null> {
    const chain = this.chain(path.dirname(filePath));
    const lst = await fs.promises.lstat(filePath);
    let aclPath = filePath;
    if (lst.isSymbolicLink()) {
      aclPath = await fs.promises.realpath(filePath);
      for (const f of this.chain(path.dirname(aclPath))) if (!chain.includes(f)) chain.push(f);
    }
    const fileAcl = this.acls ? await this.acls.get(aclPath, st.ctimeMs, { folder: true }) : null;
    const file: PosixObject = { mode: st.mode, uid: st.uid, gid: st.gid, acl: fileAcl };
    return posixReadDescriptor(file, chain);
  }

  /** Drop cached folder states and ACLs: the next keys and captures stat everything afresh. */
  invalidate(): void {
    this.folders.clear();
    this.fps.clear();
    this.acls?.clear();
  }

  /** Write what this crawl learned about folder ACLs to the memory (called when a crawl ends). */
  settle(): void {
    if (!this.memory || !this.known || !this.knownChanged) return;
    // Live updates end a partial crawl per batch: a long-running process writes at most once a
    // minute (what is not written yet is only looked up again by the next process).
    const now = Date.now();
    if (now - this.savedAt < MEMORY_SAVE_INTERVAL_MS) return;
    this.savedAt = now;
    this.knownChanged = false;
    if (this.known.size > MEMORY_LIMIT) this.known.clear();
    const entries = [...this.known].map(([dir, [ctimeMs, acl]]) => [dir, ctimeMs, acl]);
    try {
      this.memory.save(JSON.stringify(entries));
    } catch {
      // Only a cache: the next crawl lists ACLs again.
    }
  }

  /** The folder's ACL as an earlier crawl saw it at this very ctime; undefined when unknown. */
  private remembered(dir: string, ctimeMs: number): PosixAcl | null | undefined {
    if (!this.memory) return undefined;
    const r = this.knownFolders().get(dir);
    return r && r[0] === ctimeMs ? r[1] : undefined;
  }

  private knownFolders(): Map<string, [number, PosixAcl | null]> {
    if (this.known) return this.known;
    this.known = new Map();
    try {
      const raw = this.memory?.load();
      const entries: unknown = raw ? JSON.parse(raw) : [];
      if (Array.isArray(entries))
        for (const e of entries)
          if (Array.isArray(e) && typeof e[0] === 'string' && typeof e[1] === 'number')
            this.known.set(e[0], [e[1], (e[2] as PosixAcl | null) ?? null]);
    } catch {
      this.known.clear();
    }
    return this.known;
  }

  /**
   * The folder's state, revalidated (with everything above it) when older than the TTL. `leaf` is
   * the folder whose file asked: unknown ACLs are fetched for its whole path at once.
   */
  private folder(dir: string, leaf: string, depth = 0): FolderState {
    const now = Date.now();
    const hit = this.folders.get(dir);
    if (hit && now - hit.checkedAt <= this.ttl) return hit;
    const parent = path.dirname(dir);
    const parentFp = parent === dir || depth > 64 ? '' : this.folder(parent, leaf, depth + 1).fp;
    let mode = 0;
    let uid = -1;
    let gid = -1;
    let ctimeMs = 0;
    let realPath: string | null = null;
    let targetFp = '';
    let entriesChanged = false;
    try {
      let st = fs.lstatSync(dir);
      if (st.isSymbolicLink()) {
        realPath = fs.realpathSync(dir);
        st = fs.statSync(dir);
        targetFp = depth > 64 ? 'deep' : this.folder(realPath, realPath, depth + 1).fp;
      }
      ({ mode, uid, gid, ctimeMs } = st);
      entriesChanged = st.ctimeMs === st.mtimeMs;
    } catch {
      // Vanished or unreachable: a state of its own, so the key changes when it comes back.
    }
    const acl =
      uid < 0
        ? null
        : this.folderAcl(realPath ?? dir, ctimeMs, leaf, entriesChanged ? FOLDER_ACL_RECENT_MS : 0);
    const own = `${mode.toString(8)}.${uid}.${gid}.${acl ? JSON.stringify(acl) : ''}.${targetFp}|${parentFp}`;
    if (hit && hit.own === own) {
      hit.checkedAt = now;
      hit.ctimeMs = ctimeMs;
      return hit;
    }
    if (this.folders.size > 100_000) this.folders.clear();
    let fp = this.fps.get(own);
    if (fp === undefined) {
      if (this.fps.size > 100_000) this.fps.clear();
      fp = crypto.createHash('sha1').update(own).digest('base64url').slice(0, 16);
      this.fps.set(own, fp);
    }
    const state: FolderState = { path: dir, mode, uid, gid, ctimeMs, realPath, acl, own, fp, checkedAt: now };
    this.folders.set(dir, state);
    return state;
  }

  /** A folder's extended ACL: known, or fetched now together with everything `leaf` needs. */
  private folderAcl(dir: string, ctimeMs: number, leaf: string, recentMs: number): PosixAcl | null {
    const store = this.acls;
    if (!store) return null;
    const remembered = this.remembered(dir, ctimeMs);
    if (remembered !== undefined) return remembered;
    const known = this.memory ? this.knownFolders() : null;
    let acl = store.lookup(dir, ctimeMs, recentMs);
    if (acl === undefined) {
      this.fetchPath(leaf);
      acl = store.lookup(dir, ctimeMs, recentMs);
    }
    if (acl === undefined) {
      store.fetchSync([dir]);
      return store.lookup(dir, Infinity, FOLDER_ACL_RECENT_MS) ?? null;
    }
    // Remembered only when the answer is newer than this ctime (not an older one accepted for a
    // folder whose entries just changed).
    if (known && store.lookup(dir, ctimeMs) !== undefined) {
      known.set(dir, [ctimeMs, acl]);
      this.knownChanged = true;
    }
    return acl;
  }

  /**
   * Make the ACLs of `leaf` and every folder above it known in at most two processes: a recursive
   * listing of `leaf` — or of a higher folder where a sibling subtree was listed before, so one
   * crawl settles on one listing of its whole tree — and one fetch of the folders above.
   */
  private fetchPath(leaf: string): void {
    const store = this.acls!;
    const chain: { dir: string; ctimeMs: number; recentMs: number }[] = [];
    for (let cur = leaf; ; cur = path.dirname(cur)) {
      let ctimeMs = Infinity;
      let recentMs = 0;
      try {
        const st = fs.statSync(cur);
        ctimeMs = st.ctimeMs;
        if (st.ctimeMs === st.mtimeMs) recentMs = FOLDER_ACL_RECENT_MS;
      } catch {}
      chain.unshift({ dir: cur, ctimeMs, recentMs });
      if (path.dirname(cur) === cur) break;
    }
    const unknown = (c: { dir: string; ctimeMs: number; recentMs: number }): boolean =>
      this.remembered(c.dir, c.ctimeMs) === undefined &&
      store.lookup(c.dir, c.ctimeMs, c.recentMs) === undefined;
    if (unknown(chain[chain.length - 1])) {
      let root = leaf;
      if (!store.hasSnapshot(leaf)) {
        for (
          let p = path.dirname(leaf);
          p !== path.dirname(p) && p.split('/').filter(Boolean).length >= 2;
          p = path.dirname(p)
        ) {
          if (store.hasSnapshotBelow(p)) {
            root = p;
            break;
          }
        }
      }
      store.snapshotSync(root);
    }
    store.fetchSync(chain.filter(unknown).map((c) => c.dir));
  }

  /**
   * Every folder whose search permission reading an item in `dir` needs, root first: `dir` and
   * its ancestors, plus the ancestors of symbolic-link targets on the way.
   */
  private chain(dir: string): FolderState[] {
    const out: FolderState[] = [];
    const seen = new Set<string>();
    const walk = (d: string, depth: number): void => {
      const lexical: string[] = [];
      for (let cur = d; ; cur = path.dirname(cur)) {
        lexical.unshift(cur);
        if (path.dirname(cur) === cur) break;
      }
      for (const p of lexical) {
        if (seen.has(p)) continue;
        seen.add(p);
        const f = this.folder(p, d);
        out.push(f);
        if (f.realPath && depth < 16) walk(f.realPath, depth + 1);
      }
    };
    walk(dir, 0);
    return out;
  }
}
