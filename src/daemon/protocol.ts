/**
 * The daemon's wire protocol: newline-delimited JSON over a local stream socket. One request per
 * line, one response per line, matched by `id`. Requests name a contract method (src/shared/
 * contract.ts) and carry its request object as `params`; responses are the contract's envelopes.
 *
 *   → {"id":1,"method":"search","params":{"query":"budget","limit":10}}
 *   ← {"id":1,"ok":true,"value":{"total":3,"hits":[…],…}}
 *   ← {"id":2,"ok":false,"error":{"code":"BAD_REQUEST","message":"…"}}
 *
 * Who asks is never part of a request: the socket a connection arrives on names the user.
 */
import { z } from 'zod';
import type { MethodName } from '../shared/contract.js';

/** Methods every user may call; each is answered trimmed to the caller. */
export const USER_METHODS = [
  'search',
  'preview',
  'suggest',
  'whoami',
  'status',
  'openItem',
] as const satisfies readonly MethodName[];

/** Methods only root's socket answers. */
export const ADMIN_METHODS = ['startCrawl'] as const satisfies readonly MethodName[];

export type DaemonMethod = (typeof USER_METHODS)[number] | (typeof ADMIN_METHODS)[number];

/** A request line. Unknown fields (a `user` or `uid`, say) make the request invalid. */
export const requestEnvelope = z.strictObject({
  id: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
  method: z.string().max(100),
  params: z.unknown().optional(),
});

export type RequestEnvelope = z.infer<typeof requestEnvelope>;

/** Longest accepted request line (bytes); longer lines close the connection. */
export const MAX_LINE = 256 * 1024;

/** Socket file name inside a user's directory. */
export const SOCKET_NAME = 'trawl.sock';
