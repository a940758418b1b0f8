/**
 * The contract over a real `trawl daemon` (in this process, answering the current OS user on its
 * real Unix socket) through `bindDaemon`: forwarded searching methods, refused administration,
 * open re-checked by the daemon then opened locally, reconnecting after a daemon restart, and a
 * daemon that stops answering.
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine } from '../main/core/engine.js';
import { posixSecurity } from '../main/core/security/platform-security.js';
import type { TrawlService } from '../main/core/service.js';
import type { AppInfo, MethodName, SearchResponse } from '../shared/contract.js';
import { dispatch, type Result } from '../shared/rpc.js';
import { bindDaemon, DaemonConnection } from './daemon-binding.js';
import { TrawlDaemon } from './daemon.js';
import { ADMIN_METHODS, USER_METHODS } from './protocol.js';

const INFO: AppInfo = {
  transport: 'web',
  version: 'test',
  platform: process.platform,
  canPickFolder: false,
  canOpenFiles: true,
};

describe.skipIf(process.platform === 'win32')('the contract served by a trawl daemon', () => {
  const me = process.getuid!();
  const security = posixSecurity();
  let tmp: string;
  let tree: string;
  let runtimeDir: string;
  let service: TrawlService;
  let daemon: TrawlDaemon;
  let connection: DaemonConnection;
  const opened: { kind: string; target: string; action: string }[] = [];
  const call = (method: MethodName, request: unknown): Promise<Result<unknown>> =>
    dispatch(
      bindDaemon(connection, {
        info: INFO,
        openTarget: async (kind, target, action) => {
          opened.push({ kind, target, action });
          return true;
        },
      }).handlers,
      method,
      request,
    );
  const startDaemon = (): Promise<TrawlDaemon> =>
    TrawlDaemon.start({
      service,
      userFromUid: security.userFromUid,
      runtimeDir,
      accounts: [me],
      requestPollMs: 0,
    });

  beforeAll(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-dbind-'));
    tree = path.join(tmp, 'tree');
    fs.mkdirSync(tree);
    fs.writeFileSync(path.join(tree, 'anchor.txt'), 'kelp anchor chain');
    fs.writeFileSync(path.join(tree, 'buoy.txt'), 'kelp buoy light');
    service = await createEngine({ dataDir: path.join(tmp, 'data'), security, filterWorkers: 1 });
    service.addSource({ startAddresses: [tree] });
    await service.crawl({ mode: 'full' });
    runtimeDir = path.join(tmp, 'run');
    daemon = await startDaemon();
    connection = new DaemonConnection(daemon.socketPath(me));
  });

  afterAll(async () => {
    connection?.close();
    await daemon?.close();
    await service?.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('forwards search, preview, suggest, whoami and status, and says where results come from', async () => {
    const search = await call('search', { query: 'kelp', limit: 10 });
    expect(search.ok).toBe(true);
    const res = (search as { value: SearchResponse }).value;
    expect(res.hits.map((h) => path.basename(h.path)).sort()).toEqual(['anchor.txt', 'buoy.txt']);
    const preview = await call('preview', { id: res.hits[0].id, query: 'kelp' });
    expect((preview as { value: { text: string } }).value.text).toContain('kelp');
    expect(await call('suggest', { prefix: 'buo' })).toEqual({ ok: true, value: ['buoy'] });
    const who = await call('whoami', {});
    expect(who).toMatchObject({ ok: true, value: { id: `uid:${me}`, user: os.userInfo().username } });
    expect((who as { value: { display: string } }).value.display).toMatch(/^Searching as /);
    expect(await call('status', {})).toMatchObject({ ok: true, value: { documents: 2 } });
    expect(await call('appInfo', {})).toEqual({
      ok: true,
      value: { ...INFO, daemon: { socket: daemon.socketPath(me) } },
    });
  });

  it('lists the sources of the trimmed status, without their stats', async () => {
    const list = await call('listSources', {});
    expect(list.ok).toBe(true);
    const sources = (list as { value: Record<string, unknown>[] }).value;
    expect(sources).toHaveLength(1);
    expect(sources[0]).toMatchObject({ kind: 'file', displayAddresses: [tree] });
    expect(sources[0]).not.toHaveProperty('stats');
  });

  it('refuses to manage sources, crawls, the log and credentials, and never answers them locally', async () => {
    const requests: [MethodName, unknown][] = [
      ['addSource', { startAddresses: [tree] }],
      ['updateSource', { id: 1, patch: { name: 'x' } }],
      ['removeSource', { id: 1 }],
      ['testRules', { sourceId: 1, target: path.join(tree, 'anchor.txt') }],
      ['startCrawl', { mode: 'full' }],
      ['stopCrawl', {}],
      ['pause', {}],
      ['resume', {}],
      ['log', {}],
      ['setCredential', { id: 'c', secret: { user: 'u', password: 'p' } }],
      ['credentialIds', {}],
      ['pickFolder', {}],
    ];
    for (const [method, request] of requests) {
      const r = await call(method, request);
      expect(r, method).toMatchObject({ ok: false, error: { code: 'FORBIDDEN' } });
      expect((r as { error: { message: string } }).error.message).toMatch(
        /administrator of the trawl daemon/,
      );
    }
    expect(service.listSources()).toHaveLength(1);
    expect(service.status().running).toEqual([]);
    expect(await call('liveStatus', {})).toEqual({ ok: true, value: null });
    expect(await call('desktopSettings', {})).toMatchObject({ ok: false, error: { code: 'UNSUPPORTED' } });
    // The forwarded set is exactly the daemon's user methods; admin methods are never forwarded.
    expect([...USER_METHODS].sort()).toEqual([
      'openItem',
      'preview',
      'search',
      'status',
      'suggest',
      'whoami',
    ]);
    expect(ADMIN_METHODS).toEqual(['startCrawl']);
  });

  it('rejects request fields that would name another user before they reach the daemon', async () => {
    for (const request of [
      { query: 'kelp', uid: 0 },
      { query: 'kelp', user: 'root' },
    ])
      expect(await call('search', request)).toMatchObject({ ok: false, error: { code: 'BAD_REQUEST' } });
    expect(await call('whoami', { user: 'root' })).toMatchObject({
      ok: false,
      error: { code: 'BAD_REQUEST' },
    });
  });

  it('opens what the daemon resolved (re-checked there) with the local opener; an unknown id opens nothing', async () => {
    const hit = ((await call('search', { query: 'anchor' })) as { value: SearchResponse }).value.hits[0];
    opened.length = 0;
    expect(await call('openItem', { id: hit.id, action: 'reveal' })).toEqual({
      ok: true,
      value: { kind: 'file', target: path.join(tree, 'anchor.txt'), opened: true },
    });
    expect(opened).toEqual([{ kind: 'file', target: path.join(tree, 'anchor.txt'), action: 'reveal' }]);
    expect(await call('openItem', { id: 999_999, action: 'open' })).toEqual({ ok: true, value: null });
    expect(opened).toHaveLength(1);
  });

  it('answers ENGINE_UNAVAILABLE naming the socket while the daemon is down, and reconnects when it is back', async () => {
    expect((await call('search', { query: 'kelp' })).ok).toBe(true);
    await daemon.close();
    const down = await call('search', { query: 'kelp' });
    expect(down).toMatchObject({ ok: false, error: { code: 'ENGINE_UNAVAILABLE' } });
    expect((down as { error: { message: string } }).error.message).toContain(daemon.socketPath(me));
    daemon = await startDaemon();
    expect(await call('search', { query: 'kelp' })).toMatchObject({ ok: true, value: { total: 2 } });
  });

  it('gives up on a daemon that accepts but never answers, then reconnects', async () => {
    const sock = path.join(tmp, 'silent.sock');
    const held: net.Socket[] = [];
    const silent = net.createServer((s) => held.push(s));
    await new Promise<void>((resolve) => silent.listen(sock, resolve));
    const conn = new DaemonConnection(sock, { timeoutMs: 300 });
    try {
      const r = await conn.call('whoami', {});
      expect(r).toMatchObject({ ok: false, error: { code: 'ENGINE_UNAVAILABLE' } });
      expect((r as { error: { message: string } }).error.message).toMatch(
        /not answering: no answer within 300 ms/,
      );
      await conn.call('whoami', {});
      expect(held).toHaveLength(2);
    } finally {
      conn.close();
      held.forEach((s) => s.destroy());
      await new Promise((resolve) => silent.close(resolve));
    }
    expect(await conn.call('whoami', {})).toMatchObject({
      ok: false,
      error: { code: 'ENGINE_UNAVAILABLE', message: 'The connection to the trawl daemon is closed' },
    });
  });

  it('reports an unreachable socket with its reason', async () => {
    const conn = new DaemonConnection(path.join(tmp, 'nowhere', 'users', '4242', 'trawl.sock'));
    const r = await conn.call('search', { query: 'kelp' });
    expect(r).toMatchObject({ ok: false, error: { code: 'ENGINE_UNAVAILABLE' } });
    expect((r as { error: { message: string } }).error.message).toMatch(
      /cannot reach trawl daemon at .*4242.*no such socket \(is trawl daemon running\?\)/,
    );
    conn.close();
  });
});
