/**
 * The search UI's HTTP API through the system-wide daemon, with real OS users: root crawls a tree
 * of private, group and ACL files and runs `trawl daemon`; `trawl serve --daemon` runs **as alice**
 * and as bob (runuser), and each web shell answers exactly what `test -r` as its user allows —
 * whatever the request says — and refuses to manage sources or crawls.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TrawlDaemon } from '../../src/daemon/daemon.js';
import { secureDataDir } from '../../src/daemon/data-dir-guard.js';
import { createEngine } from '../../src/main/core/engine.js';
import { posixSecurity } from '../../src/main/core/security/platform-security.js';
import type { TrawlService } from '../../src/main/core/service.js';
import type { AppInfo, SearchResponse, Whoami } from '../../src/shared/contract.js';
import { codeWord, writeAppTree } from './daemon-app-tree.js';
import { ensureTestUsers, readableAs, repoReadableBy, sharedTempDir, type OsUsers } from './os-users.js';

const REPO = path.resolve(import.meta.dirname, '../..');
const setup = ensureTestUsers();

interface Shell {
  child: ChildProcess;
  url: string;
  token: string;
  stderr: () => string;
}

type Envelope = { ok: true; value: unknown } | { ok: false; error: { code: string; message: string } };

/** `trawl serve` as `user` (runuser); resolves once it printed its URL, rejects with its output if it exits. */
function serveAs(user: string, args: string[], env: Record<string, string> = {}): Promise<Shell> {
  const vars = Object.entries({ TRAWL_USE_TSX: '1', ...env }).map(([k, v]) => `${k}=${v}`);
  const child = spawn(
    'runuser',
    ['-u', user, '--', 'env', ...vars, process.execPath, path.join(REPO, 'bin/trawl.mjs'), 'serve', ...args],
    { cwd: '/', stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  let err = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`trawl serve as ${user} printed no URL:\n${out}\n${err}`));
    }, 90_000);
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      const m = /(http:\/\/127\.0\.0\.1:\d+)\/#token=([A-Za-z0-9_-]+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ child, url: m[1], token: m[2], stderr: () => err });
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(
        Object.assign(new Error(`trawl serve as ${user} exited with ${code}:\n${out}\n${err}`), {
          code,
          out,
          err,
        }),
      );
    });
  });
}

