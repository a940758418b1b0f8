/**
 * A mounted SMB share as a folder source: a real FUSE mount (smbnetfs) of a real Samba share,
 * crawled through the file handler with `settings.smb.shareIdentity`, so every file carries its
 * NT DACL from the share — not the mount's POSIX modes, which show the mounting account on every
 * file. For alice, bob and carol the results equal what each can `get` over SMB.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileCredentialStore } from '../../src/main/core/credential-store.js';
import { SmbPrincipalCache } from '../../src/main/core/security/smb-principal-cache.js';
import type { TrawlService } from '../../src/main/core/service.js';
import { ensureUnixAccounts, removeSambaDir, startSamba, type SambaServer } from './samba-server.js';
import { buildTree, filesBelow, mountedShareService, readableOverSmb, sambaForTests } from './smb-helpers.js';
import { mountWithSmbnetfs, smbnetfsForTests, type SmbnetfsMount } from './smbnetfs-mount.js';

const RUN = sambaForTests() && smbnetfsForTests();
const USERS = ['alice', 'bob', 'carol'] as const;
const PW: Record<string, string> = {
  alice: 'Alice-pw-1',
  bob: 'Bob-pw-1',
  carol: 'Carol-pw-1',
  trawlcrawl: 'Crawl-pw-1',
};
const CRAWL = { user: 'trawlcrawl', password: PW.trawlcrawl };
const z = (word: string): { content: string } => ({ content: `zebra ${word}\n` });

describe.skipIf(!RUN)(
  'a mounted share (smbnetfs FUSE mount) as a folder source with the share identity',
  () => {
    let server: SambaServer;
    let mount: SmbnetfsMount;
    let dataDir: string;
    let service: TrawlService;
    let principals: SmbPrincipalCache;
    let sourceId: number;
    let files: string[];
    let clientLog: string;
    let tmpBefore: Set<string>;
    const ourTemp = (): string[] => fs.readdirSync(os.tmpdir()).filter((n) => n.startsWith('trawl-smb-'));

    const rows = (id = sourceId) =>
      service.db
        .prepare('SELECT path, acl_id, security_key, status FROM documents WHERE source_id = ? ORDER BY path')
        .all(id) as { path: string; acl_id: number | null; security_key: string | null; status: string }[];

    const rel = (p: string): string => path.relative(mount.shareRoot, p).split(path.sep).join('/');

    /** What `user` finds, through the principal cache the engine uses (mounted sources included). */
    const found = async (user: string, id = sourceId): Promise<Set<string>> => {
      await principals.prefetch(user);
      const res = service
        .forUser({ user, principals: principals.get(user), display: user })
        .search({ query: 'zebra', limit: 1000 });
      return new Set(res.hits.filter((h) => h.sourceId === id).map((h) => rel(h.path)));
    };

    /** smbclient processes started since the last call (a wrapper script logs each start). */
    const clientStarts = (): number => {
      const n = fs.existsSync(clientLog)
        ? fs.readFileSync(clientLog, 'utf8').split('\n').filter(Boolean).length
        : 0;
      fs.rmSync(clientLog, { force: true });
      return n;
    };

    // enough folders for the DACL reads to go ahead of the crawl in batches
    const bulk: Record<string, { content: string }> = {};
    for (let d = 0; d < 8; d++)
      for (let f = 0; f < 10; f++) bulk[`bulk/d${d}/f${f}.txt`] = z(`bulk${d}x${f}`);

    beforeAll(async () => {
      tmpBefore = new Set(ourTemp());
      await ensureUnixAccounts([...USERS, 'trawlcrawl'], { sales: ['alice', 'carol'] });
      server = await startSamba({ shares: [{ name: 'docs' }], accounts: PW, adminUsers: ['trawlcrawl'] });
      buildTree(server.paths.docs, {
        'public.txt': z('public'),
        'alice-only.txt': { ...z('aliceonly'), owner: 'alice', mode: 0o600 },
        'sales.txt': { ...z('sales'), owner: 'alice', group: 'sales', mode: 0o640 },
        'acl-bob.txt': { ...z('aclbob'), owner: 'alice', mode: 0o600, acl: 'u:bob:r' },
        'deny-bob.txt': z('denybob'),
        'private/': { dir: true, owner: 'alice', mode: 0o700 },
        'private/inside.txt': z('inside'),
        'salesdir/': { dir: true, owner: 'alice', group: 'sales', mode: 0o750 },
        'salesdir/report.txt': z('report'),
        'sub dir/Ünïcode straße.txt': z('umlaut'),
        'sub dir/deeper/[brackets] (1).txt': z('brackets'),
        '日本語/文書.txt': z('cjk'),
        // indexed by name only: its descriptor comes through `describe`, not `open`
        'zebra clip.mp4': { content: 'not really a video', owner: 'alice', mode: 0o600 },
        ...bulk,
      });
      const bob = await server.sid('bob');
      await server.setNtAcl(
        'docs',
        'deny-bob.txt',
        `O:S-1-22-1-0G:S-1-22-2-0D:(D;;0x00120089;;;${bob})(A;;0x001f019f;;;S-1-22-1-0)(A;;0x00120089;;;S-1-22-2-0)(A;;0x00120089;;;WD)`,
      );
      files = filesBelow(server.paths.docs);
      // the mount is made by the service account (it may read everything), as on a file server
      mount = await mountWithSmbnetfs(server.port, 'docs', CRAWL);

      dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-mount-data-'));
      clientLog = path.join(dataDir, 'smbclient-starts.log');
      const wrapper = path.join(dataDir, 'smbclient');
      fs.writeFileSync(wrapper, `#!/bin/sh\necho "$$" >> '${clientLog}'\nexec smbclient "$@"\n`, {
        mode: 0o755,
      });
      service = mountedShareService(dataDir, { smbclient: { smbclient: wrapper } });
      const credentials = new FileCredentialStore(dataDir);
      principals = new SmbPrincipalCache(
        () => service.listSources(),
        (id) => credentials.get(id),
      );
      await service.setCredential('crawl', CRAWL);
      sourceId = service.addSource({
        name: 'mounted docs',
        startAddresses: [mount.shareRoot],
        settings: { smb: { shareIdentity: server.url('docs'), credentialId: 'crawl' } },
      }).id;
    }, 120_000);

    afterAll(async () => {
      await service?.close();
      await mount?.unmount();
      await server?.stop();
      if (server) removeSambaDir(server);
      if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
    });

    it('the mount shows every file as the mounting account’s, readable by all (what POSIX capture would see)', () => {
      const st = fs.statSync(path.join(mount.shareRoot, 'alice-only.txt'));
      expect(st.uid).toBe(0);
      expect(st.mode & 0o004).toBe(0o004);
      expect(fs.readFileSync(path.join(mount.shareRoot, 'private', 'inside.txt'), 'utf8')).toBe(
        'zebra inside\n',
      );
    });

    it('indexes every file through the mount with its DACL from the share, in a few client processes', async () => {
      clientStarts();
      const [rec] = await service.crawl({ sourceId, mode: 'full' });
      expect(rec.error).toBeNull();
      expect(rec.status).toBe('done');
      expect(rec.counts).toMatchObject({ discovered: files.length, added: files.length, failed: 0 });
      const r = rows();
      expect(r.map((x) => rel(x.path)).sort()).toEqual(files);
      expect(r.every((x) => x.security_key?.startsWith('smb:'))).toBe(true);
      expect(r.filter((x) => x.status !== 'ok').map((x) => [rel(x.path), x.status])).toEqual([
        ['zebra clip.mp4', 'metadata'],
      ]);
      expect(r.find((x) => rel(x.path) === 'zebra clip.mp4')!.acl_id).not.toBeNull();
      expect(r.find((x) => rel(x.path) === 'public.txt')!.acl_id).toBeNull();
      expect(r.find((x) => rel(x.path) === 'alice-only.txt')!.acl_id).not.toBeNull();
      // DACLs come by folder, read ahead in batches: far fewer processes than files
      expect(clientStarts()).toBeLessThan(files.length / 3);
    });

    it('shows each user exactly what that user can read over SMB', async () => {
      const seen: Record<string, Set<string>> = {};
      for (const user of USERS) {
        const truth = readableOverSmb(server.port, 'docs', user, PW[user], files);
        expect([...(await found(user))].sort(), user).toEqual([...truth].sort());
        seen[user] = truth;
      }
      // the tree covers owner-only, group, POSIX ACL, NT deny and untraversable folders
      expect(seen.alice.size).toBe(files.length);
      expect(seen.bob.has('alice-only.txt') || seen.bob.has('deny-bob.txt')).toBe(false);
      expect(seen.bob.has('private/inside.txt') || seen.bob.has('salesdir/report.txt')).toBe(false);
      expect(seen.bob.has('acl-bob.txt')).toBe(true);
      expect(seen.carol.has('salesdir/report.txt') && seen.carol.has('sales.txt')).toBe(true);
    });

    it('reads no DACL for unchanged files on an incremental crawl, and re-reads only a changed file’s', async () => {
      clientStarts();
      const [same] = await service.crawl({ sourceId, mode: 'incremental' });
      expect(same.status).toBe('done');
      expect(same.counts).toMatchObject({ notModified: files.length, updated: 0, added: 0, deleted: 0 });
      expect(clientStarts()).toBeLessThanOrEqual(1); // the start folder's check against the share
      const p = path.join(mount.shareRoot, 'sub dir', 'deeper', '[brackets] (1).txt');
      fs.writeFileSync(p, 'zebra brackets changed wombat\n');
      const [changed] = await service.crawl({ sourceId, mode: 'incremental' });
      expect(changed.counts).toMatchObject({
        updated: 1,
        notModified: files.length - 1,
        added: 0,
        deleted: 0,
        failed: 0,
      });
      expect(clientStarts()).toBeLessThanOrEqual(3);
      expect((await found('bob')).has('sub dir/deeper/[brackets] (1).txt')).toBe(true);
    });

    it('sees deletions and renames through the mount', async () => {
      fs.renameSync(
        path.join(mount.shareRoot, 'public.txt'),
        path.join(mount.shareRoot, 'public renamed.txt'),
      );
      const [rec] = await service.crawl({ sourceId, mode: 'incremental' });
      expect(rec.counts).toMatchObject({ added: 1, deleted: 1, failed: 0 });
      const bob = await found('bob');
      expect(bob.has('public renamed.txt') && !bob.has('public.txt')).toBe(true);
      expect((await found('bob')).has('alice-only.txt')).toBe(false);
    });

    it('without the setting, the same mount is a plain folder: the mount’s modes decide', async () => {
      const plain = service.addSource({ name: 'plain mount', startAddresses: [mount.shareRoot] });
      clientStarts();
      const [rec] = await service.crawl({ sourceId: plain.id, mode: 'full' });
      expect(rec.status).toBe('done');
      expect(clientStarts()).toBe(0);
      expect(rows(plain.id).some((x) => x.security_key?.startsWith('smb:'))).toBe(false);
      // the server treats these two files very differently; the mount shows both as root's, 0644
      const acl = (id: number, name: string) => rows(id).find((x) => rel(x.path) === name)!.acl_id;
      expect(acl(plain.id, 'alice-only.txt')).toBe(acl(plain.id, 'sales.txt'));
      expect(acl(sourceId, 'alice-only.txt')).not.toBe(acl(sourceId, 'sales.txt'));
      service.removeSource(plain.id);
    });

    it('makes a file visible to nobody when the DACL account cannot read its folder’s DACLs', async () => {
      await service.setCredential('carol', { user: 'carol', password: PW.carol });
      const s = service.addSource({
        name: 'read as carol',
        startAddresses: [mount.shareRoot],
        settings: { smb: { shareIdentity: server.url('docs'), credentialId: 'carol' } },
      });
      const [rec] = await service.crawl({ sourceId: s.id, mode: 'full' });
      expect(rec.status).toBe('done');
      expect(rec.counts.failed).toBe(0);
      // carol may not list private/ (alice's, 0700): its file is indexed (the mount reads it) but
      // shown to nobody, not to everyone; DACLs carol's account can read keep their exact meaning
      for (const user of USERS) expect((await found(user, s.id)).has('private/inside.txt'), user).toBe(false);
      expect((await found('carol', s.id)).has('sales.txt')).toBe(true);
      expect((await found('bob', s.id)).has('sales.txt')).toBe(false);
      expect((await found('bob', s.id)).has('deny-bob.txt')).toBe(false);
      expect((await found('carol', s.id)).has('deny-bob.txt')).toBe(true);
      service.removeSource(s.id);
    });

    it('refuses invalid settings when the source is saved, with the reason', () => {
      const add = (settings: Record<string, unknown>, start = mount.shareRoot) =>
        service.addSource({ name: 'bad', startAddresses: [start], settings: { smb: settings } });
      expect(() => add({ shareIdentity: 'http://server/share' })).toThrow(
        /shareIdentity.*not an SMB address/,
      );
      expect(() => add({ shareIdentity: 'smb://server' })).toThrow(/needs a server and a share/);
      expect(() => add({ shareIdentity: server.url('docs'), mountRoot: 'relative/path' })).toThrow(
        /mountRoot must be an absolute local path/,
      );
      expect(() =>
        add({ shareIdentity: server.url('docs'), mountRoot: path.join(mount.shareRoot, 'sub dir') }),
      ).toThrow(/is not under the mount root/);
      expect(() => add({ shareIdentity: server.url('docs'), share: 'x' })).toThrow(
        /settings.smb.share is not a setting/,
      );
      expect(service.listSources().some((s) => s.name === 'bad')).toBe(false);
    });

    it('fails the crawl clearly when the identity names another folder, deleting nothing', async () => {
      const before = rows().length;
      const wrong = service.addSource({
        name: 'wrong identity',
        startAddresses: [path.join(mount.shareRoot, 'sub dir')],
        settings: { smb: { shareIdentity: server.url('docs', 'salesdir'), credentialId: 'crawl' } },
      });
      const [rec] = await service.crawl({ sourceId: wrong.id, mode: 'full' });
      expect(rec.status).toBe('failed');
      expect(rec.error).toMatch(/does not look like smb:\/\/127\.0\.0\.1:\d+\/docs\/salesdir/);
      service.removeSource(wrong.id);
      expect(rows().length).toBe(before);
    });

    it('leaves no client process and no credentials file behind', () => {
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
        .filter((cmd) => /smbclient|rpcclient/.test(cmd) && cmd.includes(String(server.port)));
      expect(clients).toEqual([]);
      expect(ourTemp().filter((n) => !tmpBefore.has(n))).toEqual([]);
    });

    it('fails clearly on a wrong password and loses nothing', async () => {
      const before = rows().length;
      await service.setCredential('crawl', { ...CRAWL, password: 'not-the-password' });
      const [rec] = await service.crawl({ sourceId, mode: 'full' });
      await service.setCredential('crawl', CRAWL);
      expect(rec.status).toBe('failed');
      expect(rec.error).toMatch(/NT_STATUS_LOGON_FAILURE/);
      expect(rec.error).not.toContain('not-the-password');
      expect(rows().length).toBe(before);
    });
  },
);
