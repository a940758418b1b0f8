import path from 'node:path';
import { parseCommandArgs } from '../main.js';
import { UsageError, type Command } from '../command.js';
import type { CrawlRule } from '../../main/core/model.js';

function ruleFrom(action: 'include' | 'exclude', pattern: string): CrawlRule {
  if (pattern.startsWith('re:')) return { action, syntax: 'regex', pattern: pattern.slice(3) };
  if (pattern.startsWith('prefix:')) return { action, syntax: 'prefix', pattern: pattern.slice(7) };
  return { action, syntax: 'glob', pattern };
}

/** `trawl source add|list|remove|show`. */
export const sourceCommand: Command = {
  name: 'source',
  summary: 'add, list, show or remove content sources',
  usage: 'source add <path-or-url> [--name N] [--include P]… [--exclude P]…',
  // website and SMB flags: docs/WEB-CRAWLING.md, docs/SMB-HANDLER.md
  async run({ args, io, service }) {
    const [sub, ...rest] = args;
    switch (sub) {
      case 'add': {
        const { values, positionals } = parseCommandArgs(rest, {
          name: { type: 'string' },
          include: { type: 'string', multiple: true },
          exclude: { type: 'string', multiple: true },
          'max-size': { type: 'string' },
          'follow-symlinks': { type: 'boolean' },
          hidden: { type: 'boolean' },
          types: { type: 'string' },
          'deny-types': { type: 'string' },
          'no-default-excludes': { type: 'boolean' },
          // website sources (settings.http; see docs/WEB-CRAWLING.md)
          profile: { type: 'string' },
          'user-agent': { type: 'string' },
          'no-robots': { type: 'boolean' },
          'max-hops': { type: 'string' },
          'max-depth': { type: 'string' },
          'no-query-urls': { type: 'boolean' },
          'any-host': { type: 'boolean' },
          sitemaps: { type: 'boolean' },
          delay: { type: 'string' },
          'max-crawl-delay': { type: 'string' },
          bandwidth: { type: 'string' },
          concurrency: { type: 'string' },
          'per-host': { type: 'string' },
          timeout: { type: 'string' },
          'connect-timeout': { type: 'string' },
          retries: { type: 'string' },
          'max-net-errors': { type: 'string' },
          proxy: { type: 'string' },
          'max-pages': { type: 'string' },
          auth: { type: 'string', multiple: true },
          principal: { type: 'string', multiple: true },
          // SMB sources, and folders where an SMB share is mounted (docs/SMB-HANDLER.md)
          user: { type: 'string' },
          'smb-share': { type: 'string' },
          'mount-root': { type: 'string' },
        });
        if (positionals.length === 0) throw new UsageError('source add needs a folder path or URL');
        // Rules keep the order given: includes first, then excludes, unless the user interleaves.
        const rules: CrawlRule[] = [];
        for (let i = 0; i < rest.length; i++) {
          const a = rest[i];
          const m = /^--(include|exclude)(?:=(.*))?$/.exec(a);
          if (m) rules.push(ruleFrom(m[1] as 'include' | 'exclude', m[2] ?? rest[++i]));
        }
        const settings: Record<string, unknown> = {};
        if (values['max-size']) settings.maxFileSize = parseSize(values['max-size']);
        if (values['follow-symlinks']) settings.followSymlinks = true;
        if (values.hidden) settings.includeHidden = true;
        if (values.types) settings.allowTypes = splitList(values.types);
        if (values['deny-types']) settings.denyTypes = splitList(values['deny-types']);
        if (values['no-default-excludes']) settings.defaultExcludes = false;
        const svc = await service();
        const isHttp = /^https?:\/\//i.test(positionals[0]);
        if (isHttp) {
          const http = httpSettingsFrom(values);
          if (values['max-size']) {
            http.maxDocumentBytes = settings.maxFileSize;
            delete settings.maxFileSize;
          }
          if (Object.keys(http).length) settings.http = http;
          for (const a of values.auth ?? []) {
            const eq = a.indexOf('=');
            if (eq < 1) throw new UsageError('--auth takes URL-PREFIX=CREDENTIAL-ID');
            rules.unshift({
              action: 'include',
              syntax: 'prefix',
              pattern: a.slice(0, eq),
              credentialId: a.slice(eq + 1),
              principals: values.principal,
            });
          }
          if (
            values.auth?.length &&
            !rules.some((r) => r.action === 'include' && r.syntax === 'glob' && r.pattern === '**')
          ) {
            rules.push({ action: 'include', syntax: 'glob', pattern: '**' });
          }
        }
        const isSmb = /^smb:\/\//i.test(positionals[0]) || /^\\\\[^\\]/.test(positionals[0]);
        const share = values['smb-share'];
        if (share !== undefined) {
          if (isHttp || isSmb)
            throw new UsageError('--smb-share is for a local folder where that SMB share is mounted');
          const smb: Record<string, unknown> = { shareIdentity: share };
          if (values['mount-root'] !== undefined) smb.mountRoot = path.resolve(values['mount-root']);
          // checked before a credential is stored for it
          const { mountedShareProblem } =
            await import('../../main/core/sources/smb/mounted-share-settings.js');
          const { normalizeAddress } = await import('../../main/core/index/source-store.js');
          const problem = mountedShareProblem({
            kind: 'file',
            startAddresses: positionals.map((p) => normalizeAddress(p).url),
            settings: { smb },
          });
          if (problem) throw new UsageError(problem);
          if (values.user) smb.credentialId = await smbCredential(svc, share, values.user, io);
          settings.smb = smb;
        } else if (values['mount-root'] !== undefined) {
          throw new UsageError('--mount-root goes with --smb-share');
        } else if (values.user) {
          if (!isSmb)
            throw new UsageError(
              '--user is for SMB sources (smb://…, \\\\server\\share) and with --smb-share',
            );
          const credentialId = await smbCredential(svc, positionals[0], values.user, io);
          rules.unshift({ action: 'include', syntax: 'glob', pattern: '**', credentialId });
        }
        const s = svc.addSource({ name: values.name, startAddresses: positionals, rules, settings });
        io.out(`added source ${s.id} "${s.name}" (${s.kind}): ${s.displayAddresses.join(', ')}`);
        return 0;
      }
      case 'list': {
        const { values } = parseCommandArgs(rest, { json: { type: 'boolean' } }, false);
        const svc = await service();
        const list = svc.listSources();
        if (values.json) io.out(JSON.stringify(list, null, 2));
        else if (list.length === 0) io.out('no sources yet: add one with `trawl source add <folder-or-url>`');
        else
          for (const s of list)
            io.out(
              `${String(s.id).padStart(3)}  ${s.name.padEnd(20)} ${s.kind.padEnd(5)} ${s.displayAddresses.join(', ')}${s.paused ? '  (paused)' : ''}${s.rules.length ? `  rules: ${s.rules.length}` : ''}`,
            );
        return 0;
      }
      case 'show': {
        const id = rest[0];
        if (!id) throw new UsageError('source show needs an id or name');
        const svc = await service();
        const s = svc.sources.find(id);
        if (!s) throw new Error(`no source ${id}`);
        io.out(JSON.stringify(s, null, 2));
        return 0;
      }
      case 'remove':
      case 'rm': {
        const id = rest[0];
        if (!id) throw new UsageError('source remove needs an id or name');
        const svc = await service();
        const s = svc.sources.find(id);
        if (!s) throw new Error(`no source ${id}`);
        svc.removeSource(s.id);
        io.out(`removed source ${s.id} "${s.name}" and its documents`);
        return 0;
      }
      default:
        throw new UsageError('usage: trawl source add <path-or-url> | list | show <id> | remove <id>');
    }
  },
};

