import picomatch from 'picomatch';
import type { ContentSource } from '../../model.js';
import {
  HandlerError,
  type HandlerContext,
  type HierarchicalHandler,
  type ItemStat,
  type OpenedItem,
  type OpenOptions,
} from '../handler.js';
import {
  parseSmbAddress,
  shareKey,
  smbDisplay,
  smbUrl,
  type SmbDisplayStyle,
  type SmbLocation,
} from './smb-address.js';
import type { SmbBackend, SmbBackendFactory } from './smb-backend.js';
import { createSmbclientBackend, type SmbclientOptions } from './smbclient-backend.js';
import type { SmbEntry } from './smbclient-output.js';
import type { SmbCredential } from './smbclient-process.js';
import { fileDescriptor, ntCheck, securityKeyOf, type NtCheck } from './nt-security.js';
import { createWindowsBackend, type WindowsBackendOptions } from './windows-backend.js';

/** Options for {@link createSmbHandler}. */
export interface SmbHandlerOptions {
  /** How shares are reached; default `smbclient` everywhere but Windows, UNC paths + PowerShell there. */
  backend?: 'smbclient' | 'windows' | SmbBackendFactory;
  smbclient?: SmbclientOptions;
  windows?: WindowsBackendOptions;
  /** Capture DACLs (default true; a source can turn it off with `settings.smb.captureAcls: false`). */
  captureAcls?: boolean;
  /**
   * Require traverse permission on every folder from the share root down (default true): Samba
   * enforces it, as does Windows for accounts without "bypass traverse checking". A source can
   * turn it off with `settings.smb.checkTraverse: false`.
   */
  checkTraverse?: boolean;
  /** Folders deeper than this below the share are not listed (default 64): server-side link loops end here. */
  maxDepth?: number;
}

/** The SMB-specific settings a source may carry in `settings.smb`. */
export interface SmbSourceSettings {
  captureAcls?: boolean;
  checkTraverse?: boolean;
  /** A stored credential for every share of the source (else the crawl rules' `credentialId`). */
  credentialId?: string;
}

interface ShareSession {
  backend: SmbBackend;
  style: SmbDisplayStyle;
  acl: boolean;
  traverse: boolean;
  /** Per folder (not yet listed): the traverse checks of every folder from the share root down to it. */
  chains: Map<string, NtCheck[]>;
  /** The share root's entries, listed by `stat` to prove the share is reachable. */
  rootEntries: SmbEntry[] | null;
  account: string;
}

const key = (p: readonly string[]): string => p.join('\u0000');

function smbSettings(source: ContentSource): SmbSourceSettings {
  const s = source.settings.smb ?? {};
  return {
    captureAcls: typeof s.captureAcls === 'boolean' ? s.captureAcls : undefined,
    checkTraverse: typeof s.checkTraverse === 'boolean' ? s.checkTraverse : undefined,
    credentialId: typeof s.credentialId === 'string' && s.credentialId ? s.credentialId : undefined,
  };
}

/**
 * The id of the stored credential for a share: `settings.smb.credentialId`, else the first crawl
 * rule with a `credentialId` whose pattern matches the start address (its decoded `smb://` URL,
 * as rules see SMB items), else the first rule with a `credentialId` at all. Null: none.
 */
export function credentialIdFor(source: ContentSource, startUrl: string): string | null {
  const explicit = smbSettings(source).credentialId;
  if (explicit) return explicit;
  let target: string;
  try {
    target = smbDisplay(parseSmbAddress(startUrl), 'url');
  } catch {
    return null;
  }
  const withCred = source.rules.filter((r) => r.credentialId);
  for (const r of withCred) {
    let hit: boolean;
    if (r.syntax === 'prefix') hit = target.startsWith(r.pattern) || r.pattern.startsWith(target);
    else if (r.syntax === 'regex') hit = new RegExp(r.pattern).test(target);
    else {
      const isMatch = picomatch(r.pattern, { dot: true, nocase: true });
      hit = isMatch(target) || isMatch(`${target}/x`);
    }
    if (hit) return r.credentialId!;
  }
  return withCred[0]?.credentialId ?? null;
}

function containerStat(loc: SmbLocation, style: SmbDisplayStyle, mtimeMs: number): ItemStat {
  return {
    url: smbUrl(loc),
    displayPath: smbDisplay(loc, style),
    name: loc.path.length ? loc.path[loc.path.length - 1] : loc.share,
    isContainer: true,
    size: 0,
    mtimeMs,
    ctimeMs: mtimeMs,
  };
}

