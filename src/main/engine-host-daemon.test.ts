/**
 * The desktop app through a system-wide `trawl daemon`: which socket the app picks (the rule of
 * `trawl search`), and the engine host with the engine process (joined by an in-memory channel, as
 * Electron's utilityProcess joins them) answering from a real daemon on its real Unix socket —
 * without ever opening a local index.
 */
import { EventEmitter } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { daemonAppInfo } from '../daemon/daemon-binding.js';
import { TrawlDaemon } from '../daemon/daemon.js';
import { createEngine } from './core/engine.js';
import { posixSecurity } from './core/security/platform-security.js';
import type { TrawlService } from './core/service.js';
import type { AppInfo } from '../shared/contract.js';
import { createLocalClient } from '../shared/rpc.js';
import { createEngineHost, desktopDaemonSocket, type EngineChild } from './engine-host.js';
import { runEngine, type EnginePort } from './engine-process.js';
import type { FromEngine, ToEngine } from './engine-protocol.js';

const INFO: AppInfo = {
  transport: 'electron',
  version: 'test',
  platform: process.platform,
  canPickFolder: true,
  canOpenFiles: true,
};

let tmp: string;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-host-dmn-'));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('which daemon the desktop app searches through', () => {
  it('takes --daemon from the command line, then TRAWL_DAEMON, then the system socket when there is no own index', () => {
    const rt = path.join(tmp, 'rt');
    const sock = path.join(rt, 'users/1001/trawl.sock');
    const dataDir = path.join(tmp, 'own-data');
    fs.mkdirSync(path.dirname(sock), { recursive: true });
    const pick = (argv: string[], env: NodeJS.ProcessEnv = {}, uid = 1001) =>
      desktopDaemonSocket({ argv: ['electron', '.', ...argv], env, dataDir, uid, defaultRuntimeDir: rt });

    expect(pick(['--daemon', rt])).toBe(sock);
    expect(pick([`--daemon=${rt}`, '--hidden'])).toBe(sock);
    expect(pick(['--daemon', '/x/y.sock'], { TRAWL_DAEMON: rt })).toBe('/x/y.sock');
    expect(pick([], { TRAWL_DAEMON: rt })).toBe(sock);
    expect(pick([], { TRAWL_DAEMON: 'off' })).toBeNull();
    expect(pick([])).toBeNull(); // no socket yet
    fs.writeFileSync(sock, '');
    expect(pick([])).toBe(sock);
    expect(pick([], {}, 1002)).toBeNull(); // another uid's socket is never picked
    fs.mkdirSync(dataDir);
    fs.writeFileSync(path.join(dataDir, 'index.sqlite'), '');
    expect(pick([])).toBeNull(); // the user's own index wins over the default socket
    expect(pick(['--daemon', rt])).toBe(sock); // unless the daemon is named
  });
});

/** An engine "process" in this process: messages are structured-cloned both ways. */
function inProcessChild(open: Parameters<typeof runEngine>[1]): EngineChild & { inits: ToEngine[] } {
  const toHost = new EventEmitter();
  const toEngine = new EventEmitter();
  const inits: ToEngine[] = [];
  const port: EnginePort = {
    postMessage: (m: FromEngine) => setImmediate(() => toHost.emit('message', structuredClone(m))),
    on: (_e, listener) => void toEngine.on('message', listener),
  };
  void runEngine(port, open);
  return {
    inits,
    postMessage: (m: ToEngine) => {
      if (m.type === 'init') inits.push(m);
      setImmediate(() => toEngine.emit('message', { data: structuredClone(m) }));
    },
    on: (event: 'message' | 'exit', listener: (arg: never) => void) =>
      toHost.on(event, listener as (...args: unknown[]) => void),
    kill: () => true,
  } as EngineChild & { inits: ToEngine[] };
}

