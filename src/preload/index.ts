/**
 * The preload: exposes `window.trawl` with exactly the contract's methods (each answering the
 * result envelope) and `on(event, cb) → unsubscribe`. Nothing else from Electron or Node reaches
 * the page.
 */
import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import { isEventName, methodNames, type EventName } from '../shared/contract.js';
import { EVENT_CHANNEL, RPC_CHANNEL } from '../shared/ipc-channels.js';
import type { TrawlBridge } from '../shared/rpc.js';

const bridge: Record<string, unknown> = {};
for (const method of methodNames) {
  bridge[method] = (request: unknown) => ipcRenderer.invoke(RPC_CHANNEL, { method, request: request ?? {} });
}
bridge.on = (event: EventName, listener: (payload: unknown) => void) => {
  if (!isEventName(event) || typeof listener !== 'function')
    throw new TypeError('on(event, listener): unknown event');
  const wrapped = (_e: IpcRendererEvent, name: unknown, payload: unknown) => {
    if (name === event) listener(payload);
  };
  ipcRenderer.on(EVENT_CHANNEL, wrapped);
  return () => {
    ipcRenderer.removeListener(EVENT_CHANNEL, wrapped);
  };
};

contextBridge.exposeInMainWorld('trawl', bridge as TrawlBridge);
