/**
 * End to end with real OS users: root crawls a tree of private, group, world-readable-in-private-
 * folder and POSIX-ACL files; `trawl daemon` serves it; `trawl search` run as alice, bob, carol and
 * nobody (runuser) sees exactly what `test -r` as that user allows — and nothing more through any
 * flag, request field, environment variable, socket or the index files themselves.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TrawlDaemon } from '../../src/daemon/daemon.js';
import { secureDataDir } from '../../src/daemon/data-dir-guard.js';
import { createEngine } from '../../src/main/core/engine.js';
import type { SearchResponse } from '../../src/main/core/api-types.js';
import { posixSecurity, type PosixSecurityProvider } from '../../src/main/core/security/platform-security.js';
import type { TrawlService } from '../../src/main/core/service.js';
import { ensureTestUsers, readableAs, repoReadableBy, sharedTempDir, type OsUsers } from './os-users.js';

const REPO = path.resolve(import.meta.dirname, '../..');
const setup = ensureTestUsers();
const USERS = ['alice', 'bob', 'carol', 'nobody'] as const;
type User = (typeof USERS)[number] | 'root';

interface FileSpec {
  rel: string;
  mode: number;
  owner?: string;
  group?: string;
  acl?: string;
}

const FOLDERS: FileSpec[] = [
  { rel: 'public', mode: 0o755 },
  { rel: 'privatealice', mode: 0o700, owner: 'alice' },
  { rel: 'salesonly', mode: 0o750, group: 'sales' },
  { rel: 'acl', mode: 0o755 },
  { rel: 'acldir', mode: 0o700, acl: 'u:carol:x' },
];

const FILES: FileSpec[] = [
  { rel: 'public/zqreadme.txt', mode: 0o644 },
  { rel: 'public/zqsalesplan.txt', mode: 0o640, group: 'sales' },
  { rel: 'public/zqengspec.txt', mode: 0o640, group: 'eng' },
  { rel: 'public/zqaliceonly.txt', mode: 0o600, owner: 'alice' },
  // Owner bits only for the owner: alice may not read her own 0044 file, everyone else may.
  { rel: 'public/zqnotowner.txt', mode: 0o044, owner: 'alice', group: 'alice' },
  // Group class denies: carol (sales) may not, bob (other) may, alice (owner) may.
  { rel: 'public/zqgroupdeny.txt', mode: 0o404, owner: 'alice', group: 'sales' },
  { rel: 'privatealice/zqalicefolder.txt', mode: 0o644 },
  { rel: 'salesonly/zqsalesfolder.txt', mode: 0o644 },
  { rel: 'acl/zqgrantbob.txt', mode: 0o600, acl: 'u:bob:r' },
  { rel: 'acl/zqdenycarol.txt', mode: 0o644, acl: 'u:carol:-' },
  { rel: 'acl/zqgranteng.txt', mode: 0o600, acl: 'g:eng:r' },
  { rel: 'acl/zqmasked.txt', mode: 0o600, acl: 'u:alice:r,m::-' },
  { rel: 'acldir/zqacldir.txt', mode: 0o644 },
];

const wordOf = (f: string): string => path.basename(f, '.txt');

function applySpec(p: string, s: FileSpec): void {
  if (s.owner || s.group) execFileSync('chown', [`${s.owner ?? 'root'}:${s.group ?? 'root'}`, p]);
  fs.chmodSync(p, s.mode);
  if (s.acl) execFileSync('setfacl', ['-m', s.acl, p]);
}

/** Run a command without blocking the event loop (the daemon answers from this very process). */
function run(argv: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(argv[0], argv.slice(1), { cwd: '/', stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

/** Run the real CLI as `user` (through runuser); returns exit status, stdout, stderr. */
function trawlAs(user: User, args: string[], env: Record<string, string> = {}) {
  const cmd = [process.execPath, path.join(REPO, 'bin/trawl.mjs'), ...args];
  const vars = Object.entries({ TRAWL_USE_TSX: '1', ...env }).map(([k, v]) => `${k}=${v}`);
  return run(
    user === 'root' ? ['env', ...vars, ...cmd] : ['runuser', '-u', user, '--', 'env', ...vars, ...cmd],
  );
}

/** Send raw protocol lines on a socket as `user`; one parsed answer per line. */
async function rawAs(
  user: User,
  client: string,
  socket: string,
  lines: string[],
): Promise<Record<string, unknown>[]> {
  const cmd = [process.execPath, client, socket, ...lines];
  const r = await run(user === 'root' ? cmd : ['runuser', '-u', user, '--', ...cmd]);
  if (r.status !== 0) throw new Error(`raw client as ${user}: ${r.stderr}`);
  return r.stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

const CLIENT = `
import net from 'node:net';
const [sock, ...lines] = process.argv.slice(2);
const s = net.createConnection(sock);
s.on('error', (e) => { console.log(JSON.stringify({ connectError: e.code })); process.exit(0); });
s.on('connect', () => { for (const l of lines) s.write(l + '\\n'); });
let buf = ''; let n = 0;
s.setEncoding('utf8');
s.on('data', (d) => {
  buf += d;
  let i;
  while ((i = buf.indexOf('\\n')) >= 0) { console.log(buf.slice(0, i)); buf = buf.slice(i + 1); if (++n === lines.length) s.end(); }
});
`;

describe.skipIf(!setup.ok)(
  `security trimming with real users${setup.ok ? '' : ` (skipped: ${setup.reason})`}`,
  () => {
    const users = (setup as { users: OsUsers }).users;
    let tmp: string;
    let tree: string;
    let dataDir: string;
    let runtimeDir: string;
    let client: string;
    let security: PosixSecurityProvider;
    let service: TrawlService;
    let daemon: TrawlDaemon;
    let files: string[];

    const socketOf = (u: User): string => daemon.socketPath(u === 'root' ? 0 : users.uid[u]);
    const truth = (u: User): Set<string> => (u === 'root' ? new Set(files) : readableAs(u, files));
    const searchAs = async (u: User, query = 'zebra'): Promise<Set<string>> => {
      const r = await trawlAs(u, ['search', query, '--json', '--limit', '1000', '--daemon', runtimeDir]);
      expect(r.status, r.stderr).toBe(0);
      const res = JSON.parse(r.stdout) as { total: number; hits: { path: string }[] };
      expect(res.total).toBe(res.hits.length);
      return new Set(res.hits.map((h) => h.path));
    };

    beforeAll(async () => {
      for (const u of USERS)
        if (!repoReadableBy(u, REPO)) throw new Error(`${u} cannot read ${REPO}: the CLI runs from there`);
      tmp = sharedTempDir('trawl-mu-');
      tree = path.join(tmp, 'tree');
      dataDir = path.join(tmp, 'data');
      runtimeDir = path.join(tmp, 'run');
      client = path.join(tmp, 'client.mjs');
      fs.writeFileSync(client, CLIENT, { mode: 0o644 });
      fs.mkdirSync(tree, { mode: 0o755 });
      for (const d of FOLDERS) fs.mkdirSync(path.join(tree, d.rel));
      files = FILES.map((f) => path.join(tree, f.rel));
      for (const f of FILES) {
        const p = path.join(tree, f.rel);
        fs.writeFileSync(p, `zebra ${wordOf(f.rel)} quarterly figures\n`);
        applySpec(p, f);
      }
      for (const d of FOLDERS) applySpec(path.join(tree, d.rel), d);
      secureDataDir(dataDir);
      security = posixSecurity();
      service = await createEngine({ dataDir, security, filterWorkers: 1 });
      service.addSource({ startAddresses: [tree] });
      const [rec] = await service.crawl({ mode: 'full' });
      expect(rec.counts.added).toBe(FILES.length);
      daemon = await TrawlDaemon.start({
        service,
        userFromUid: security.userFromUid,
        runtimeDir,
        accounts: [0, users.uid.alice, users.uid.bob, users.uid.carol, users.uid.nobody],
        requestPollMs: 100,
      });
    });

    afterAll(async () => {
      await daemon?.close();
      await service?.close();
      if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
    });

    it('ground truth is what the tree promises (test -r as each user)', () => {
      const rel = (u: User): string[] => [...truth(u)].map((f) => path.relative(tree, f)).sort();
      expect(rel('alice')).toEqual(
        [
          'acl/zqdenycarol.txt',
          'privatealice/zqalicefolder.txt',
          'public/zqaliceonly.txt',
          'public/zqgroupdeny.txt',
          'public/zqreadme.txt',
          'public/zqsalesplan.txt',
          'salesonly/zqsalesfolder.txt',
        ].sort(),
      );
      expect(rel('bob')).toEqual(
        [
          'acl/zqdenycarol.txt',
          'acl/zqgranteng.txt',
          'acl/zqgrantbob.txt',
          'public/zqengspec.txt',
          'public/zqgroupdeny.txt',
          'public/zqnotowner.txt',
          'public/zqreadme.txt',
        ].sort(),
      );
      expect(rel('carol')).toEqual(
        [
          'acldir/zqacldir.txt',
          'public/zqnotowner.txt',
          'public/zqreadme.txt',
          'public/zqsalesplan.txt',
          'salesonly/zqsalesfolder.txt',
        ].sort(),
      );
    });

    it('`trawl search` run as each user through the daemon finds exactly the files that user may read', async () => {
      for (const u of [...USERS, 'root'] as User[])
        expect([...(await searchAs(u))].sort(), u).toEqual([...truth(u)].sort());
    });

    it('`trawl whoami` through the daemon names the caller with every group', async () => {
      const r = await trawlAs('alice', ['whoami', '--json', '--daemon', runtimeDir]);
      expect(r.status, r.stderr).toBe(0);
      const me = JSON.parse(r.stdout) as { user: string; principals: string[] };
      expect(me.user).toBe('alice');
      expect(me.principals).toEqual(
        expect.arrayContaining([`uid:${users.uid.alice}`, `gid:${users.gid.sales}`]),
      );
      const text = (await trawlAs('carol', ['whoami', '--daemon', runtimeDir])).stdout;
      expect(text).toMatch(/^Searching as carol · groups: .*sales/);
    });

    it('users cannot open the index files themselves', async () => {
      const targets = [dataDir, ...fs.readdirSync(dataDir).map((f) => path.join(dataDir, f))];
      expect(targets.length).toBeGreaterThan(1);
      const probe = `for (const p of process.argv.slice(1)) { try { require('fs').openSync(p, 'r'); console.log('OPENED ' + p); } catch (e) { console.log(e.code); } }`;
      for (const u of USERS) {
        const r = spawnSync('runuser', ['-u', u, '--', process.execPath, '-e', probe, ...targets], {
          encoding: 'utf8',
        });
        expect(r.stdout.trim().split('\n'), u).toEqual(targets.map(() => 'EACCES'));
      }
      const st = fs.statSync(dataDir);
      expect(st.mode & 0o777).toBe(0o700);
      for (const f of fs.readdirSync(dataDir))
        expect(fs.statSync(path.join(dataDir, f)).mode & 0o077, f).toBe(0);
      // And the local-index path of the CLI fails instead of reading the daemon's index.
      const r = await trawlAs('alice', ['search', 'zebra', '--json', '--data-dir', dataDir], {
        TRAWL_DAEMON: 'off',
      });
      expect(r.status).not.toBe(0);
      expect(r.stdout).not.toContain('zq');
    });

    it("no socket, flag, request field or environment variable gets another user's results", async () => {
      const alice = [...truth('alice')].sort();
      // Another user's socket or runtime folder: the socket folder refuses entry.
      for (const target of [socketOf('bob'), socketOf('root'), path.dirname(socketOf('bob'))]) {
        const r = await trawlAs('alice', ['search', 'zebra', '--json', '--daemon', target]);
        expect(r.status, target).toBe(1);
        expect(r.stderr).toMatch(/permission denied|EACCES|no such socket/i);
        expect(r.stdout).toBe('');
      }
      // Flags that would name a user do not exist: they are refused, or taken as query words —
      // either way the answer is alice's own.
      for (const flag of [
        ['--user', 'bob'],
        ['--uid', String(users.uid.bob)],
        ['--as', 'bob'],
      ]) {
        const r = await trawlAs('alice', [
          'search',
          'zebra',
          '--json',
          '--limit',
          '1000',
          '--daemon',
          runtimeDir,
          ...flag,
        ]);
        if (r.status === 2) expect(r.stdout).toBe('');
        else {
          expect(r.status, r.stderr).toBe(0);
          for (const h of (JSON.parse(r.stdout) as SearchResponse).hits)
            expect(alice, flag.join(' ')).toContain(h.path);
        }
      }
      // Environment variables change nothing (identity is the socket, not what the process says).
      const env = {
        USER: 'bob',
        LOGNAME: 'bob',
        HOME: '/',
        TRAWL_USER: 'bob',
        TRAWL_UID: String(users.uid.bob),
        SUDO_UID: '0',
      };
      const r = await trawlAs(
        'alice',
        ['search', 'zebra', '--json', '--limit', '1000', '--daemon', runtimeDir],
        env,
      );
      expect(r.status, r.stderr).toBe(0);
      expect((JSON.parse(r.stdout) as SearchResponse).hits.map((h) => h.path).sort()).toEqual(alice);
      const viaEnv = await trawlAs('alice', ['search', 'zebra', '--json'], { TRAWL_DAEMON: socketOf('bob') });
      expect(viaEnv.status).toBe(1);
      // Request fields naming a user are rejected, admin methods refused, unknown methods unknown.
      const answers = await rawAs('alice', client, socketOf('alice'), [
        JSON.stringify({ id: 1, method: 'search', params: { query: 'zebra', uid: users.uid.bob } }),
        JSON.stringify({ id: 2, method: 'search', params: { query: 'zebra' }, user: 'bob' }),
        JSON.stringify({ id: 3, method: 'search', params: { query: 'zebra' }, uid: 0 }),
        JSON.stringify({ id: 4, method: 'startCrawl', params: {} }),
        JSON.stringify({ id: 5, method: 'listSources', params: {} }),
        JSON.stringify({ id: 6, method: 'log', params: {} }),
        'not json',
        JSON.stringify({ id: 7, method: 'whoami', params: { user: 'bob' } }),
        JSON.stringify({ id: 8, method: 'whoami' }),
        JSON.stringify({ id: 9, method: 'search', params: { query: 'zebra', limit: 1000 } }),
      ]);
      const byId = new Map(answers.map((a) => [a.id, a]));
      for (const id of [1, 2, 3, 7])
        expect((byId.get(id)?.error as { code: string }).code, `request ${id}`).toBe('BAD_REQUEST');
      expect((byId.get(4)?.error as { code: string }).code).toBe('FORBIDDEN');
      expect((byId.get(5)?.error as { code: string }).code).toBe('UNKNOWN_METHOD');
      expect((byId.get(6)?.error as { code: string }).code).toBe('UNKNOWN_METHOD');
      expect(
        answers.some((a) => a.id === undefined && (a.error as { code: string }).code === 'BAD_REQUEST'),
      ).toBe(true);
      expect((byId.get(8)?.value as { user: string }).user).toBe('alice');
      expect(((byId.get(9)?.value as SearchResponse).hits.map((h) => h.path) ?? []).sort()).toEqual(alice);
    });

    it('totals, type filters, pages, snippets, suggestions, preview, open and status reveal nothing unreadable', async () => {
      const all = await rawAs('root', client, socketOf('root'), [
        JSON.stringify({ id: 1, method: 'search', params: { query: 'zebra', limit: 1000 } }),
      ]);
      const idOf = new Map((all[0].value as SearchResponse).hits.map((h) => [h.path, h.id]));
      expect(idOf.size).toBe(files.length);
      for (const u of USERS) {
        const visible = truth(u);
        const lines: string[] = [];
        for (const f of files) {
          lines.push(
            JSON.stringify({ id: lines.length, method: 'search', params: { query: wordOf(f), limit: 10 } }),
          );
          lines.push(
            JSON.stringify({
              id: lines.length,
              method: 'preview',
              params: { id: idOf.get(f), query: 'zebra' },
            }),
          );
          lines.push(
            JSON.stringify({
              id: lines.length,
              method: 'openItem',
              params: { id: idOf.get(f), action: 'open' },
            }),
          );
        }
        const fixed = lines.length;
        lines.push(
          JSON.stringify({
            id: fixed,
            method: 'search',
            params: { query: 'zebra', types: ['txt'], limit: 2, offset: 1, sort: 'name' },
          }),
        );
        lines.push(JSON.stringify({ id: fixed + 1, method: 'suggest', params: { prefix: 'zq' } }));
        lines.push(JSON.stringify({ id: fixed + 2, method: 'status', params: {} }));
        lines.push(
          JSON.stringify({
            id: fixed + 3,
            method: 'search',
            params: { query: 'zebra quarterly', limit: 1000 },
          }),
        );
        for (const f of files)
          lines.push(JSON.stringify({ id: lines.length, method: 'suggest', params: { prefix: wordOf(f) } }));
        const answers = new Map((await rawAs(u, client, socketOf(u), lines)).map((a) => [a.id as number, a]));
        files.forEach((f, i) => {
          const canSee = visible.has(f);
          const search = answers.get(i * 3)!.value as SearchResponse;
          expect(search.total, `${u} searching ${wordOf(f)}`).toBe(canSee ? 1 : 0);
          if (canSee) expect(search.hits[0].snippet).toContain(wordOf(f));
          const preview = answers.get(i * 3 + 1)!.value as { text: string } | null;
          expect(preview === null, `${u} preview ${f}`).toBe(!canSee);
          if (preview) expect(preview.text).toContain(wordOf(f));
          expect(answers.get(i * 3 + 2)!.value === null, `${u} open ${f}`).toBe(!canSee);
        });
        const page = answers.get(fixed)!.value as SearchResponse;
        expect(page.total).toBe(visible.size);
        expect(page.hits.length).toBe(Math.max(0, Math.min(2, visible.size - 1)));
        const hidden = new Set(files.filter((f) => !visible.has(f)).map(wordOf));
        const suggestions = [
          answers.get(fixed + 1)!.value as string[],
          ...files.map((_, i) => answers.get(fixed + 4 + i)!.value as string[]),
        ].flat();
        for (const s of suggestions)
          for (const w of s.toLowerCase().split(/[^a-z]+/))
            expect(hidden.has(w), `${u} was offered "${s}"`).toBe(false);
        expect(suggestions.length > 0).toBe(visible.size > 0);
        const status = answers.get(fixed + 2)!.value as {
          documents: number;
          sources: { stats: { documents: number } }[];
        };
        expect(status.documents).toBe(visible.size);
        const snippets = (answers.get(fixed + 3)!.value as SearchResponse).hits;
        expect(snippets.length).toBe(visible.size);
        for (const h of snippets)
          for (const w of hidden) expect(h.snippet + h.title, `${u} snippet`).not.toContain(w);
      }
    });

    it('a user without a socket gets one by asking in requests/ and then sees their own results only', async () => {
      await closeSocketOf('carol');
      expect(fs.existsSync(socketOf('carol'))).toBe(false);
      expect([...(await searchAs('carol'))].sort()).toEqual([...truth('carol')].sort());
    });

    it('a user who tampers with their own socket folder harms nobody and gets a fresh socket', async () => {
      const sock = socketOf('alice');
      const victim = path.join(tmp, 'victim');
      const asAlice = (...cmd: string[]): void => {
        execFileSync('runuser', ['-u', 'alice', '--', ...cmd]);
      };
      const ask = async (): Promise<void> => {
        asAlice('touch', path.join(runtimeDir, 'requests', `alice-${Date.now()}`));
        for (let i = 0; i < 50 && !(fs.existsSync(sock) && fs.lstatSync(sock).isSocket()); i++)
          await new Promise((r) => setTimeout(r, 100));
      };
      // A dangling link where the socket was: re-provisioning must neither follow nor create it.
      asAlice('rm', '-f', sock);
      asAlice('ln', '-s', victim, sock);
      await ask();
      expect(fs.lstatSync(sock).isSocket()).toBe(true);
      expect(fs.lstatSync(sock).uid).toBe(users.uid.alice);
      expect(fs.existsSync(victim)).toBe(false);
      // A folder where the socket was: moved aside, not walked.
      asAlice('rm', '-f', sock);
      asAlice('mkdir', sock);
      asAlice('ln', '-s', '/etc', path.join(sock, 'etc'));
      await ask();
      expect(fs.lstatSync(sock).isSocket()).toBe(true);
      expect(fs.existsSync('/etc/passwd')).toBe(true);
      expect([...(await searchAs('alice'))].sort()).toEqual([...truth('alice')].sort());
    });

    async function closeSocketOf(u: User): Promise<void> {
      // Simulate an account the daemon did not know at start: drop its socket folder.
      fs.rmSync(path.dirname(socketOf(u)), { recursive: true, force: true });
    }

    it('revoking read access (chmod, setfacl, a folder chmod) removes the item after the next incremental crawl', async () => {
      const f = (rel: string): string => path.join(tree, rel);
      const before = { alice: truth('alice'), bob: truth('bob'), carol: truth('carol') };
      fs.chmodSync(f('public/zqreadme.txt'), 0o640); // others lose it
      execFileSync('setfacl', ['-m', 'u:bob:-', f('acl/zqgrantbob.txt')]);
      fs.chmodSync(f('salesonly'), 0o700); // sales loses the folder; the file itself is untouched
      execFileSync('setfacl', ['-m', 'm::r', f('acl/zqmasked.txt')]); // and one grant
      // Root's `trawl crawl` in its own process, while the daemon keeps serving.
      const crawl = await trawlAs('root', ['crawl', '--data-dir', dataDir]);
      expect(crawl.status, crawl.stderr).toBe(0);
      expect(crawl.stdout).toMatch(/deleted 0, failed 0/);
      const after = { alice: truth('alice'), bob: truth('bob'), carol: truth('carol') };
      expect(before.bob.has(f('public/zqreadme.txt')) && !after.bob.has(f('public/zqreadme.txt'))).toBe(true);
      expect(before.bob.has(f('acl/zqgrantbob.txt')) && !after.bob.has(f('acl/zqgrantbob.txt'))).toBe(true);
      expect(
        before.carol.has(f('salesonly/zqsalesfolder.txt')) &&
          !after.carol.has(f('salesonly/zqsalesfolder.txt')),
      ).toBe(true);
      expect(!before.alice.has(f('acl/zqmasked.txt')) && after.alice.has(f('acl/zqmasked.txt'))).toBe(true);
      for (const u of ['alice', 'bob', 'carol'] as const)
        expect([...(await searchAs(u))].sort(), u).toEqual([...after[u]].sort());

      // The daemon's own crawl loop: forget cached folder state, then crawl incrementally.
      execFileSync('setfacl', ['-x', 'u:carol', f('acldir')]);
      expect(truth('carol').has(f('acldir/zqacldir.txt'))).toBe(false);
      security.fileCapture.invalidate();
      const [rec] = await service.crawl({ mode: 'incremental' });
      // Same bytes: the crawler only re-captures the descriptor (counted as not modified).
      expect(rec.counts.updated + rec.counts.notModified).toBe(FILES.length);
      expect([...(await searchAs('carol'))].sort()).toEqual([...truth('carol')].sort());
    });
  },
);
