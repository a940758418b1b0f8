/**
 * Locks down every web contents the app creates: no navigation away from the app page, no new
 * windows (http/https links open in the default browser instead), no <webview>, no permissions
 * except writing to the clipboard, and the UI's CSP on every response.
 */
import type { App, Session, Shell, WebContents } from 'electron';
import { UI_CSP } from '../web-shell/csp.js';

/** True for URLs the default browser may open (http and https only). */
export function isExternalWebUrl(url: string): boolean {
  try {
    const u = new URL(url);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '';
  } catch {
    return false;
  }
}

export function hardenWebContents(
  contents: WebContents,
  isAppUrl: (url: string) => boolean,
  shell: Pick<Shell, 'openExternal'>,
): void {
  const leave = (event: { preventDefault(): void }, url: string) => {
    if (isAppUrl(url)) return;
    event.preventDefault();
    if (isExternalWebUrl(url)) void shell.openExternal(url);
  };
  contents.on('will-navigate', leave);
  contents.on('will-redirect', leave);
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(({ url }) => {
    if (isExternalWebUrl(url)) void shell.openExternal(url);
    return { action: 'deny' };
  });
}

export function setupSecurity(
  app: App,
  session: Session,
  shell: Pick<Shell, 'openExternal'>,
  isAppUrl: (url: string) => boolean,
): void {
  app.on('web-contents-created', (_event, contents) => hardenWebContents(contents, isAppUrl, shell));
  session.setPermissionRequestHandler((_wc, permission, callback) =>
    callback(permission === 'clipboard-sanitized-write'),
  );
  session.setPermissionCheckHandler((_wc, permission) => permission === 'clipboard-sanitized-write');
  session.webRequest.onHeadersReceived((details, callback) => {
    callback({ responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [UI_CSP] } });
  });
}
