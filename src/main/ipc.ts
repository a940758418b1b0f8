/**
 * The one IPC entry point. Every renderer request arrives on {@link RPC_CHANNEL} as
 * `{ method, request }` and goes through {@link createRpcHandler}: the sender must be the main frame
 * of a window this app created, showing the app's own page; the method must be in the contract;
 * the request must pass its zod schema. The answer is always an envelope — thrown errors never
 * cross IPC. Events go out on {@link EVENT_CHANNEL} to our windows only.
 *
 * Electron is a type-only import here; the caller passes `ipcMain`, so the checks are plain
 * functions that tests drive with fake events.
 */
import type { IpcMain, IpcMainInvokeEvent, WebContents } from 'electron';
import type { EventName } from '../shared/contract.js';
import { EVENT_CHANNEL, RPC_CHANNEL } from '../shared/ipc-channels.js';
import { dispatch, failure, type Handlers, type Result } from '../shared/rpc.js';

export { EVENT_CHANNEL, RPC_CHANNEL };

/** The parts of an invoke event the checks read. */
export interface SenderFrameLike {
  url: string;
  parent: SenderFrameLike | null;
}

export interface InvokeEventLike {
  sender: { id: number; isDestroyed(): boolean; mainFrame: SenderFrameLike };
  senderFrame: SenderFrameLike | null;
}

export interface SenderPolicy {
  /** True for webContents ids of windows this app created. */
  isOurWindow(webContentsId: number): boolean;
  /** True for the URL of the app's own page (file:// of out/renderer, or the dev server). */
  isAppUrl(url: string): boolean;
}

/** Why a sender may not call, or null when it may. */
export function senderProblem(event: InvokeEventLike, policy: SenderPolicy): string | null {
  const frame = event.senderFrame;
  if (event.sender.isDestroyed()) return 'sender is gone';
  if (!policy.isOurWindow(event.sender.id)) return 'sender is not a Trawl window';
  if (!frame) return 'sender frame is gone';
  if (frame.parent !== null || frame !== event.sender.mainFrame) return 'sub-frames may not call';
  if (!policy.isAppUrl(frame.url)) return 'sender is not showing the Trawl page';
  return null;
}

/** Builds the invoke listener: sender check → message shape → contract dispatch. Never throws. */
export function createRpcHandler(handlers: Handlers, policy: SenderPolicy) {
  return async (event: InvokeEventLike, message: unknown): Promise<Result<unknown>> => {
    const problem = senderProblem(event, policy);
    if (problem) return failure('FORBIDDEN', `IPC refused: ${problem}`);
    if (typeof message !== 'object' || message === null || Array.isArray(message)) {
      return failure('BAD_REQUEST', 'IPC message must be { method, request }');
    }
    const { method, request } = message as { method?: unknown; request?: unknown };
    return dispatch(handlers, method, request);
  };
}

/** A file:// URL check for the built page: exactly `index.html` under `rendererDir`. */
export function appUrlMatcher(indexFileUrl: string, devServerUrl?: string): (url: string) => boolean {
  const index = new URL(indexFileUrl);
  const dev = devServerUrl ? new URL(devServerUrl) : null;
  return (url) => {
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      return false;
    }
    if (u.protocol === 'file:') return u.pathname === index.pathname;
    return dev !== null && u.origin === dev.origin;
  };
}

/** Registers the handler on `ipcMain`; returns the function that removes it. */
export function setupIpc(ipcMain: IpcMain, handlers: Handlers, policy: SenderPolicy): () => void {
  const handler = createRpcHandler(handlers, policy);
  ipcMain.handle(RPC_CHANNEL, (event: IpcMainInvokeEvent, message: unknown) =>
    handler(event as unknown as InvokeEventLike, message),
  );
  return () => ipcMain.removeHandler(RPC_CHANNEL);
}

/** Sends an event to each of the given windows' main frames. */
export function broadcast(targets: Iterable<WebContents>, event: EventName, payload: unknown): void {
  for (const wc of targets) {
    if (!wc.isDestroyed()) wc.send(EVENT_CHANNEL, event, payload ?? null);
  }
}