describe.skipIf(process.platform === 'win32')('the engine host answering from a trawl daemon', () => {
  const me = process.getuid!();
  let service: TrawlService;
  let daemon: TrawlDaemon;
  let tree: string;

  beforeAll(async () => {
    tree = path.join(tmp, 'tree');
    fs.mkdirSync(tree);
    fs.writeFileSync(path.join(tree, 'lantern.txt'), 'lighthouse lantern lens');
    const security = posixSecurity();
    service = await createEngine({ dataDir: path.join(tmp, 'daemon-data'), security, filterWorkers: 1 });
    service.addSource({ startAddresses: [tree] });
    await service.crawl({ mode: 'full' });
    daemon = await TrawlDaemon.start({
      service,
      userFromUid: security.userFromUid,
      runtimeDir: path.join(tmp, 'run'),
      accounts: [me],
      requestPollMs: 0,
    });
  });
  afterAll(async () => {
    await daemon?.close();
    await service?.close();
  });

  it('searches through the daemon, refuses source management, and never opens the local index', async () => {
    const socket = desktopDaemonSocket({ argv: ['--daemon', path.join(tmp, 'run')], env: {}, dataDir: tmp });
    expect(socket).toBe(daemon.socketPath(me));
    const opened: string[] = [];
    const child = inProcessChild(async ({ dataDir }) => {
      opened.push(dataDir);
      throw new Error('the local index must not be opened');
    });
    const info = daemonAppInfo(INFO, socket!);
    const host = createEngineHost({
      fork: () => child,
      dataDir: path.join(tmp, 'own-index'),
      daemon: socket,
      info,
      vault: { get: async () => null, ids: async () => ['stored'] },
      onEvent: () => {},
    });
    const stored: string[] = [];
    const api = createLocalClient(
      host.handlers({
        appInfo: () => info,
        setCredential: async ({ id }) => {
          stored.push(id);
          return null;
        },
        credentialIds: async () => ['stored'],
        pickFolder: async () => '/picked',
      }),
      () => () => {},
    );
    try {
      expect(child.inits).toEqual([
        { type: 'init', dataDir: path.join(tmp, 'own-index'), info, daemon: socket },
      ]);
      const res = await api.search({ query: 'lantern' });
      expect(res.hits.map((h) => h.path)).toEqual([path.join(tree, 'lantern.txt')]);
      expect((await api.whoami()).id).toBe(`uid:${me}`);
      expect(await api.appInfo()).toMatchObject({ transport: 'electron', daemon: { socket } });
      expect(await api.openItem({ id: res.hits[0].id, action: 'open' })).toEqual({
        kind: 'file',
        target: path.join(tree, 'lantern.txt'),
        opened: false,
      });
      for (const call of [
        () => api.addSource({ startAddresses: [tree] }),
        () => api.startCrawl({ mode: 'full' }),
        () => api.log({}),
        () => api.setCredential({ id: 'c', secret: { user: 'u', password: 'p' } }),
        () => api.credentialIds(),
        () => api.pickFolder(),
      ])
        await expect(call()).rejects.toMatchObject({ code: 'FORBIDDEN' });
      expect(stored).toEqual([]);
      expect(opened).toEqual([]);
      expect(service.listSources()).toHaveLength(1);
    } finally {
      await host.close(1000);
    }
  });

  it('with no daemon the host keeps serving credentials and folder picking itself', async () => {
    const child = inProcessChild(async () => {
      throw new Error('no engine needed here');
    });
    const host = createEngineHost({
      fork: () => child,
      dataDir: path.join(tmp, 'unused'),
      info: INFO,
      vault: { get: async () => null, ids: async () => [] },
      onEvent: () => {},
      onProblem: () => {},
    });
    const api = createLocalClient(
      host.handlers({ credentialIds: async () => ['stored'], pickFolder: async () => '/picked' }),
      () => () => {},
    );
    try {
      expect(child.inits).toEqual([{ type: 'init', dataDir: path.join(tmp, 'unused'), info: INFO }]);
      expect(await api.credentialIds()).toEqual(['stored']);
      expect(await api.pickFolder()).toBe('/picked');
    } finally {
      await host.close(1000);
    }
  });
});
