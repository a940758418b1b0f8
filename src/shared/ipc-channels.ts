/** Electron IPC channel names, shared by the main process and the preload. */
export const RPC_CHANNEL = 'trawl:rpc';
export const EVENT_CHANNEL = 'trawl:event';