async function stop(shell: Shell | undefined): Promise<void> {
  if (!shell || shell.child.exitCode !== null) return;
  const exited = new Promise((resolve) => shell.child.once('exit', resolve));
  shell.child.kill('SIGTERM');
  const force = setTimeout(() => shell.child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(force);
}

async function api(shell: Shell, method: string, body: unknown): Promise<{ status: number; body: Envelope }> {
  const res = await fetch(`${shell.url}/api/${method}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${shell.token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Envelope };
}

async function value<T>(shell: Shell, method: string, body: unknown): Promise<T> {
  const r = await api(shell, method, body);
  if (!r.body.ok) throw new Error(`${method}: ${r.body.error.code} ${r.body.error.message}`);
  return r.body.value as T;
}

const pathsOf = (r: SearchResponse): string[] => r.hits.map((h) => h.path).sort();

describe.skipIf(!setup.ok)(
  `the web shell through trawl daemon, with real users${setup.ok ? '' : ` (skipped: ${setup.reason})`}`,
  () => {
    const users = (setup as { users: OsUsers }).users;
    let tmp: string;
    let runtimeDir: string;
    let files: string[];
    let service: TrawlService;
    let daemon: TrawlDaemon;
    let alice: Shell;
    let bob: Shell;
    /** Every document's id, as root sees them. */
    let idOf: Map<string, number>;

    beforeAll(async () => {
      for (const u of ['alice', 'bob'])
        if (!repoReadableBy(u, REPO))
          throw new Error(`${u} cannot read ${REPO}: trawl serve runs from there`);
      // Users cannot write the repository: build the UI now so their `trawl serve` finds it fresh.
      const { buildRenderer } = (await import(
        pathToFileURL(path.join(REPO, 'scripts/build-renderer.mjs')).href
      )) as {
        buildRenderer(): Promise<boolean>;
      };
      await buildRenderer();
      tmp = sharedTempDir('trawl-dapp-');
      runtimeDir = path.join(tmp, 'run');
      files = writeAppTree(path.join(tmp, 'tree'));
      const dataDir = path.join(tmp, 'data');
      secureDataDir(dataDir);
      const security = posixSecurity();
      service = await createEngine({ dataDir, security, filterWorkers: 1 });
      service.addSource({ startAddresses: [path.join(tmp, 'tree')] });
      const [rec] = await service.crawl({ mode: 'full' });
      expect(rec.counts.added).toBe(files.length);
      idOf = new Map(service.search({ query: 'harbour', limit: 1000 }).hits.map((h) => [h.path, h.id]));
      expect(idOf.size).toBe(files.length);
      daemon = await TrawlDaemon.start({
        service,
        userFromUid: security.userFromUid,
        runtimeDir,
        accounts: [users.uid.alice, users.uid.bob],
        requestPollMs: 100,
      });
      const dataOf = (u: string): string => path.join(tmp, `${u}-data`);
      [alice, bob] = await Promise.all([
        serveAs('alice', ['--daemon', runtimeDir, '--port', '0', '--data-dir', dataOf('alice')]),
        // bob names the daemon through the environment, as TRAWL_DAEMON users do.
        serveAs('bob', ['--port', '0', '--data-dir', dataOf('bob')], { TRAWL_DAEMON: runtimeDir }),
      ]);
    });

    afterAll(async () => {
      await Promise.all([stop(alice), stop(bob)]);
      await daemon?.close();
      await service?.close();
      if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
    });

    it("alice's web shell finds exactly what alice may read, and says so", async () => {
      const truth = [...readableAs('alice', files)].sort();
      expect(truth.map(codeWord).sort()).toEqual(['qxalicefolder', 'qxaliceonly', 'qxreadme', 'qxsalesplan']);
      const res = await value<SearchResponse>(alice, 'search', { query: 'harbour', limit: 1000 });
      expect(pathsOf(res)).toEqual(truth);
      expect(res.total).toBe(truth.length);
      const me = await value<Whoami>(alice, 'whoami', {});
      expect(me.user).toBe('alice');
      expect(me.principals).toEqual(
        expect.arrayContaining([`uid:${users.uid.alice}`, `gid:${users.gid.sales}`]),
      );
      expect(me.display).toMatch(/^Searching as alice · groups: .*\bsales\b/);
      const info = await value<AppInfo>(alice, 'appInfo', {});
      expect(info.daemon?.socket).toBe(daemon.socketPath(users.uid.alice));
      expect((await value<{ documents: number }>(alice, 'status', {})).documents).toBe(truth.length);
      expect(alice.stderr()).toMatch(/results from the trawl daemon at .* · Searching as alice/);
      // Nothing was opened locally: the data folder alice named was never created.
      expect(fs.existsSync(path.join(tmp, 'alice-data'))).toBe(false);
    });

    it("bob's web shell gets bob's results whatever the request says, and nothing of alice's", async () => {
      const truth = new Set(readableAs('bob', files));
      const aliceOnly = files.filter((f) => !truth.has(f));
      expect(aliceOnly.map(codeWord).sort()).toEqual(['qxalicefolder', 'qxaliceonly', 'qxsalesplan']);
      const all = await value<SearchResponse>(bob, 'search', { query: 'harbour', limit: 1000 });
      expect(pathsOf(all)).toEqual([...truth].sort());
      const sourceId = service.listSources()[0].id;
      // Every search option, and each hidden file's own code word: never a hidden hit or count.
      for (const body of [
        { query: 'harbour', limit: 1000, sourceIds: [sourceId], types: ['txt'], sort: 'name' },
        { query: 'harbour', limit: 2, offset: 1, sort: 'date' },
        ...files.map((f) => ({ query: codeWord(f), limit: 10 })),
      ]) {
        const r = await value<SearchResponse>(bob, 'search', body);
        for (const h of r.hits) expect(truth.has(h.path), `${JSON.stringify(body)} → ${h.path}`).toBe(true);
        expect(r.total).toBeLessThanOrEqual(truth.size);
      }
      for (const f of aliceOnly) {
        expect((await value<SearchResponse>(bob, 'search', { query: codeWord(f) })).total).toBe(0);
        expect(await value(bob, 'preview', { id: idOf.get(f), query: 'harbour' }), f).toBeNull();
        expect(await value(bob, 'openItem', { id: idOf.get(f), action: 'open' }), f).toBeNull();
        expect(await value(bob, 'openItem', { id: idOf.get(f), action: 'reveal' }), f).toBeNull();
        expect(await value<string[]>(bob, 'suggest', { prefix: codeWord(f).slice(0, 4) })).not.toContain(
          codeWord(f),
        );
      }
      // Fields naming a user are not part of the contract: refused before reaching the daemon.
      for (const [method, body] of [
        ['search', { query: 'harbour', user: 'alice' }],
        ['search', { query: 'harbour', uid: users.uid.alice }],
        ['whoami', { user: 'alice' }],
        ['preview', { id: idOf.get(aliceOnly[0]), uid: users.uid.alice }],
      ] as const) {
        const r = await api(bob, method, body);
        expect(r.status, `${method} ${JSON.stringify(body)}`).toBe(400);
        expect(r.body).toMatchObject({ ok: false, error: { code: 'BAD_REQUEST' } });
      }
      expect((await value<Whoami>(bob, 'whoami', {})).user).toBe('bob');
      expect((await value<{ documents: number }>(bob, 'status', {})).documents).toBe(truth.size);
    });

    it('opens and previews what alice may read (the daemon re-checks, her shell opens)', async () => {
      const mine = path.join(tmp, 'tree/public/qxaliceonly.txt');
      expect(await value(alice, 'openItem', { id: idOf.get(mine), action: 'open' })).toEqual({
        kind: 'file',
        target: mine,
        opened: false,
      });
      const preview = await value<{ text: string }>(alice, 'preview', {
        id: idOf.get(mine),
        query: 'harbour',
      });
      expect(preview.text).toContain('qxaliceonly');
      const bobs = path.join(tmp, 'tree/public/qxbobonly.txt');
      expect(await value(alice, 'preview', { id: idOf.get(bobs) })).toBeNull();
    });

    it('refuses to manage sources, crawls, the log and credentials through the daemon', async () => {
      const before = JSON.stringify(service.listSources());
      const tree = path.join(tmp, 'tree');
      for (const [method, body] of [
        ['addSource', { startAddresses: ['/etc'] }],
        ['updateSource', { id: 1, patch: { rules: [{ action: 'exclude', syntax: 'glob', pattern: '**' }] } }],
        ['removeSource', { id: 1 }],
        ['testRules', { sourceId: 1, target: tree }],
        ['startCrawl', { mode: 'full' }],
        ['stopCrawl', {}],
        ['pause', {}],
        ['log', { limit: 10 }],
        ['setCredential', { id: 'x', secret: { user: 'u', password: 'p' } }],
        ['credentialIds', {}],
      ] as const) {
        for (const shell of [alice, bob]) {
          const r = await api(shell, method, body);
          expect(r.status, method).toBe(403);
          expect(r.body).toMatchObject({ ok: false, error: { code: 'FORBIDDEN' } });
        }
      }
      expect(JSON.stringify(service.listSources())).toBe(before);
      expect(service.status().running).toEqual([]);
      // The source list is the daemon's trimmed view: no rules or settings of the administrator's.
      const listed = await value<{ rules: unknown[] }[]>(alice, 'listSources', {});
      expect(listed).toHaveLength(1);
      expect(listed[0].rules).toEqual([]);
    });

    it("bob cannot serve alice's socket: by flag or environment, trawl serve fails and serves nothing", async () => {
      const aliceSocket = daemon.socketPath(users.uid.alice);
      for (const [args, env] of [
        [['--daemon', aliceSocket], {}],
        [['--daemon', path.dirname(aliceSocket)], {}],
        [[], { TRAWL_DAEMON: aliceSocket }],
      ] as [string[], Record<string, string>][]) {
        const err = await serveAs(
          'bob',
          ['--port', '0', '--data-dir', path.join(tmp, 'bob-data'), ...args],
          env,
        ).then(
          async (s) => {
            await stop(s);
            return null;
          },
          (e: Error & { code?: number; out?: string; err?: string }) => e,
        );
        expect(err, JSON.stringify(args)).not.toBeNull();
        expect(err!.code).toBe(1);
        expect(err!.out).not.toMatch(/token=/);
        expect(err!.err).toMatch(/permission denied|no such socket/);
      }
    });
  },
);
