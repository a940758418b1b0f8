/**
 * Messages between the Electron main process and the engine's utility process. Plain structured-
 * cloneable objects; the engine side never imports electron.
 */
import type { Credential } from './core/credential-store.js';
import type { AppInfo, EventName } from '../shared/contract.js';
import type { Result } from '../shared/rpc.js';

export type ToEngine =
  /** `daemon`: search through that `trawl daemon` socket instead of opening the index in `dataDir`. */
  | { type: 'init'; dataDir: string; info: AppInfo; daemon?: string }
  | { type: 'call'; id: number; method: string; request: unknown }
  /** Answer to `credential-get`: the secret (or the id list when the request asked for ids). */
  | { type: 'credential'; reqId: number; secret: Credential | null; ids?: string[] }
  | { type: 'shutdown' };

export type FromEngine =
  | { type: 'ready' }
  | { type: 'fatal'; message: string }
  | { type: 'result'; id: number; result: Result<unknown> }
  | { type: 'event'; event: EventName; payload: unknown }
  /** The engine needs a stored credential (`id`), or the list of ids (`id: null`). */
  | { type: 'credential-get'; reqId: number; id: string | null }
  | { type: 'closed' };
