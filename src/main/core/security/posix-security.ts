/**
 * Descriptor capture for local files on POSIX systems: the file's read permission and the search
 * permission of every folder on its path, with POSIX ACLs, encoded exactly (posix-permissions.ts).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { SecurityDescriptor } from '../model.js';
import type { FileSecurityCapture } from '../sources/file/file-handler.js';
import { GetfaclReader, type GetfaclReaderOptions } from './getfacl.js';
import { posixReadDescriptor, type PosixObject } from './posix-permissions.js';

/** A folder's state as seen by the capture. */
interface FolderState {
  path: string;
  mode: number;
  uid: number;
  gid: number;
  ctimeMs: number;
  /** Resolved target when the folder is a symbolic link (its own path is then walked too). */
  realPath: string | null;
  /** This folder's own state as a string (compared on revalidation). */
  own: string;
  /** Fingerprint of this folder and everything above it (and above symlink targets). */
  fp: string;
  checkedAt: number;
}

/** Options for {@link PosixFileCapture}. */
export interface PosixCaptureOptions {
  /**
   * How long a folder's cached stat may be reused before it is taken again (default 2 ms). Keys are
   * computed for a whole listing within that time, so folder stats cost one per listing, not one
   * per file; a folder permission change is seen by every key computed after this delay.
   */
  folderTtlMs?: number;
  /** Passed to the getfacl reader; `acl: false` ignores ACLs (mode bits only). */
  getfacl?: GetfaclReaderOptions;
  acl?: boolean;
}

/**
 * The POSIX `FileSecurityCapture`.
 *
 * `key()` is pure stat math on the file (mode, owner, group, ctime) plus a fingerprint of the
 * folders above it, taken from a per-folder cache: chmod, chown or setfacl on the file or on any
 * folder up to `/` changes the key, so the incremental crawl re-captures the descriptor.
 * `capture()` builds the descriptor: read on the file and search on each folder on its path (and,
 * for symbolic links, on the target's path), with POSIX ACLs read by batched getfacl only.
 * A file everyone may read through world-searchable folders gets `null` (no descriptor).
 */
export class PosixFileCapture implements FileSecurityCapture {
  private readonly folders = new Map<string, FolderState>();
  private readonly ttl: number;
  readonly acls: GetfaclReader | null;

  constructor(opts: PosixCaptureOptions = {}) {
    this.ttl = opts.folderTtlMs ?? 2;
    this.acls = opts.acl === false ? null : new GetfaclReader(opts.getfacl);
  }

  key(filePath: string, st: fs.Stats): string {
    return `${(st.mode & 0o7777).toString(8)}.${st.uid}.${st.gid}.${st.ctimeMs}.${this.folder(path.dirname(filePath)).fp}`;
  }

  async capture(filePath: string, st: fs.Stats): Promise<SecurityDescriptor | null> {
    const chain = this.chain(path.dirname(filePath));
    const lst = await fs.promises.lstat(filePath);
    let aclPath = filePath;
    if (lst.isSymbolicLink()) {
      aclPath = await fs.promises.realpath(filePath);
      for (const f of this.chain(path.dirname(aclPath))) if (!chain.includes(f)) chain.push(f);
    }
    const [fileAcl, ...folderAcls] = await Promise.all([
      this.acls ? this.acls.get(aclPath, st.ctimeMs, { folder: true }) : null,
      ...chain.map((f) => (this.acls ? this.acls.get(f.path, f.ctimeMs) : null)),
    ]);
    const file: PosixObject = { mode: st.mode, uid: st.uid, gid: st.gid, acl: fileAcl };
    const folders: PosixObject[] = chain.map((f, i) => ({ mode: f.mode, uid: f.uid, gid: f.gid, acl: folderAcls[i] }));
    return posixReadDescriptor(file, folders);
  }

  /** Drop cached folder states and ACLs: the next keys and captures stat everything afresh. */
  invalidate(): void {
    this.folders.clear();
    this.acls?.clear();
  }

  /** The folder's state, revalidated (with everything above it) when older than the TTL. */
  private folder(dir: string, depth = 0): FolderState {
    const now = Date.now();
    const hit = this.folders.get(dir);
    if (hit && now - hit.checkedAt <= this.ttl) return hit;
    const parent = path.dirname(dir);
    const parentFp = parent === dir || depth > 64 ? '' : this.folder(parent, depth + 1).fp;
    let mode = 0;
    let uid = -1;
    let gid = -1;
    let ctimeMs = 0;
    let realPath: string | null = null;
    let targetFp = '';
    try {
      let st = fs.lstatSync(dir);
      if (st.isSymbolicLink()) {
        realPath = fs.realpathSync(dir);
        st = fs.statSync(dir);
        targetFp = depth > 64 ? 'deep' : this.folder(realPath, depth + 1).fp;
      }
      ({ mode, uid, gid, ctimeMs } = st);
    } catch {
      // Vanished or unreachable: a state of its own, so the key changes when it comes back.
    }
    const own = `${mode.toString(8)}.${uid}.${gid}.${ctimeMs}.${targetFp}|${parentFp}`;
    if (hit && hit.own === own) {
      hit.checkedAt = now;
      return hit;
    }
    if (this.folders.size > 100_000) this.folders.clear();
    const fp = crypto.createHash('sha1').update(own).digest('base64url').slice(0, 16);
    const state: FolderState = { path: dir, mode, uid, gid, ctimeMs, realPath, own, fp, checkedAt: now };
    this.folders.set(dir, state);
    return state;
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
        const f = this.folder(p);
        out.push(f);
        if (f.realPath && depth < 16) walk(f.realPath, depth + 1);
      }
    };
    walk(dir, 0);
    return out;
  }
}
