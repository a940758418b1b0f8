import { describe, expect, it } from 'vitest';
import { classifyAddress } from './addresses.js';
import { contract, methodNames } from './contract.js';
import { EventHub } from './event-hub.js';
import { throttleEvents } from './progress-throttle.js';
import { createClient, dispatch, isResult, TrawlError, type Handlers } from './rpc.js';

/** Handlers that answer every method with its name, recording the validated request. */
function echoHandlers(seen: { method: string; request: unknown }[]): Handlers {
  return Object.fromEntries(
    methodNames.map((m) => [
      m,
      (request: unknown) => {
        seen.push({ method: m, request });
        return m === 'removeSource' ? undefined : { method: m };
      },
    ]),
  ) as unknown as Handlers;
}

describe('dispatch', () => {
  it('rejects names that are not contract methods, including prototype keys', async () => {
    const seen: { method: string; request: unknown }[] = [];
    for (const name of ['nope', 'toString', '__proto__', 'constructor', 42, null]) {
      const r = await dispatch(echoHandlers(seen), name, {});
      expect(r).toMatchObject({ ok: false, error: { code: 'UNKNOWN_METHOD' } });
    }
    expect(seen).toEqual([]);
  });

  it('rejects invalid payloads before the handler runs', async () => {
    const seen: { method: string; request: unknown }[] = [];
    const bad: [string, unknown][] = [
      ['search', { query: 5 }],
      ['search', { query: 'x', limit: -1 }],
      ['search', { query: 'x', extra: true }],
      ['search', 'query'],
      ['preview', { id: 1.5 }],
      ['removeSource', { id: '1' }],
      ['addSource', { startAddresses: [] }],
      ['addSource', { startAddresses: ['relative/path'] }],
      ['addSource', { kind: 'http', startAddresses: ['/home/x'] }],
      ['addSource', { startAddresses: ['/x'], rules: [{ action: 'drop', syntax: 'glob', pattern: '*' }] }],
      ['listSources', { sneaky: 1 }],
      ['setCredential', { id: 'a', secret: { user: '', password: 'p' } }],
    ];
    for (const [method, payload] of bad) {
      const r = await dispatch(echoHandlers(seen), method, payload);
      expect(r.ok, `${method} ${JSON.stringify(payload)}`).toBe(false);
      if (!r.ok) expect(r.error.code).toBe('BAD_REQUEST');
    }
    expect(seen).toEqual([]);
  });

  it('passes the validated request and wraps undefined as null', async () => {
    const seen: { method: string; request: unknown }[] = [];
    const ok = await dispatch(echoHandlers(seen), 'search', { query: '  hello ', sort: 'date' });
    expect(ok).toEqual({ ok: true, value: { method: 'search' } });
    expect(seen).toEqual([{ method: 'search', request: { query: '  hello ', sort: 'date' } }]);
    expect(await dispatch(echoHandlers(seen), 'removeSource', { id: 3 })).toEqual({ ok: true, value: null });
    expect(await dispatch(echoHandlers(seen), 'listSources', undefined)).toMatchObject({ ok: true });
  });

  it('maps thrown errors to codes and never rethrows', async () => {
    const handlers = echoHandlers([]);
    const querySyntax = Object.assign(new Error('Unbalanced quote'), { name: 'QuerySyntaxError' });
    handlers.search = () => {
      throw querySyntax;
    };
    handlers.status = () => {
      throw new TrawlError('ENGINE_UNAVAILABLE', 'engine restarting');
    };
    handlers.whoami = () => Promise.reject(new Error('boom'));
    expect(await dispatch(handlers, 'search', { query: '"' })).toEqual({
      ok: false,
      error: { code: 'QUERY_SYNTAX', message: 'Unbalanced quote' },
    });
    expect(await dispatch(handlers, 'status', {})).toMatchObject({
      ok: false,
      error: { code: 'ENGINE_UNAVAILABLE' },
    });
    expect(await dispatch(handlers, 'whoami', {})).toEqual({
      ok: false,
      error: { code: 'INTERNAL', message: 'boom' },
    });
  });
});

