/**
 * The engine host and the engine process, joined by an in-memory channel (the same messages Electron's
 * utilityProcess carries), over a real TrawlService on real files; plus the esbuild bundle of the
 * engine process run as a real child process.
 */
import { fork } from 'node:child_process';
import { EventEmitter } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppInfo, EventName } from '../shared/contract.js';
import { dispatch } from '../shared/rpc.js';
import { createEngineHost, type EngineChild } from './engine-host.js';
import { runEngine, type EnginePort } from './engine-process.js';
import type { FromEngine, ToEngine } from './engine-protocol.js';

const INFO: AppInfo = {
  transport: 'electron',
  version: 'test',
  platform: process.platform,
  canPickFolder: true,
  canOpenFiles: true,
};

/** An engine "process" running in this process: messages are structured-cloned both ways. */
function inProcessChild(
  open?: Parameters<typeof runEngine>[1],
): EngineChild & { engineDone: Promise<void>; crash(code: number): void } {
  const toHost = new EventEmitter();
  const toEngine = new EventEmitter();
  const port: EnginePort = {
    postMessage: (m: FromEngine) => setImmediate(() => toHost.emit('message', structuredClone(m))),
    on: (_e, listener) => void toEngine.on('message', listener),
  };
  const engineDone = runEngine(port, open);
  return {
    postMessage: (m: ToEngine) => setImmediate(() => toEngine.emit('message', { data: structuredClone(m) })),
    on: (event: 'message' | 'exit', listener: (arg: never) => void) =>
      toHost.on(event, listener as (...args: unknown[]) => void),
    kill: () => true,
    engineDone,
    crash: (code) => toHost.emit('exit', code),
  } as EngineChild & { engineDone: Promise<void>; crash(code: number): void };
}

let tmp: string;
let corpus: string;

beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-engine-host-'));
  corpus = path.join(tmp, 'corpus');
  fs.mkdirSync(corpus);
  fs.writeFileSync(path.join(corpus, 'tides.txt'), 'Tide tables for the northern harbour.\n');
  fs.writeFileSync(path.join(corpus, 'nets.md'), '# Nets\nMending nets before the harbour season.\n');
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('engine host ↔ engine process', () => {
  it('forwards calls, relays crawl events, answers credential lookups from the vault and shuts down cleanly', async () => {
    const events: [EventName, unknown][] = [];
    const child = inProcessChild();
    const host = createEngineHost({
      fork: () => child,
      dataDir: path.join(tmp, 'data-1'),
      info: INFO,
      vault: {
        get: async (id) => (id === 'nas' ? { user: 'alice', password: 'pw' } : null),
        ids: async () => ['nas'],
      },
      onEvent: (event, payload) => events.push([event, payload]),
    });
    const handlers = host.handlers({ appInfo: () => INFO });

    expect(await dispatch(handlers, 'listSources', {})).toEqual({ ok: true, value: [] });
    const added = await dispatch(handlers, 'addSource', { startAddresses: [corpus], name: 'Corpus' });
    expect(added).toMatchObject({ ok: true, value: { name: 'Corpus', kind: 'file' } });
    const sourceId = (added as { value: { id: number } }).value.id;

    const finished = new Promise<void>((resolve) => {
      const timer = setInterval(() => {
        if (events.some(([e]) => e === 'crawl-finished')) {
          clearInterval(timer);
          resolve();
        }
      }, 20);
    });
    expect(await dispatch(handlers, 'startCrawl', { sourceId, mode: 'full' })).toEqual({
      ok: true,
      value: null,
    });
    await finished;
    expect(events.map(([e]) => e)).toContain('sources-changed');
    expect(events.find(([e]) => e === 'crawl-finished')?.[1]).toMatchObject({
      sourceId,
      status: 'done',
      counts: { added: 2 },
    });

    const found = await dispatch(handlers, 'search', { query: 'harbour' });
    expect(found).toMatchObject({ ok: true, value: { total: 2 } });
    expect(await dispatch(handlers, 'search', { query: 'harbour )' })).toMatchObject({
      ok: false,
      error: { code: 'QUERY_SYNTAX' },
    });
    expect(await dispatch(handlers, 'appInfo', {})).toEqual({ ok: true, value: INFO });

    expect(await host.call('credentialIds', {})).toEqual({ ok: true, value: ['nas'] });

    await host.close();
    await child.engineDone;
    expect(await host.call('listSources', {})).toMatchObject({
      ok: false,
      error: { code: 'ENGINE_UNAVAILABLE' },
    });
  });

  it('fails pending calls when the engine dies, then restarts it', async () => {
    const problems: string[] = [];
    let forks = 0;
    let current: ReturnType<typeof inProcessChild> | null = null;
    const dataDir = path.join(tmp, 'data-2');
    const host = createEngineHost({
      fork: () => {
        forks++;
        current = inProcessChild(
          forks === 1
            ? async () => {
                await new Promise(() => {});
                throw new Error('unreachable');
              }
            : undefined,
        );
        return current;
      },
      dataDir,
      info: INFO,
      vault: { get: async () => null, ids: async () => [] },
      onEvent: () => {},
      onProblem: (m) => problems.push(m),
      restartDelayMs: 10,
    });
    const stuck = host.call('listSources', {});
    await new Promise((r) => setTimeout(r, 50));
    current!.crash(9);
    expect(await stuck).toMatchObject({ ok: false, error: { code: 'ENGINE_UNAVAILABLE' } });
    expect(problems[0]).toMatch(/exit code 9/);
    await new Promise((r) => setTimeout(r, 50));
    expect(forks).toBe(2);
    expect(await host.call('listSources', {})).toEqual({ ok: true, value: [] });
    await host.close();
  });

  it('reports an engine that cannot open its data directory', async () => {
    const problems: string[] = [];
    const host = createEngineHost({
      fork: () => inProcessChild(async () => Promise.reject(new Error('index is locked'))),
      dataDir: path.join(tmp, 'data-3'),
      info: INFO,
      vault: { get: async () => null, ids: async () => [] },
      onEvent: () => {},
      onProblem: (m) => problems.push(m),
    });
    expect(await host.call('status', {})).toMatchObject({ ok: false, error: { code: 'ENGINE_UNAVAILABLE' } });
    expect(problems).toEqual(['The search engine could not start: index is locked']);
    await host.close(100);
  });
});

