/**
 * SMB sources against a real Samba server on 127.0.0.1 (see samba-server.ts): a crawl account
 * indexes a share whose files are owner-only, group-readable, granted by POSIX ACLs, denied to bob
 * by an NT DENY entry, or hidden behind folders some users cannot traverse; for each of alice, bob
 * and carol the search results equal exactly what that user can `get` over SMB.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TrawlService } from '../../src/main/core/service.js';
import { createSmbclientBackend } from '../../src/main/core/sources/smb/smbclient-backend.js';
import {
  resolveSmbPrincipals,
  resolveSmbPrincipalsForSources,
} from '../../src/main/core/sources/smb/smb-principals.js';
import { FileCredentialStore } from '../../src/main/core/credential-store.js';
import { ensureUnixAccounts, removeSambaDir, startSamba, type SambaServer } from './samba-server.js';
import { buildTree, filesBelow, readableOverSmb, relOf, sambaForTests, smbService } from './smb-helpers.js';
import { beforeId3v1 } from '../fixtures/filters/audio-tags.js';
import { fixtureBytes } from '../fixtures/filters/support.js';

const RUN = sambaForTests();
const USERS = ['alice', 'bob', 'carol'] as const;
const PW: Record<string, string> = {
  alice: 'Alice-pw-1',
  bob: 'Bob-pw-1',
  carol: 'Carol-pw-1',
  trawlcrawl: 'Crawl-pw-1',
};
const CRAWL = { user: 'trawlcrawl', password: PW.trawlcrawl };
const z = (word: string): { content: string } => ({ content: `zebra ${word}\n` });

describe.skipIf(!RUN)('SMB sources against a real Samba server', () => {
  let server: SambaServer;
  let dataDir: string;
  let service: TrawlService;
  let sourceId: number;
  let files: string[];
  let tmpBefore: Set<string>;
  const ourTemp = (): string[] => fs.readdirSync(os.tmpdir()).filter((n) => /^trawl-smb-(?!data-)/.test(n));

  const search = async (user: string): Promise<{ paths: Set<string>; total: number }> => {
    const principals = await resolveSmbPrincipals(server.url('docs'), CRAWL, user);
    const res = service.forUser({ user, principals, display: user }).search({ query: 'zebra', limit: 1000 });
    const paths = new Set(res.hits.filter((h) => h.sourceId === sourceId).map((h) => relOf(h.url)));
    return { paths, total: res.total };
  };

  beforeAll(async () => {
    tmpBefore = new Set(ourTemp());
    await ensureUnixAccounts([...USERS, 'trawlcrawl'], { sales: ['alice', 'carol'] });
    server = await startSamba({
      shares: [{ name: 'docs' }, { name: 'secure', options: ['smb encrypt = required'] }],
      accounts: PW,
      adminUsers: ['trawlcrawl'],
    });
    const root = server.paths.docs;
    buildTree(root, {
      'public.txt': z('public'),
      'alice-only.txt': { ...z('aliceonly'), owner: 'alice', mode: 0o600 },
      'sales.txt': { ...z('sales'), owner: 'alice', group: 'sales', mode: 0o640 },
      'acl-bob.txt': { ...z('aclbob'), owner: 'alice', mode: 0o600, acl: 'u:bob:r' },
      'acl-sales.txt': { ...z('aclsales'), owner: 'alice', mode: 0o600, acl: 'g:sales:r' },
      'deny-bob.txt': z('denybob'),
      'private/': { dir: true, owner: 'alice', mode: 0o700 },
      'private/inside.txt': z('inside'),
      'salesdir/': { dir: true, owner: 'alice', group: 'sales', mode: 0o750 },
      'salesdir/report.txt': z('report'),
      'sub dir/Ünïcode straße.txt': z('umlaut'),
      '[brackets] (1).txt': z('brackets'),
      '日本語/文書.txt': z('cjk'),
      '.hidden dot.txt': z('hidden'),
      'a-very-long-file-name-that-exceeds-thirty-bytes.txt': z('long'),
    });
    const bob = await server.sid('bob');
    await server.setNtAcl(
      'docs',
      'deny-bob.txt',
      `O:S-1-22-1-0G:S-1-22-2-0D:(D;;0x00120089;;;${bob})(A;;0x001f019f;;;S-1-22-1-0)(A;;0x00120089;;;S-1-22-2-0)(A;;0x00120089;;;WD)`,
    );
    buildTree(server.paths.secure, { 'secret plans.txt': z('encrypted'), 'nested/deeper.txt': z('deeper') });
    files = filesBelow(root);

    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-smb-data-'));
    service = smbService(dataDir);
    await service.setCredential('crawl', CRAWL);
    const url = server.url('docs');
    sourceId = service.addSource({
      name: 'docs',
      startAddresses: [url],
      rules: [{ action: 'include', syntax: 'prefix', pattern: decodeURI(url), credentialId: 'crawl' }],
      settings: { includeHidden: true },
    }).id;
  }, 120_000);

  afterAll(async () => {
    await service?.close();
    await server?.stop();
    if (server) removeSambaDir(server);
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('indexes every file of the share with its DACL', async () => {
    const [rec] = await service.crawl({ sourceId, mode: 'full' });
    expect(rec.status).toBe('done');
    expect(rec.counts).toMatchObject({ discovered: files.length, added: files.length, failed: 0 });
    const rows = service.db
      .prepare('SELECT url, acl_id, security_key, status FROM documents WHERE source_id = ?')
      .all(sourceId) as {
      url: string;
      acl_id: number | null;
      security_key: string;
      status: string;
    }[];
    expect(rows.map((r) => relOf(r.url)).sort()).toEqual(files);
    expect(rows.every((r) => r.status === 'ok' && r.security_key)).toBe(true);
    // public files carry no descriptor, the others one each; identical DACLs are stored once
    expect(rows.find((r) => relOf(r.url) === 'public.txt')!.acl_id).toBeNull();
    expect(rows.filter((r) => r.acl_id !== null).length).toBeGreaterThan(4);
  });

  it('shows each user exactly the files that user can read over SMB', async () => {
    const seen: Record<string, Set<string>> = {};
    for (const user of USERS) {
      const truth = readableOverSmb(server.port, 'docs', user, PW[user], files);
      const { paths, total } = await search(user);
      expect([...paths].sort(), user).toEqual([...truth].sort());
      expect(total, user).toBe(paths.size);
      seen[user] = truth;
    }
    // the tree exercises every case: alice owns the private files, bob and carol see less, differently
    expect(seen.alice.size).toBe(files.length);
    expect(seen.bob.size).toBeLessThan(files.length);
    expect(seen.carol.size).toBeLessThan(files.length);
    expect(
      seen.bob.has('deny-bob.txt') ||
        seen.bob.has('private/inside.txt') ||
        seen.bob.has('salesdir/report.txt'),
    ).toBe(false);
    expect(seen.bob.has('acl-bob.txt')).toBe(true);
    expect(seen.carol.has('salesdir/report.txt') && seen.carol.has('acl-sales.txt')).toBe(true);
    expect(seen.alice.has('private/inside.txt')).toBe(true);
  });

  it('resolves a user to the SIDs the server gives them', async () => {
    const p = await resolveSmbPrincipals(server.url('docs'), CRAWL, 'carol');
    expect(p).toContain(await server.sid('carol'));
    expect(p).toContain(await server.sid('Unix Group\\sales'));
    expect(p).toContain('everyone');
    expect(p).not.toContain(await server.sid('alice'));
    await expect(
      resolveSmbPrincipals(server.url('docs'), { ...CRAWL, password: 'wrong' }, 'carol'),
    ).rejects.toMatchObject({ code: 'auth' });
    await expect(
      resolveSmbPrincipals(server.url('docs'), CRAWL, 'nosuchuser_trawl', { unixGroups: false }),
    ).rejects.toMatchObject({ code: 'not-found' });
    // every server of every SMB source, asked with the source's credential; a dead one is reported
    const dead = { ...service.listSources()[0], id: 99, startAddresses: ['smb://127.0.0.1:1/gone'] };
    const store = new FileCredentialStore(dataDir);
    const all = await resolveSmbPrincipalsForSources(
      [...service.listSources(), dead],
      (id) => store.get(id),
      'carol',
    );
    expect(all.principals).toEqual(expect.arrayContaining(p));
    expect(all.errors.map((e) => e.server)).toEqual(['127.0.0.1:1']);
  });

  it('re-indexes only the file that changed', async () => {
    const p = path.join(server.paths.docs, 'sub dir', 'Ünïcode straße.txt');
    fs.writeFileSync(p, 'zebra umlaut changed wombat\n');
    const t = Date.now() / 1000 + 5;
    fs.utimesSync(p, t, t);
    const [rec] = await service.crawl({ sourceId, mode: 'incremental' });
    expect(rec.status).toBe('done');
    expect(rec.counts).toMatchObject({
      updated: 1,
      added: 0,
      deleted: 0,
      failed: 0,
      notModified: files.length - 1,
    });
    const res = service
      .forUser({ user: 'x', principals: ['everyone'], display: 'x' })
      .search({ query: 'wombat' });
    expect(res.hits.map((h) => relOf(h.url))).toEqual(['sub dir/Ünïcode straße.txt']);
  });

  it('sees a permission change: revoking read removes the file from that user’s results', async () => {
    const p = path.join(server.paths.docs, 'acl-bob.txt');
    execFileSync('setfacl', ['-x', 'u:bob', p]);
    expect(readableOverSmb(server.port, 'docs', 'bob', PW.bob, ['acl-bob.txt']).size).toBe(0);
    const [rec] = await service.crawl({ sourceId, mode: 'incremental' });
    expect(rec.status).toBe('done');
    expect(rec.counts.deleted).toBe(0);
    expect((await search('bob')).paths.has('acl-bob.txt')).toBe(false);
    expect((await search('alice')).paths.has('acl-bob.txt')).toBe(true);
  });

  it('notices deletions and renames', async () => {
    fs.renameSync(
      path.join(server.paths.docs, '[brackets] (1).txt'),
      path.join(server.paths.docs, '[brackets] (2).txt'),
    );
    const [rec] = await service.crawl({ sourceId, mode: 'incremental' });
    expect(rec.counts).toMatchObject({ added: 1, deleted: 1, failed: 0 });
    expect((await search('carol')).paths.has('[brackets] (2).txt')).toBe(true);
    expect((await search('carol')).paths.has('[brackets] (1).txt')).toBe(false);
  });

  it('crawls a share that requires encryption, shown in the UNC spelling it was added with', async () => {
    const unc = `\\\\127.0.0.1:${server.port}\\secure`;
    const s = service.addSource({
      name: 'secure',
      startAddresses: [unc],
      rules: [{ action: 'include', syntax: 'prefix', pattern: 'smb://', credentialId: 'crawl' }],
    });
    const [rec] = await service.crawl({ sourceId: s.id, mode: 'full' });
    expect(rec.status).toBe('done');
    expect(rec.counts).toMatchObject({ added: 2, failed: 0 });
    const rows = service.db
      .prepare('SELECT path FROM documents WHERE source_id = ? ORDER BY path')
      .all(s.id) as { path: string }[];
    expect(rows.map((r) => r.path)).toEqual([`${unc}\\nested\\deeper.txt`, `${unc}\\secret plans.txt`]);
    service.removeSource(s.id);
  });

  it('records folders the crawl account may not list and goes on', async () => {
    await service.setCredential('carol', { user: 'carol', password: PW.carol });
    const s = service.addSource({
      name: 'as carol',
      startAddresses: [server.url('docs')],
      rules: [{ action: 'include', syntax: 'prefix', pattern: 'smb://', credentialId: 'carol' }],
    });
    const [rec] = await service.crawl({ sourceId: s.id, mode: 'full' });
    expect(rec.status).toBe('done');
    const log = service.log({ crawlId: rec.id, failedOnly: true });
    expect(log.map((l) => l.url)).toContain(server.url('docs', 'private').replace(/%20/g, ' '));
    expect(log.find((l) => l.url.endsWith('/private'))!.reason).toMatch(/ACCESS_DENIED/);
    const urls = (
      service.db.prepare('SELECT url FROM documents WHERE source_id = ?').all(s.id) as { url: string }[]
    ).map((r) => relOf(r.url));
    expect(urls).toContain('salesdir/report.txt');
    expect(urls.some((u) => u.startsWith('private/'))).toBe(false);
    service.removeSource(s.id);
  });

  it('fails clearly on a wrong password and loses nothing', async () => {
    const before = service.db
      .prepare('SELECT count(*) AS n FROM documents WHERE source_id = ?')
      .get(sourceId) as { n: number };
    await service.setCredential('crawl', { ...CRAWL, password: 'not-the-password' });
    const [rec] = await service.crawl({ sourceId, mode: 'full' });
    await service.setCredential('crawl', CRAWL);
    expect(rec.status).toBe('failed');
    expect(rec.error).toMatch(/login failed.*NT_STATUS_LOGON_FAILURE.*account trawlcrawl/);
    expect(rec.error).not.toContain('not-the-password');
    const after = service.db
      .prepare('SELECT count(*) AS n FROM documents WHERE source_id = ?')
      .get(sourceId) as { n: number };
    expect(after.n).toBe(before.n);
    expect((await search('alice')).paths.size).toBeGreaterThan(0);
  });

  it('fails clearly when the share does not exist', async () => {
    const s = service.addSource({
      name: 'missing',
      startAddresses: [server.url('nosuchshare')],
      rules: [{ action: 'include', syntax: 'prefix', pattern: 'smb://', credentialId: 'crawl' }],
    });
    const [rec] = await service.crawl({ sourceId: s.id, mode: 'full' });
    expect(rec.status).toBe('failed');
    expect(rec.error).toMatch(/share does not exist/);
    service.removeSource(s.id);
  });

  it('reads bytes exactly: binary, empty and multi-megabyte files, many in a row', async () => {
    const bin = Buffer.alloc(256 * 3);
    for (let i = 0; i < bin.length; i++) bin[i] = i % 256;
    const big = Buffer.alloc(3 * 1024 * 1024 + 17);
    for (let i = 0; i < big.length; i++) big[i] = (i * 31 + 7) % 251;
    buildTree(server.paths.secure, {
      'bytes/all.bin': { content: '' },
      'bytes/empty.bin': { content: '' },
      'bytes/big.bin': { content: '' },
    });
    fs.writeFileSync(path.join(server.paths.secure, 'bytes/all.bin'), bin);
    fs.writeFileSync(path.join(server.paths.secure, 'bytes/big.bin'), big);
    const be = createSmbclientBackend({
      location: { host: '127.0.0.1', port: server.port, share: 'secure', path: [] },
      credential: CRAWL,
      captureAcls: false,
      signal: new AbortController().signal,
    });
    try {
      const reads = await Promise.all(
        Array.from({ length: 30 }, (_, i) => ['all.bin', 'empty.bin', 'big.bin'][i % 3]).map((n) =>
          be.read(['bytes', n], 1 << 30, 1 << 30),
        ),
      );
      reads.forEach((r, i) => expect(r.bytes.equals([bin, Buffer.alloc(0), big][i % 3])).toBe(true));
      expect(await be.read(['bytes', 'big.bin'], big.length, 1000)).toEqual({
        bytes: Buffer.alloc(0),
        truncated: true,
      });
      // smbclient cannot read a head: nothing is fetched, and the crawler reads the file whole.
      expect(await be.read(['bytes', 'big.bin'], big.length, 1000, true)).toEqual({
        bytes: Buffer.alloc(0),
        truncated: true,
      });
      await expect(be.read(['bytes', 'missing.bin'], 1, 10)).rejects.toMatchObject({ code: 'not-found' });
      expect((await be.read(['bytes', 'all.bin'], 10, 1 << 20)).bytes.equals(bin)).toBe(true);
    } finally {
      await be.close();
    }
  });

  it('reads photos and songs from their heads over SMB, whole only when their tags are not there', async () => {
    const MB = 1024 * 1024;
    const media = {
      'media/IMG_0001.JPG': Buffer.concat([fixtureBytes('sample-photo.jpg'), Buffer.alloc(3 * MB, 0x5a)]),
      'media/Harbour Lights.mp3': Buffer.concat([fixtureBytes('sample-song.mp3'), Buffer.alloc(3 * MB)]),
      'media/old.mp3': beforeId3v1(fixtureBytes('sample-song-v1.mp3'), 3 * MB),
    };
    buildTree(server.paths.secure, Object.fromEntries(Object.keys(media).map((k) => [k, { content: '' }])));
    for (const [rel, bytes] of Object.entries(media))
      fs.writeFileSync(path.join(server.paths.secure, rel), bytes);
    const s = service.addSource({
      name: 'media',
      startAddresses: [server.url('secure', 'media')],
      rules: [{ action: 'include', syntax: 'prefix', pattern: 'smb://', credentialId: 'crawl' }],
    });
    try {
      const [rec] = await service.crawl({ sourceId: s.id, mode: 'full' });
      expect(rec.counts).toMatchObject({ added: 3, failed: 0 });
      const found = (q: string) =>
        service
          .search({ query: q, sourceIds: [s.id] })
          .hits.map((h) => relOf(h.url))
          .sort();
      expect(found('"Ingrid Lindqvist" skeppsholmen')).toEqual(['media/IMG_0001.JPG']);
      expect(found('author:skeppsholm "lighthouse keeps the time"')).toEqual(['media/Harbour Lights.mp3']);
      expect(found('"old harbour song"')).toEqual(['media/old.mp3']);
    } finally {
      service.removeSource(s.id);
    }
  });

  it('keeps the password off every command line', async () => {
    const seen: string[] = [];
    let done = false;
    const watch = (async () => {
      while (!done) {
        for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
          try {
            const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
            if (/smbclient|rpcclient/.test(cmd)) seen.push(cmd);
          } catch {}
        }
        await new Promise((r) => setTimeout(r, 5));
      }
    })();
    await service.crawl({ sourceId, mode: 'full' });
    await resolveSmbPrincipals(server.url('docs'), CRAWL, 'alice');
    done = true;
    await watch;
    expect(seen.length).toBeGreaterThan(0);
    for (const cmd of seen) {
      expect(cmd).not.toContain(CRAWL.password);
      expect(cmd).not.toContain('%');
    }
  });

  it('leaves no credentials or temporary files behind', () => {
    expect(ourTemp().filter((n) => !tmpBefore.has(n))).toEqual([]);
  });
});

describe.skipIf(!RUN)('SMB against a strict server (signing mandatory, SMB3 only)', () => {
  let server: SambaServer;
  let dataDir: string;
  let service: TrawlService;
  let sourceId: number;
  const N_DIRS = 12;
  const N_FILES = 25;

  beforeAll(async () => {
    await ensureUnixAccounts([...USERS, 'trawlcrawl'], { sales: ['alice', 'carol'] });
    server = await startSamba({
      shares: [{ name: 'docs' }],
      global: ['server signing = mandatory', 'server min protocol = SMB3'],
      accounts: PW,
      adminUsers: ['trawlcrawl'],
    });
    const spec: Record<string, { content: string }> = {};
    for (let d = 0; d < N_DIRS; d++)
      for (let f = 0; f < N_FILES; f++) spec[`d${d}/f${f}.txt`] = z(`bulk${d}x${f}`);
    buildTree(server.paths.docs, spec);
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-smb-data-'));
    service = smbService(dataDir, { smbclient: { listProcesses: 1, readers: 1 } });
    await service.setCredential('crawl', CRAWL);
    sourceId = service.addSource({
      name: 'strict',
      startAddresses: [server.url('docs')],
      rules: [{ action: 'include', syntax: 'prefix', pattern: 'smb://', credentialId: 'crawl' }],
    }).id;
  }, 120_000);

  afterAll(async () => {
    await service?.close();
    await server?.stop();
    if (server) removeSambaDir(server);
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('crawls fine', async () => {
    const [rec] = await service.crawl({ sourceId, mode: 'full' });
    expect(rec.status).toBe('done');
    expect(rec.counts).toMatchObject({ added: N_DIRS * N_FILES, failed: 0 });
  });

  it('stops when asked, ending every client process', async () => {
    const off = service.on('progress', (p) => {
      if (p.sourceId === sourceId && p.done >= 30) service.stopCrawl(sourceId);
    });
    const [rec] = await service.crawl({ sourceId, mode: 'full' });
    off();
    expect(rec.status).toBe('stopped');
    const clients = fs
      .readdirSync('/proc')
      .filter((d) => /^\d+$/.test(d))
      .map((pid) => {
        try {
          return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
        } catch {
          return '';
        }
      })
      .filter((cmd) => cmd.includes('smbclient') && cmd.includes(`${server.port}`));
    expect(clients).toEqual([]);
  });

  const count = (where = ''): number =>
    (
      service.db
        .prepare(`SELECT count(*) AS n FROM documents WHERE source_id = ? ${where}`)
        .get(sourceId) as { n: number }
    ).n;

  /** Run a full crawl and kill the server (every smbd process) once 60 items are done. */
  async function crawlAndKill() {
    let killed: Promise<void> | null = null;
    const off = service.on('progress', (p) => {
      if (!killed && p.sourceId === sourceId && p.done >= 60) killed = server.stop();
    });
    const started = Date.now();
    const [rec] = await service.crawl({ sourceId, mode: 'full' });
    off();
    expect(killed).not.toBeNull();
    await killed;
    await server.restart();
    return { rec, ms: Date.now() - started };
  }

  it('keeps the index consistent when the server disappears in the middle of a crawl', async () => {
    const before = count();
    const { rec, ms } = await crawlAndKill();
    expect(ms).toBeLessThan(60_000);
    expect(service.db.pragma('integrity_check', { simple: true })).toBe('ok');
    expect(count()).toBe(before);
    const failures = service.log({ crawlId: rec.id, failedOnly: true });
    expect(rec.status === 'failed' || failures.length > 0).toBe(true);
    expect(rec.error ?? failures.map((f) => f.reason).join(' ')).toMatch(/CONNECTION|unavailable|no longer/i);
    // the session stays failed: no item after the loss got an answer from a new connection
    expect(
      failures.every((f) => /CONNECTION|unavailable|no longer|exited|refused/i.test(f.reason ?? '')),
    ).toBe(true);
  });

  // The crawler stops the walk on an `unavailable` handler error (docs/SMB-HANDLER.md, "A server
  // that disappears"): the crawl fails as a whole instead of overwriting good rows item by item.
  it('fails the crawl as a whole when the server disappears, keeping every indexed text', async () => {
    const [full] = await service.crawl({ sourceId, mode: 'full' });
    expect(full.status).toBe('done');
    const ok = count(`AND status = 'ok'`);
    expect(ok).toBe(N_DIRS * N_FILES);
    const { rec } = await crawlAndKill();
    expect(rec.status).toBe('failed');
    expect(rec.error).toMatch(/CONNECTION|unavailable/i);
    expect(count(`AND status = 'ok'`)).toBe(ok);
  });
});
