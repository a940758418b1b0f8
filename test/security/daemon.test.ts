/**
 * The daemon's plumbing with the current user only: runtime-folder layout and modes, the wire
 * protocol (ids, bad lines, long lines, extra fields), where clients look for a socket.
 */
import { startBackground, type Background } from '../../src/main/core/live/background.js';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectDaemon, DaemonClient, resolveDaemonSocket } from '../../src/daemon/daemon-client.js';
import { TrawlDaemon } from '../../src/daemon/daemon.js';
import { MAX_LINE } from '../../src/daemon/protocol.js';
import {
  loginAccounts,
  loginUidRange,
  parsePasswd,
  prepareRuntimeDir,
  userSocketPath,
} from '../../src/daemon/user-sockets.js';
import { createEngine } from '../../src/main/core/engine.js';
import type { SearchResponse } from '../../src/main/core/api-types.js';
import { posixSecurity } from '../../src/main/core/security/platform-security.js';
import type { TrawlService } from '../../src/main/core/service.js';

const PASSWD = `root:x:0:0:root:/root:/bin/bash
daemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin
alice:x:1001:1001::/home/alice:/bin/bash
nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin
svc:x:999:999::/:/usr/sbin/nologin
broken line
bob:x:1002:1002::/home/bob:/bin/sh
`;

describe('accounts that get a socket', () => {
  it('parses passwd and keeps root plus the login uid range', () => {
    expect(parsePasswd(PASSWD)).toHaveLength(6);
    expect(loginUidRange('UID_MIN\t\t\t 1000\nUID_MAX 60000\n')).toEqual([1000, 60000]);
    expect(loginUidRange('')).toEqual([1000, 60000]);
    expect(loginAccounts(PASSWD, [1000, 60000]).map((a) => a.name)).toEqual(['root', 'alice', 'bob']);
  });
});

describe('where trawl looks for a daemon', () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-loc-'));
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
  const dataDir = path.join(tmp, 'data');

  it('uses --daemon, then TRAWL_DAEMON, then the system socket when there is no local index', () => {
    fs.mkdirSync(path.join(tmp, 'rt/users/1001'), { recursive: true });
    expect(resolveDaemonSocket({ flag: path.join(tmp, 'rt'), env: {}, dataDir, uid: 1001 })).toBe(
      path.join(tmp, 'rt/users/1001/trawl.sock'),
    );
    expect(
      resolveDaemonSocket({ flag: '/x/y.sock', env: { TRAWL_DAEMON: '/other' }, dataDir, uid: 1001 }),
    ).toBe('/x/y.sock');
    expect(resolveDaemonSocket({ env: { TRAWL_DAEMON: '/x/y.sock' }, dataDir, uid: 1001 })).toBe('/x/y.sock');
    expect(
      resolveDaemonSocket({
        env: { TRAWL_DAEMON: 'off' },
        dataDir,
        uid: 1001,
        defaultRuntimeDir: path.join(tmp, 'rt'),
      }),
    ).toBeNull();
    fs.writeFileSync(path.join(tmp, 'rt/users/1001/trawl.sock'), '');
    expect(
      resolveDaemonSocket({ env: {}, dataDir, uid: 1001, defaultRuntimeDir: path.join(tmp, 'rt') }),
    ).toBe(path.join(tmp, 'rt/users/1001/trawl.sock'));
    expect(
      resolveDaemonSocket({ env: {}, dataDir, uid: 1002, defaultRuntimeDir: path.join(tmp, 'rt') }),
    ).toBeNull();
    fs.mkdirSync(dataDir);
    fs.writeFileSync(path.join(dataDir, 'index.sqlite'), '');
    expect(
      resolveDaemonSocket({ env: {}, dataDir, uid: 1001, defaultRuntimeDir: path.join(tmp, 'rt') }),
    ).toBeNull();
  });
});