describe('the engine-process bundle', () => {
  it('starts as a separate process from its esbuild bundle, indexes and answers', async () => {
    const outdir = path.resolve('out', `test-engine-${process.pid}`);
    const { buildCli } = (await import(pathToFileURL(path.resolve('scripts/build-cli.mjs')).href)) as {
      buildCli(o: { outdir: string; extraEntries: string[] }): Promise<string>;
    };
    await buildCli({ outdir, extraEntries: [path.resolve('src/main/engine-process.ts')] });
    const shim = path.join(outdir, 'parent-port-shim.mjs');
    fs.writeFileSync(
      shim,
      `process.parentPort = { postMessage: (m) => process.send(m), on: (_e, cb) => process.on('message', (data) => cb({ data })) };\nawait import(${JSON.stringify(pathToFileURL(path.join(outdir, 'engine-process.js')).href)});\n`,
    );
    const proc = fork(shim, [], { stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
    let stderr = '';
    proc.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const child: EngineChild = {
      postMessage: (m) => void proc.send(m),
      on: (event: 'message' | 'exit', listener: (arg: never) => void) =>
        proc.on(event, listener as (...args: unknown[]) => void),
      kill: () => proc.kill(),
    } as EngineChild;
    const events: EventName[] = [];
    const host = createEngineHost({
      fork: () => child,
      dataDir: path.join(tmp, 'data-4'),
      info: INFO,
      vault: { get: async () => null, ids: async () => [] },
      onEvent: (e) => events.push(e),
    });
    try {
      const added = await host.call('addSource', { startAddresses: [corpus] });
      expect(added.ok, stderr).toBe(true);
      const done = new Promise<void>((resolve) => {
        const t = setInterval(() => events.includes('crawl-finished') && (clearInterval(t), resolve()), 20);
      });
      await host.call('startCrawl', { mode: 'full' });
      await done;
      expect(await host.call('search', { query: 'nets' })).toMatchObject({ ok: true, value: { total: 1 } });
    } finally {
      await host.close();
      fs.rmSync(outdir, { recursive: true, force: true });
    }
    await new Promise<void>((resolve) =>
      proc.exitCode !== null || proc.signalCode !== null ? resolve() : proc.once('exit', () => resolve()),
    );
    expect(proc.exitCode ?? proc.signalCode).not.toBe(null);
  });
});
