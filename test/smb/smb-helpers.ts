/**
 * Test helpers around a real Samba server: building share trees with owners, modes, POSIX ACLs and
 * NT ACLs; ground truth of what a user can read (smbclient as that user); a real TrawlService with
 * the SMB handler registered.
 */
import { spawnSync, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'vitest';
import { TrawlService } from '../../src/main/core/service.js';
import { openDatabase } from '../../src/main/core/index/database.js';
import { HandlerRegistry } from '../../src/main/core/sources/registry.js';
import { FileCredentialStore } from '../../src/main/core/credential-store.js';
import { basicSecurity } from '../../src/main/core/security/basic-security.js';
import { createFilterRunner } from '../../src/main/core/filters/filter-runner.js';
import { createContentExtractor } from '../../src/main/core/filters/content-extractor.js';
import { createSmbHandler, type SmbHandlerOptions } from '../../src/main/core/sources/smb/smb-handler.js';
import { createFileHandler } from '../../src/main/core/sources/file/file-handler.js';
import {
  withMountedShares,
  type MountedShareHandlerOptions,
} from '../../src/main/core/sources/smb/mounted-share-handler.js';
import { posixSecurity } from '../../src/main/core/security/platform-security.js';
import { sambaAvailability } from './samba-server.js';

/**
 * Whether the Samba tests run here. When they cannot and `CI=true`, registers a failing test
 * (CI must not pass by skipping); otherwise warns once with the reason.
 */
export function sambaForTests(): boolean {
  const a = sambaAvailability();
  if (a.ok) return true;
  if (process.env.CI === 'true') {
    describe('Samba', () => {
      it('is available (required when CI=true)', () => {
        throw new Error(`the SMB tests cannot run: ${a.reason}`);
      });
    });
  } else {
    console.warn(`skipping SMB tests: ${a.reason}`);
  }
  return false;
}

/** One file of a test tree: content, owner, group, mode, and optional POSIX ACL entries (`setfacl -m`). */
export interface TreeFile {
  content: string;
  owner?: string;
  group?: string;
  mode?: number;
  acl?: string;
}

/** Write files and folders (folder entries end with `/`) with owners, modes and ACLs. */
export function buildTree(
  root: string,
  spec: Record<string, TreeFile | { dir: true; owner?: string; group?: string; mode?: number }>,
): void {
  for (const [rel, s] of Object.entries(spec)) {
    const p = path.join(root, rel);
    if ('dir' in s) {
      fs.mkdirSync(p, { recursive: true });
    } else {
      fs.mkdirSync(path.dirname(p), { recursive: true });
      fs.writeFileSync(p, s.content);
    }
  }
  // ownership and modes after every file exists (folders may be made private)
  for (const [rel, s] of Object.entries(spec)) {
    const p = path.join(root, rel);
    if (s.owner || s.group)
      execFileSync('chown', [`${s.owner ?? 'root'}:${s.group ?? s.owner ?? 'root'}`, p]);
    fs.chmodSync(p, s.mode ?? ('dir' in s ? 0o755 : 0o644));
    if ('acl' in s && s.acl) execFileSync('setfacl', ['-m', s.acl, p]);
  }
}

/** Every file below `root`, as share-relative POSIX paths. */
export function filesBelow(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string, rel: string): void => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(path.join(dir, e.name), r);
      else if (e.isFile()) out.push(r);
    }
  };
  walk(root, '');
  return out.sort();
}

/**
 * Ground truth: the files `user` can actually read over SMB, by `get`ting every one of them as that
 * user in one smbclient session (a local copy exists only when the server let the user open it).
 */
export function readableOverSmb(
  port: number,
  share: string,
  user: string,
  password: string,
  files: readonly string[],
): Set<string> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-gt-'));
  try {
    const auth = path.join(tmp, 'auth');
    fs.writeFileSync(auth, `username = ${user}\n`, { mode: 0o600 });
    const input = files.map((f, i) => `get "${f.split('/').join('\\')}" "${tmp}/f${i}"\n`).join('');
    const r = spawnSync('smbclient', [`//127.0.0.1/${share}`, '-p', String(port), '-A', auth, '-E'], {
      input,
      env: { ...process.env, PASSWD: password, TZ: 'UTC' },
      encoding: 'utf8',
    });
    if (r.status !== 0 && r.status !== 1) throw new Error(`smbclient as ${user}: ${r.stderr}`);
    if (/session setup failed|tree connect failed/.test(r.stderr))
      throw new Error(`smbclient as ${user}: ${r.stderr}`);
    return new Set(files.filter((_, i) => fs.existsSync(path.join(tmp, `f${i}`))));
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

/** A real service (real SQLite, real filter worker) with only the SMB handler registered. */
export function smbService(dataDir: string, opts: SmbHandlerOptions = {}): TrawlService {
  return new TrawlService({
    dataDir,
    db: openDatabase(dataDir),
    handlers: new HandlerRegistry().register(createSmbHandler(opts)),
    extractor: createContentExtractor(createFilterRunner({ workers: 1 })),
    security: basicSecurity(),
    credentials: new FileCredentialStore(dataDir),
  });
}

/**
 * A real service (real SQLite, real filter worker, POSIX security) whose file handler knows
 * mounted shares, as the engine registers it.
 */
export function mountedShareService(dataDir: string, opts: MountedShareHandlerOptions = {}): TrawlService {
  const security = posixSecurity();
  return new TrawlService({
    dataDir,
    db: openDatabase(dataDir),
    handlers: new HandlerRegistry().register(
      withMountedShares(createFileHandler({ security: security.fileCapture }), opts),
    ),
    extractor: createContentExtractor(createFilterRunner({ workers: 1 })),
    security,
    credentials: new FileCredentialStore(dataDir),
  });
}

/** The share-relative path of an `smb://host:port/share/a/b` URL. */
export function relOf(url: string): string {
  return url.split('/').slice(4).map(decodeURIComponent).join('/');
}