/**
 * The `smb:` handler: shares and folders are containers, files are items. Each listed file carries
 * its read descriptor (its DACL's read entries and the traverse entries of every folder above it,
 * by SID; Everyone is `everyone`) and a `securityKey` hashing it, so permission changes re-index.
 * Times have 1-second resolution; `ctime` equals `mtime` where the back-end cannot see it.
 *
 * One back-end session per share per crawl (keyed by the crawl's context), closed by `close(ctx)`.
 * Errors: `auth` (login refused), `not-found` (share or start path missing), `access-denied`
 * (folders the account cannot list: the crawl logs and skips them), `unavailable` (server gone:
 * every later call fails alike), `loop` (deeper than `maxDepth`).
 */
export function createSmbHandler(opts: SmbHandlerOptions = {}): HierarchicalHandler {
  const sessions = new WeakMap<HandlerContext, Map<string, Promise<ShareSession>>>();
  const maxDepth = opts.maxDepth ?? 64;
  const factory: SmbBackendFactory =
    typeof opts.backend === 'function'
      ? opts.backend
      : (opts.backend ?? (process.platform === 'win32' ? 'windows' : 'smbclient')) === 'windows'
        ? (t) => createWindowsBackend(t, opts.windows)
        : (t) => createSmbclientBackend(t, opts.smbclient);

  function styleFor(source: ContentSource, loc: SmbLocation): SmbDisplayStyle {
    const k = shareKey(loc);
    for (let i = 0; i < source.startAddresses.length; i++) {
      try {
        if (shareKey(parseSmbAddress(source.startAddresses[i])) === k) {
          return (source.displayAddresses[i] ?? '').startsWith('\\\\') ? 'unc' : 'url';
        }
      } catch {
        /* not an SMB address */
      }
    }
    return 'url';
  }

  async function open(ctx: HandlerContext, loc: SmbLocation): Promise<ShareSession> {
    const settings = smbSettings(ctx.source);
    const share: SmbLocation = { ...loc, path: [] };
    const start = ctx.source.startAddresses.find((a) => {
      try {
        return shareKey(parseSmbAddress(a)) === shareKey(loc);
      } catch {
        return false;
      }
    });
    const id = credentialIdFor(ctx.source, start ?? smbUrl(share));
    let credential: SmbCredential | null = null;
    if (id) {
      credential = (await ctx.credential?.(id)) ?? null;
      if (!credential)
        throw new HandlerError(
          'auth',
          `${smbDisplay(share, 'unc')}: the stored credential "${id}" was not found`,
        );
    }
    const acl = settings.captureAcls ?? opts.captureAcls ?? true;
    const backend = factory({ location: share, credential, captureAcls: acl, signal: ctx.signal });
    return {
      backend,
      style: styleFor(ctx.source, loc),
      acl,
      traverse: acl && (settings.checkTraverse ?? opts.checkTraverse ?? true),
      chains: new Map(),
      rootEntries: null,
      account: credential
        ? credential.domain
          ? `${credential.domain}\\${credential.user}`
          : credential.user
        : 'the current login',
    };
  }

  function session(ctx: HandlerContext, loc: SmbLocation): Promise<ShareSession> {
    let byShare = sessions.get(ctx);
    if (!byShare) sessions.set(ctx, (byShare = new Map()));
    const k = shareKey(loc);
    let s = byShare.get(k);
    if (!s) {
      s = open(ctx, loc);
      byShare.set(k, s);
    }
    return s;
  }

  /** Add a folder's traverse check to its parent's chain (distinct checks only). */
  function extend(s: ShareSession, chain: NtCheck[], folder: SmbEntry): NtCheck[] {
    if (!s.traverse || folder.dacl === undefined) return chain;
    const c = ntCheck({ dacl: folder.dacl, owner: folder.owner }, 'traverse');
    if (c === 'always') return chain;
    const j = JSON.stringify(c);
    return chain.some((x) => JSON.stringify(x) === j) ? chain : [...chain, c];
  }

  function fileStat(s: ShareSession, loc: SmbLocation, e: SmbEntry, chain: NtCheck[]): ItemStat {
    const stat: ItemStat = {
      url: smbUrl(loc),
      displayPath: smbDisplay(loc, s.style),
      name: e.name,
      isContainer: false,
      size: e.size,
      mtimeMs: e.mtimeMs,
      ctimeMs: e.ctimeMs ?? e.mtimeMs,
    };
    if (s.acl && e.dacl !== undefined) {
      const security = fileDescriptor({ dacl: e.dacl, owner: e.owner }, chain);
      stat.security = security;
      stat.securityKey = securityKeyOf(security);
    }
    return stat;
  }

  /** Find `name` among a single-path listing (exact spelling first; SMB names are case-insensitive). */
  function pick(entries: SmbEntry[], name: string): SmbEntry | undefined {
    return (
      entries.find((e) => e.name === name) ?? entries.find((e) => e.name.toLowerCase() === name.toLowerCase())
    );
  }

  /** The traverse chain of a folder the crawl reached without listing its parent here. */
  async function chainFor(s: ShareSession, folder: string[]): Promise<NtCheck[]> {
    const known = s.chains.get(key(folder));
    if (known) return known;
    if (!s.traverse || !folder.length) return [];
    const ancestors = folder.map((_, i) => folder.slice(0, i + 1));
    const results = await s.backend.stat(ancestors);
    let chain: NtCheck[] = [];
    results.forEach((r, i) => {
      if (!r.ok) throw r.error;
      const e = pick(r.entries, folder[i]);
      if (!e) throw new HandlerError('not-found', `${folder.slice(0, i + 1).join('\\')}: no such folder`);
      chain = extend(s, chain, e);
    });
    return chain;
  }

  function withShare(s: ShareSession, loc: SmbLocation, e: unknown): never {
    if (e instanceof HandlerError) {
      const where = smbDisplay({ ...loc, path: [] }, s.style);
      if (e.code === 'auth') throw new HandlerError('auth', `${where}: ${e.message} (account ${s.account})`);
      if (e.code === 'unavailable' || (e.code === 'not-found' && !loc.path.length))
        throw new HandlerError(e.code, `${where}: ${e.message}`);
    }
    throw e;
  }

  return {
    kind: 'hierarchical',
    schemes: ['smb'],

    async stat(url: string, ctx: HandlerContext): Promise<ItemStat> {
      const loc = parseSmbAddress(url);
      const s = await session(ctx, loc);
      try {
        if (!loc.path.length) {
          s.rootEntries = await s.backend.list([]);
          s.chains.set(key([]), []);
          return containerStat(loc, s.style, 0);
        }
        const ancestors = loc.path.map((_, i) => loc.path.slice(0, i + 1));
        const results = await s.backend.stat(ancestors);
        let chain: NtCheck[] = [];
        for (let i = 0; i < results.length; i++) {
          const r = results[i];
          if (!r.ok) throw r.error;
          const e = pick(r.entries, loc.path[i]);
          const here = { ...loc, path: loc.path.slice(0, i + 1) };
          if (!e || (i < results.length - 1 && !e.isDir)) {
            throw new HandlerError('not-found', `${smbDisplay(here, s.style)}: no such file or folder`);
          }
          if (i < results.length - 1) {
            chain = extend(s, chain, e);
            continue;
          }
          if (!e.isDir) return fileStat(s, loc, e, chain);
          s.chains.set(key(loc.path), extend(s, chain, e));
          return containerStat(loc, s.style, e.mtimeMs);
        }
        throw new HandlerError('not-found', `${url}: no such file or folder`);
      } catch (e) {
        withShare(s, loc, e);
      }
    },

    async list(container: ItemStat, ctx: HandlerContext): Promise<ItemStat[]> {
      const loc = parseSmbAddress(container.url);
      const s = await session(ctx, loc);
      if (loc.path.length > maxDepth) {
        throw new HandlerError(
          'loop',
          `${container.displayPath}: deeper than ${maxDepth} folders (a link loop on the server?)`,
        );
      }
      try {
        let entries: SmbEntry[];
        if (!loc.path.length && s.rootEntries) {
          entries = s.rootEntries;
          s.rootEntries = null;
        } else {
          entries = await s.backend.list(loc.path);
        }
        const chain = s.acl ? await chainFor(s, loc.path) : [];
        s.chains.delete(key(loc.path));
        const out: ItemStat[] = [];
        for (const e of entries) {
          const child: SmbLocation = { ...loc, path: [...loc.path, e.name] };
          if (e.isDir) {
            if (s.acl) s.chains.set(key(child.path), extend(s, chain, e));
            out.push(containerStat(child, s.style, e.mtimeMs));
          } else {
            out.push(fileStat(s, child, e, chain));
          }
        }
        out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
        return out;
      } catch (e) {
        withShare(s, loc, e);
      }
    },

    async open(
      item: ItemStat,
      maxBytes: number,
      ctx: HandlerContext,
      opts?: OpenOptions,
    ): Promise<OpenedItem> {
      const loc = parseSmbAddress(item.url);
      const s = await session(ctx, loc);
      try {
        const { bytes, truncated } = await s.backend.read(loc.path, item.size, maxBytes, opts?.head === true);
        return { bytes, truncated };
      } catch (e) {
        withShare(s, loc, e);
      }
    },

    async close(ctx: HandlerContext): Promise<void> {
      const byShare = sessions.get(ctx);
      if (!byShare) return;
      sessions.delete(ctx);
      await Promise.all(
        [...byShare.values()].map(async (p) => {
          try {
            await (await p).backend.close();
          } catch {
            /* a session that never opened has nothing to close */
          }
        }),
      );
    },
  };
}
