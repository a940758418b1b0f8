import { describe, expect, it } from 'vitest';
import { methodNames } from '../shared/contract.js';
import type { Handlers } from '../shared/rpc.js';
import {
  appUrlMatcher,
  createRpcHandler,
  senderProblem,
  type InvokeEventLike,
  type SenderFrameLike,
  type SenderPolicy,
} from './ipc.js';

const APP_URL = 'file:///opt/Trawl/resources/app.asar/out/renderer/index.html';
const isAppUrl = appUrlMatcher(APP_URL);
const policy: SenderPolicy = { isOurWindow: (id) => id === 7, isAppUrl };

function frame(url: string, parent: SenderFrameLike | null = null): SenderFrameLike {
  return { url, parent };
}

/** A fake invoke event: webContents `id` whose main frame shows `url`, sent from `from` (default: the main frame). */
function event(
  opts: {
    id?: number;
    url?: string;
    from?: 'main' | 'sub' | 'gone' | SenderFrameLike;
    destroyed?: boolean;
  } = {},
): InvokeEventLike {
  const mainFrame = frame(opts.url ?? APP_URL);
  const senderFrame =
    opts.from === 'sub'
      ? frame(opts.url ?? APP_URL, mainFrame)
      : opts.from === 'gone'
        ? null
        : typeof opts.from === 'object'
          ? opts.from
          : mainFrame;
  return { sender: { id: opts.id ?? 7, isDestroyed: () => opts.destroyed === true, mainFrame }, senderFrame };
}

function recordingHandlers(calls: string[]): Handlers {
  return Object.fromEntries(
    methodNames.map((m) => [
      m,
      (req: unknown) => {
        calls.push(m);
        if (m === 'status') throw new Error('engine exploded');
        return { echo: req };
      },
    ]),
  ) as unknown as Handlers;
}

describe('senderProblem', () => {
  it('accepts the main frame of our window showing the app page', () => {
    expect(senderProblem(event(), policy)).toBe(null);
  });

  it('rejects other windows, sub-frames, navigated or destroyed senders', () => {
    expect(senderProblem(event({ id: 8 }), policy)).toMatch(/not a Trawl window/);
    expect(senderProblem(event({ from: 'sub' }), policy)).toMatch(/sub-frames/);
    expect(senderProblem(event({ from: frame(APP_URL) }), policy)).toMatch(/sub-frames/);
    expect(senderProblem(event({ from: 'gone' }), policy)).toMatch(/frame is gone/);
    expect(senderProblem(event({ destroyed: true }), policy)).toMatch(/gone/);
    expect(senderProblem(event({ url: 'https://evil.example/' }), policy)).toMatch(
      /not showing the Trawl page/,
    );
    expect(senderProblem(event({ url: 'file:///tmp/evil.html' }), policy)).toMatch(/not showing/);
    expect(
      senderProblem(
        event({ url: 'file:///opt/Trawl/resources/app.asar/out/renderer/index.html/../../x.html' }),
        policy,
      ),
    ).toMatch(/not showing/);
  });
});

describe('appUrlMatcher', () => {
  it('matches the built page (any fragment/query) and the dev server origin only', () => {
    const dev = appUrlMatcher(APP_URL, 'http://localhost:5173/');
    expect(dev(`${APP_URL}#x`)).toBe(true);
    expect(dev('http://localhost:5173/index.html')).toBe(true);
    expect(dev('http://localhost:5174/')).toBe(false);
    expect(isAppUrl('http://localhost:5173/')).toBe(false);
    expect(isAppUrl('not a url')).toBe(false);
  });
});

describe('createRpcHandler', () => {
  it('serves valid requests from trusted senders', async () => {
    const calls: string[] = [];
    const handle = createRpcHandler(recordingHandlers(calls), policy);
    expect(await handle(event(), { method: 'search', request: { query: 'x' } })).toEqual({
      ok: true,
      value: { echo: { query: 'x' } },
    });
    expect(calls).toEqual(['search']);
  });

  it('refuses untrusted senders before looking at the message', async () => {
    const calls: string[] = [];
    const handle = createRpcHandler(recordingHandlers(calls), policy);
    for (const e of [
      event({ id: 99 }),
      event({ from: 'sub' }),
      event({ url: 'https://evil.example/' }),
      event({ from: 'gone' }),
    ]) {
      const r = await handle(e, { method: 'listSources', request: {} });
      expect(r).toMatchObject({ ok: false, error: { code: 'FORBIDDEN' } });
    }
    expect(calls).toEqual([]);
  });

  it('rejects malformed messages, unknown methods and invalid payloads', async () => {
    const calls: string[] = [];
    const handle = createRpcHandler(recordingHandlers(calls), policy);
    const cases: [unknown, string][] = [
      [null, 'BAD_REQUEST'],
      ['search', 'BAD_REQUEST'],
      [['search', {}], 'BAD_REQUEST'],
      [{ method: 'eval', request: {} }, 'UNKNOWN_METHOD'],
      [{ method: 'constructor', request: {} }, 'UNKNOWN_METHOD'],
      [{ request: {} }, 'UNKNOWN_METHOD'],
      [{ method: 'search', request: { query: 1 } }, 'BAD_REQUEST'],
      [{ method: 'openItem', request: { id: 1, action: 'exec' } }, 'BAD_REQUEST'],
      [
        { method: 'setCredential', request: { id: 'x', secret: { user: 'u', password: 'p' }, extra: 1 } },
        'BAD_REQUEST',
      ],
    ];
    for (const [message, code] of cases) {
      const r = await handle(event(), message);
      expect(r, JSON.stringify(message)).toMatchObject({ ok: false, error: { code } });
    }
    expect(calls).toEqual([]);
  });

  it('turns handler exceptions into envelopes', async () => {
    const handle = createRpcHandler(recordingHandlers([]), policy);
    expect(await handle(event(), { method: 'status', request: {} })).toEqual({
      ok: false,
      error: { code: 'INTERNAL', message: 'engine exploded' },
    });
  });
});