describe.skipIf(process.platform === 'win32')('the daemon protocol (as the current user)', () => {
  const me = process.getuid!();
  let tmp: string;
  let service: TrawlService;
  let daemon: TrawlDaemon;
  let runtimeDir: string;
  let background: Background;

  beforeAll(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-dmn-'));
    fs.mkdirSync(path.join(tmp, 'tree'));
    fs.writeFileSync(path.join(tmp, 'tree/a.txt'), 'walrus one');
    fs.writeFileSync(path.join(tmp, 'tree/b.txt'), 'walrus two');
    const security = posixSecurity();
    service = await createEngine({ dataDir: path.join(tmp, 'data'), security, filterWorkers: 1 });
    service.addSource({ startAddresses: [path.join(tmp, 'tree')] });
    await service.crawl({ mode: 'full' });
    runtimeDir = path.join(tmp, 'run');
    background = await startBackground(service);
    daemon = await TrawlDaemon.start({
      service,
      userFromUid: security.userFromUid,
      runtimeDir,
      accounts: [me],
      requestPollMs: 0,
      liveStatus: () => background.status(),
    });
  });

  afterAll(async () => {
    await daemon?.close();
    await background?.stop();
    await service?.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('lays out the runtime folder with the documented modes', () => {
    const mode = (p: string): number => fs.statSync(p).mode & 0o7777;
    expect(mode(runtimeDir)).toBe(0o755);
    expect(mode(path.join(runtimeDir, 'users'))).toBe(0o711);
    expect(mode(path.join(runtimeDir, 'requests'))).toBe(0o1733);
    expect(mode(path.dirname(userSocketPath(runtimeDir, me)))).toBe(0o700);
    expect(fs.statSync(userSocketPath(runtimeDir, me)).isSocket()).toBe(true);
    expect(mode(userSocketPath(runtimeDir, me))).toBe(0o600);
    expect(daemon.users()).toEqual([me]);
  });

  it('answers overlapping requests by id, and whoami is the socket owner', async () => {
    const client = await connectDaemon(daemon.socketPath(me));
    try {
      const [a, b, who] = await Promise.all([
        client.request('search', { query: 'one' }),
        client.request('search', { query: 'walrus' }),
        client.request('whoami', {}),
      ]);
      expect(a.total).toBe(1);
      expect((b as SearchResponse).total).toBe(2);
      expect(who.id).toBe(`uid:${me}`);
      const bad = await client.call('search', { query: 'walrus', user: 'root' });
      expect(bad.ok).toBe(false);
      const syntax = await client.call('search', { query: '"unclosed' });
      expect(syntax.ok || syntax.error.code === 'QUERY_SYNTAX').toBe(true);
    } finally {
      client.close();
    }
  });

  it("gives root the live runner's state (watches, memory) with the status, and others only their counts", async () => {
    const client = await connectDaemon(daemon.socketPath(me));
    try {
      await background.settle();
      const st = await client.request('status', {});
      if (me === 0) {
        expect(st.live?.running).toBe(true);
        expect(st.live?.sources[0]).toMatchObject({ state: 'watching' });
        expect(st.live?.watches).toBeGreaterThan(0);
        expect(st.live?.memory?.rssBytes).toBeGreaterThan(0);
      } else {
        expect(st.live).toBeUndefined();
      }
    } finally {
      client.close();
    }
  });

  it('answers a line that is not a request with an error, and closes on an over-long line', async () => {
    const sock = net.createConnection(daemon.socketPath(me));
    await new Promise((r) => sock.once('connect', r));
    let got = '';
    sock.setEncoding('utf8').on('data', (d: string) => (got += d));
    sock.write('{"method": "search"\n[1,2]\n');
    await new Promise((r) => setTimeout(r, 200));
    const answers = got
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { ok: boolean; error: { code: string } });
    expect(answers.map((a) => a.error.code)).toEqual(['BAD_REQUEST', 'BAD_REQUEST']);
    const closed = new Promise((r) => sock.once('close', r));
    sock.write('x'.repeat(MAX_LINE + 10));
    await closed;
    expect(got).toMatch(/longer than/);
  });

  it('refuses a runtime folder someone else planted', () => {
    const planted = path.join(tmp, 'planted');
    fs.mkdirSync(planted);
    if (me === 0) {
      fs.chownSync(planted, 65534, 65534);
      expect(() => prepareRuntimeDir(planted)).toThrow(/belongs to uid 65534/);
    }
    fs.rmSync(planted, { recursive: true });
    fs.symlinkSync(tmp, planted);
    expect(() => prepareRuntimeDir(planted)).toThrow(/not a folder/);
  });

  it('reports a socket that does not answer clearly', async () => {
    await expect(DaemonClient.connect(path.join(tmp, 'none.sock'))).rejects.toThrow(/no such socket/);
  });
});

describe.skipIf(process.platform === 'win32')('`trawl daemon` as a process', () => {
  it('secures its data folder, crawls, answers on the socket and stops on SIGTERM', async () => {
    const repo = path.resolve(import.meta.dirname, '../..');
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-dproc-'));
    const env = { ...process.env, TRAWL_USE_TSX: '1', TRAWL_DAEMON: 'off' };
    try {
      fs.mkdirSync(path.join(tmp, 'tree'));
      fs.writeFileSync(path.join(tmp, 'tree/n.txt'), 'narwhal tusk');
      const dataDir = path.join(tmp, 'data');
      const runtimeDir = path.join(tmp, 'run');
      const add = spawnSync(
        process.execPath,
        [path.join(repo, 'bin/trawl.mjs'), 'source', 'add', path.join(tmp, 'tree'), '--data-dir', dataDir],
        {
          env,
          encoding: 'utf8',
        },
      );
      expect(add.status, add.stderr).toBe(0);
      fs.chmodSync(dataDir, 0o755);
      const me = process.getuid!();
      const child = spawn(
        process.execPath,
        [
          path.join(repo, 'bin/trawl.mjs'),
          'daemon',
          '--data-dir',
          dataDir,
          '--runtime-dir',
          runtimeDir,
          '--users',
          String(me),
          '--crawl-interval',
          '0',
        ],
        { env, stdio: ['ignore', 'ignore', 'pipe'] },
      );
      let log = '';
      child.stderr.setEncoding('utf8').on('data', (d: string) => (log += d));
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      try {
        const sock = userSocketPath(runtimeDir, me);
        let total = 0;
        for (let i = 0; i < 200 && total === 0; i++) {
          await new Promise((r) => setTimeout(r, 100));
          if (!fs.existsSync(sock)) continue;
          const client = await DaemonClient.connect(sock);
          try {
            total = (await client.request('search', { query: 'narwhal' })).total;
          } finally {
            client.close();
          }
        }
        expect(total, log).toBe(1);
        expect(fs.statSync(dataDir).mode & 0o777).toBe(0o700);
        for (const f of fs.readdirSync(dataDir))
          expect(fs.statSync(path.join(dataDir, f)).mode & 0o077, f).toBe(0);
      } finally {
        child.kill('SIGTERM');
      }
      expect(await exited).toBe(0);
      expect(log).toMatch(/stopping/);
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  }, 60_000);
});
