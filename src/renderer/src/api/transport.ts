/**
 * Picks the transport: the Electron preload's `window.trawl` when present, else the web shell's
 * HTTP API with the token from the URL fragment (moved to sessionStorage and removed from the
 * address bar so it is not bookmarked or shared by accident).
 */
import { createClient, type TrawlApi, type TrawlBridge } from '../../../shared/rpc.js';
import { createHttpClient } from './http-client.js';

declare global {
  interface Window {
    trawl?: TrawlBridge;
  }
}

const TOKEN_KEY = 'trawl.token';

/** Reads `#token=…` once, stores it for reloads of this tab, and clears it from the URL. */
export function takeToken(): string | null {
  const match = /(?:^#|&)token=([A-Za-z0-9_-]+)/.exec(window.location.hash);
  if (match) {
    try {
      sessionStorage.setItem(TOKEN_KEY, match[1]);
    } catch {}
    history.replaceState(null, '', window.location.pathname + window.location.search);
    return match[1];
  }
  try {
    return sessionStorage.getItem(TOKEN_KEY);
  } catch {
    return null;
  }
}

/** The client for this page, or null when neither the preload nor a token is available. */
export function createTransportClient(): TrawlApi | null {
  const bridge = window.trawl;
  if (bridge) {
    return createClient(
      (method, request) =>
        (bridge[method] as (r: unknown) => ReturnType<TrawlBridge[typeof method]>)(request),
      (event, listener) => bridge.on(event, listener as never),
    );
  }
  const token = takeToken();
  return token ? createHttpClient({ token }) : null;
}