function int(v: string | undefined, flag: string): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0) throw new UsageError(`${flag} takes a number`);
  return n;
}

/** Map website flags to `settings.http` (validated by the service when the source is saved). */
function httpSettingsFrom(
  v: Record<string, string | boolean | string[] | undefined>,
): Record<string, unknown> {
  const h: Record<string, unknown> = {};
  const set = (key: string, value: unknown) => {
    if (value !== undefined) h[key] = value;
  };
  set('profile', v.profile);
  set('userAgent', v['user-agent']);
  if (v['no-robots']) h.obeyRobots = false;
  set('maxHops', int(v['max-hops'] as string, '--max-hops'));
  set('maxPathDepth', int(v['max-depth'] as string, '--max-depth'));
  if (v['no-query-urls']) h.complexUrls = false;
  if (v['any-host']) h.sameHostOnly = false;
  if (v.sitemaps) h.sitemaps = true;
  const delay = int(v.delay as string, '--delay');
  if (delay !== undefined) Object.assign(h, { minDelayMs: delay, maxDelayMs: delay, delayFactor: 0 });
  set('maxCrawlDelaySeconds', int(v['max-crawl-delay'] as string, '--max-crawl-delay'));
  set('maxHostBandwidthKBps', int(v.bandwidth as string, '--bandwidth'));
  set('concurrency', int(v.concurrency as string, '--concurrency'));
  set('perHostConnections', int(v['per-host'] as string, '--per-host'));
  set('readTimeoutMs', int(v.timeout as string, '--timeout'));
  set('connectTimeoutMs', int(v['connect-timeout'] as string, '--connect-timeout'));
  set('retries', int(v.retries as string, '--retries'));
  set('maxNetErrors', int(v['max-net-errors'] as string, '--max-net-errors'));
  set('maxPages', int(v['max-pages'] as string, '--max-pages'));
  if (typeof v.proxy === 'string') {
    const m = /^([^:]+):(\d+)$/.exec(v.proxy);
    if (!m) throw new UsageError('--proxy takes host:port');
    h.proxy = { host: m[1], port: Number(m[2]) };
  }
  return h;
}