describe('createClient', () => {
  it('resolves values and rejects envelope errors as TrawlError with the code', async () => {
    const calls: unknown[] = [];
    const client = createClient(
      async (method, request) => {
        calls.push([method, request]);
        return method === 'search'
          ? { ok: false, error: { code: 'QUERY_SYNTAX', message: 'bad' } }
          : { ok: true, value: [] };
      },
      () => () => {},
    );
    await expect(client.listSources()).resolves.toEqual([]);
    const err = await client.search({ query: '"' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TrawlError);
    expect((err as TrawlError).code).toBe('QUERY_SYNTAX');
    expect(calls).toEqual([
      ['listSources', {}],
      ['search', { query: '"' }],
    ]);
  });
});

describe('isResult', () => {
  it('accepts envelopes only', () => {
    expect(isResult({ ok: true, value: null })).toBe(true);
    expect(isResult({ ok: false, error: { code: 'INTERNAL', message: 'x' } })).toBe(true);
    expect(isResult({ ok: false, error: { code: 'MADE_UP', message: 'x' } })).toBe(false);
    expect(isResult({ ok: true })).toBe(false);
    expect(isResult('ok')).toBe(false);
  });
});

describe('classifyAddress', () => {
  it('recognises the three kinds and rejects the rest', () => {
    expect(classifyAddress('/home/alice/Documents')).toBe('file');
    expect(classifyAddress('~/Documents')).toBe('file');
    expect(classifyAddress('C:\\Users\\alice')).toBe('file');
    expect(classifyAddress('file:///srv/docs')).toBe('file');
    expect(classifyAddress('\\\\server\\share\\dir')).toBe('smb');
    expect(classifyAddress('smb://server/share')).toBe('smb');
    expect(classifyAddress('smb://server')).toBe(null);
    expect(classifyAddress('https://example.org/docs/')).toBe('http');
    expect(classifyAddress('javascript:alert(1)')).toBe(null);
    expect(classifyAddress('docs')).toBe(null);
    expect(classifyAddress('')).toBe(null);
  });

  it('is what the contract uses for addSource', () => {
    expect(
      contract.addSource.request.safeParse({ kind: 'smb', startAddresses: ['\\\\nas\\docs'] }).success,
    ).toBe(true);
    expect(
      contract.addSource.request.safeParse({ kind: 'smb', startAddresses: ['https://x.org'] }).success,
    ).toBe(false);
  });
});

describe('EventHub and throttleEvents', () => {
  it('unsubscribes and isolates throwing listeners', () => {
    const hub = new EventHub();
    const got: unknown[] = [];
    hub.on('sources-changed', () => {
      throw new Error('listener bug');
    });
    const off = hub.on('sources-changed', (p) => got.push(p));
    hub.emit('sources-changed', []);
    off();
    hub.emit('sources-changed', []);
    expect(got).toEqual([[]]);
    expect(hub.listenerCount()).toBe(1);
  });

  it('merges running progress per crawl and always delivers the final state in order', async () => {
    const sent: [string, unknown][] = [];
    const t = throttleEvents((e, p) => sent.push([e, p]), 20);
    const progress = (crawlId: number, done: number, state = 'running') => ({ crawlId, done, state });
    t.push('progress', progress(1, 1));
    t.push('progress', progress(1, 2));
    t.push('progress', progress(2, 1));
    expect(sent).toEqual([]);
    await new Promise((r) => setTimeout(r, 40));
    expect(sent.map(([, p]) => p)).toEqual([progress(1, 2), progress(2, 1)]);
    t.push('progress', progress(1, 3));
    t.push('progress', progress(1, 4, 'done'));
    t.push('crawl-finished', { id: 1 });
    expect(sent.slice(2)).toEqual([
      ['progress', progress(1, 4, 'done')],
      ['crawl-finished', { id: 1 }],
    ]);
    t.dispose();
  });
});
