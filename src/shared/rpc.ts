/**
 * Generic plumbing typed from the contract: the result envelope, the error type, the server-side
 * `dispatch` (method check → zod validation → handler → envelope) and the client-side proxy.
 * Every transport (Electron IPC, HTTP, in-process tests) is a thin layer over these two functions.
 */
import { z } from 'zod';
import {
  contract,
  errorCodes,
  isMethodName,
  methodNames,
  type ErrorCode,
  type EventName,
  type EventPayload,
  type MethodName,
  type ParsedRequestOf,
  type RequestOf,
  type ResponseOf,
} from './contract.js';

export interface RpcError {
  code: ErrorCode;
  message: string;
}

/** What crosses every transport: thrown errors never do. */
export type Result<T> = { ok: true; value: T } | { ok: false; error: RpcError };

/** An error with a contract error code; clients throw it, handlers may throw it. */
export class TrawlError extends Error {
  override readonly name = 'TrawlError';
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** Server side: one function per contract method, receiving the validated request. */
export type Handlers = {
  [M in MethodName]: (request: ParsedRequestOf<M>) => ResponseOf<M> | Promise<ResponseOf<M>>;
};

type EmptyRequest<M extends MethodName> = Record<never, never> extends RequestOf<M> ? true : false;

/** Client side: the contract's methods as async functions, plus event subscription. */
export type TrawlApi = {
  [M in MethodName]: EmptyRequest<M> extends true
    ? (request?: RequestOf<M>) => Promise<ResponseOf<M>>
    : (request: RequestOf<M>) => Promise<ResponseOf<M>>;
} & {
  /** Subscribes to a pushed event; returns the unsubscribe function. */
  on<E extends EventName>(event: E, listener: (payload: EventPayload<E>) => void): () => void;
};

/**
 * What the Electron preload exposes as `window.trawl`: each contract method answering the envelope
 * (errors keep their code across the context bridge), plus event subscription.
 */
export type TrawlBridge = {
  [M in MethodName]: (request: RequestOf<M>) => Promise<Result<ResponseOf<M>>>;
} & {
  on<E extends EventName>(event: E, listener: (payload: EventPayload<E>) => void): () => void;
};

/** A transport's raw call: sends one request, resolves with the envelope (never rejects for RPC errors). */
export type RawCall = (method: MethodName, request: unknown) => Promise<Result<unknown>>;
export type RawSubscribe = (event: EventName, listener: (payload: unknown) => void) => () => void;

const MAX_MESSAGE = 2000;

function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && (errorCodes as readonly string[]).includes(value);
}

/** Maps anything thrown by a handler to an envelope error. */
export function toRpcError(error: unknown): RpcError {
  if (error instanceof TrawlError) return { code: error.code, message: error.message };
  const e = error as { name?: unknown; code?: unknown; message?: unknown } | null;
  const message = typeof e?.message === 'string' && e.message !== '' ? e.message : String(error);
  const clipped = message.length > MAX_MESSAGE ? `${message.slice(0, MAX_MESSAGE)}…` : message;
  if (e?.name === 'QuerySyntaxError') return { code: 'QUERY_SYNTAX', message: clipped };
  if (isErrorCode(e?.code)) return { code: e.code, message: clipped };
  if (e?.name === 'SourceError') return { code: 'BAD_REQUEST', message: clipped };
  return { code: 'INTERNAL', message: clipped };
}

export function failure(code: ErrorCode, message: string): Result<never> {
  return { ok: false, error: { code, message } };
}

/** Validates `request` for `method`; an envelope error when either is not in the contract. */
export function validateRequest(
  method: unknown,
  request: unknown,
): { ok: true; method: MethodName; request: unknown } | { ok: false; error: RpcError } {
  if (!isMethodName(method)) {
    return {
      ok: false,
      error: { code: 'UNKNOWN_METHOD', message: `Unknown method: ${String(method).slice(0, 100)}` },
    };
  }
  const parsed = contract[method].request.safeParse(request === undefined ? {} : request);
  if (!parsed.success) {
    return {
      ok: false,
      error: { code: 'BAD_REQUEST', message: `Invalid ${method} request: ${z.prettifyError(parsed.error)}` },
    };
  }
  return { ok: true, method, request: parsed.data };
}

/**
 * Serves one request: rejects unknown methods and invalid payloads, calls the handler, and wraps
 * the answer or the thrown error in an envelope. Never rejects.
 */
export async function dispatch(
  handlers: Handlers,
  method: unknown,
  request: unknown,
): Promise<Result<unknown>> {
  const checked = validateRequest(method, request);
  if (!checked.ok) return checked;
  try {
    const handler = handlers[checked.method] as (r: unknown) => unknown;
    const value = await handler(checked.request);
    return { ok: true, value: value === undefined ? null : value };
  } catch (error) {
    return { ok: false, error: toRpcError(error) };
  }
}

/** Builds the typed client over a transport; failed envelopes reject with a TrawlError. */
export function createClient(call: RawCall, subscribe: RawSubscribe): TrawlApi {
  const api: Record<string, unknown> = {};
  for (const method of methodNames) {
    api[method] = async (request?: unknown) => {
      const result = await call(method, request ?? {});
      if (!result.ok) throw new TrawlError(result.error.code, result.error.message);
      return result.value;
    };
  }
  api.on = (event: EventName, listener: (payload: unknown) => void) => subscribe(event, listener);
  return api as TrawlApi;
}

/** An in-process client over handlers (tests, and the engine host's local calls). */
export function createLocalClient(handlers: Handlers, subscribe: RawSubscribe): TrawlApi {
  return createClient(
    (method, request) => dispatch(handlers, method, JSON.parse(JSON.stringify(request ?? {}))),
    subscribe,
  );
}

/** Checks a value received over a transport really is an envelope. */
export function isResult(value: unknown): value is Result<unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as { ok?: unknown; error?: { code?: unknown; message?: unknown } };
  if (v.ok === true) return 'value' in v;
  return v.ok === false && isErrorCode(v.error?.code) && typeof v.error?.message === 'string';
}
