/**
 * The contract over the web shell's HTTP API: `POST /api/<method>` with the bearer token, and the
 * event stream read with fetch (so the token travels in a header, never in a URL), reconnecting
 * while anyone listens.
 */
import type { EventName } from '../../../shared/contract.js';
import { isEventName } from '../../../shared/contract.js';
import { EventHub } from '../../../shared/event-hub.js';
import { createClient, isResult, type Result, type TrawlApi } from '../../../shared/rpc.js';

export interface HttpClientOptions {
  baseUrl?: string;
  token: string;
  fetch?: typeof fetch;
  reconnectMs?: number;
}

/** Parses SSE text; returns complete events and the unconsumed remainder. */
export function parseSse(buffer: string): { events: { event: string; data: string }[]; rest: string } {
  const events: { event: string; data: string }[] = [];
  const normalized = buffer.replace(/\r\n?/g, '\n');
  const blocks = normalized.split('\n\n');
  const rest = blocks.pop() ?? '';
  for (const block of blocks) {
    let event = 'message';
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith(':') || line === '') continue;
      const colon = line.indexOf(':');
      const field = colon === -1 ? line : line.slice(0, colon);
      const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'event') event = value;
      else if (field === 'data') data.push(value);
    }
    if (data.length > 0) events.push({ event, data: data.join('\n') });
  }
  return { events, rest };
}

export function createHttpClient(opts: HttpClientOptions): TrawlApi & { dispose(): void } {
  const base = opts.baseUrl ?? '';
  const doFetch = opts.fetch ?? fetch.bind(globalThis);
  const auth = { Authorization: `Bearer ${opts.token}` };
  const hub = new EventHub();
  let stream: AbortController | null = null;
  let retryTimer: ReturnType<typeof setTimeout> | null = null;
  let disposed = false;

  const call = async (method: string, request: unknown): Promise<Result<unknown>> => {
    let response: Response;
    try {
      response = await doFetch(`${base}/api/${method}`, {
        method: 'POST',
        headers: { ...auth, 'Content-Type': 'application/json' },
        body: JSON.stringify(request ?? {}),
        cache: 'no-store',
        credentials: 'omit',
      });
    } catch (error) {
      return {
        ok: false,
        error: { code: 'ENGINE_UNAVAILABLE', message: (error as Error).message || 'Network error' },
      };
    }
    let body: unknown;
    try {
      body = await response.json();
    } catch {
      body = null;
    }
    if (isResult(body)) return body;
    return {
      ok: false,
      error: {
        code: response.status >= 500 ? 'ENGINE_UNAVAILABLE' : 'INTERNAL',
        message: `HTTP ${response.status}`,
      },
    };
  };

  const connect = async (): Promise<void> => {
    if (disposed || stream) return;
    const controller = new AbortController();
    stream = controller;
    try {
      const response = await doFetch(`${base}/api/events`, {
        headers: auth,
        signal: controller.signal,
        cache: 'no-store',
        credentials: 'omit',
      });
      if (!response.ok || !response.body) throw new Error(`HTTP ${response.status}`);
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = '';
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        const parsed = parseSse(buffer + value);
        buffer = parsed.rest;
        for (const e of parsed.events) {
          if (!isEventName(e.event)) continue;
          let payload: unknown;
          try {
            payload = JSON.parse(e.data);
          } catch {
            continue;
          }
          hub.emit(e.event, payload as never);
        }
      }
    } catch {}
    if (stream === controller) stream = null;
    if (!disposed && !controller.signal.aborted && hub.listenerCount() > 0) {
      retryTimer = setTimeout(() => void connect(), opts.reconnectMs ?? 2000);
    }
  };

  const subscribe = (event: EventName, listener: (payload: unknown) => void): (() => void) => {
    const off = hub.on(event, listener);
    void connect();
    return () => {
      off();
      if (hub.listenerCount() === 0) {
        stream?.abort();
        stream = null;
      }
    };
  };

  const client = createClient((m, r) => call(m, r), subscribe);
  return Object.assign(client, {
    dispose() {
      disposed = true;
      if (retryTimer) clearTimeout(retryTimer);
      stream?.abort();
      stream = null;
    },
  });
}