/**
 * Store the SMB account for a new source: the password comes from TRAWL_SMB_PASSWORD or a
 * prompt without echo on a TTY — never from argv. Returns the credential id for the crawl rule.
 */
async function smbCredential(
  svc: { setCredential(id: string, c: { user: string; password: string; domain?: string }): Promise<void> },
  address: string,
  userSpec: string,
  io: { env: NodeJS.ProcessEnv; prompt?: (q: string) => Promise<string | null> },
): Promise<string> {
  const m = /^(?:([^\\/]+)[\\/])?(.+)$/.exec(userSpec);
  if (!m) throw new UsageError('--user takes [DOMAIN\\]name');
  const [, domain, user] = m;
  let password = io.env.TRAWL_SMB_PASSWORD ?? null;
  if (password === null && io.prompt) password = await io.prompt(`Password for ${userSpec}: `);
  if (password === null)
    throw new UsageError('set TRAWL_SMB_PASSWORD or run on a terminal to be asked for the password');
  const host = address
    .replace(/^smb:\/\/|^\\\\/i, '')
    .split(/[\\/]/)[0]
    .toLowerCase();
  const id = `smb-${host}-${user}`.replace(/[^\w.@-]/g, '_').slice(0, 64);
  await svc.setCredential(id, { user, password, ...(domain ? { domain } : {}) });
  return id;
}

function splitList(s: string): string[] {
  return s
    .split(',')
    .map((x) => x.trim().replace(/^\./, '').toLowerCase())
    .filter(Boolean);
}

/** "10mb" → bytes. */
export function parseSize(s: string): number {
  const m = /^(\d+(?:\.\d+)?)\s*(b|kb|k|mb|m|gb|g)?$/i.exec(s.trim());
  if (!m) throw new UsageError(`not a size: ${s} (e.g. 500kb, 20mb)`);
  const mult: Record<string, number> = {
    b: 1,
    k: 1024,
    kb: 1024,
    m: 1024 ** 2,
    mb: 1024 ** 2,
    g: 1024 ** 3,
    gb: 1024 ** 3,
  };
  return Math.round(Number(m[1]) * mult[(m[2] ?? 'b').toLowerCase()]);
}
