import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import type { WebContents } from 'electron';
import { appUrlMatcher } from './ipc.js';
import { hardenWebContents, isExternalWebUrl } from './security.js';
import { trayTemplate } from './tray.js';
import { bindShortcut } from './shortcut.js';
import { loadDesktopSettings, saveDesktopSettings, DEFAULT_SHORTCUT } from './desktop-settings.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const APP = 'file:///app/out/renderer/index.html';

/** A fake webContents: records handlers the way Electron calls them. */
function fakeContents() {
  const emitter = new EventEmitter();
  let openHandler: ((d: { url: string }) => { action: string }) | null = null;
  const contents = Object.assign(emitter, {
    setWindowOpenHandler: (h: (d: { url: string }) => { action: string }) => (openHandler = h),
  });
  const navigate = (name: string, url: string) => {
    let prevented = false;
    emitter.emit(name, { preventDefault: () => (prevented = true) }, url);
    return prevented;
  };
  return {
    contents: contents as unknown as WebContents,
    navigate,
    open: (url: string) => openHandler!({ url }),
  };
}

describe('isExternalWebUrl', () => {
  it('allows http(s) only', () => {
    expect(isExternalWebUrl('https://example.org/a')).toBe(true);
    expect(isExternalWebUrl('http://intranet/x')).toBe(true);
    for (const url of [
      'file:///etc/passwd',
      'javascript:alert(1)',
      'smb://nas/share',
      'ms-settings:',
      'data:text/html,x',
      'nonsense',
    ]) {
      expect(isExternalWebUrl(url), url).toBe(false);
    }
  });
});

describe('hardenWebContents', () => {
  it('keeps the window on the app page and sends web links to the browser', () => {
    const opened: string[] = [];
    const { contents, navigate, open } = fakeContents();
    hardenWebContents(contents, appUrlMatcher(APP), {
      openExternal: async (u: string) => void opened.push(u),
    });
    expect(navigate('will-navigate', `${APP}#x`)).toBe(false);
    expect(navigate('will-navigate', 'https://evil.example/')).toBe(true);
    expect(navigate('will-redirect', 'file:///etc/passwd')).toBe(true);
    expect(navigate('will-navigate', 'javascript:alert(1)')).toBe(true);
    expect(open('https://docs.example/page')).toEqual({ action: 'deny' });
    expect(open('file:///home/alice/secret.pdf')).toEqual({ action: 'deny' });
    expect(opened).toEqual(['https://evil.example/', 'https://docs.example/page']);
    let webviewPrevented = false;
    contents.emit('will-attach-webview', { preventDefault: () => (webviewPrevented = true) });
    expect(webviewPrevented).toBe(true);
  });
});

describe('tray, shortcut and desktop settings', () => {
  it('offers Search, Crawl now, Pause or Resume, and Quit', () => {
    const noop = () => {};
    const deps = {
      shortcutLabel: () => 'Ctrl+Alt+Space',
      onSearch: noop,
      onCrawl: noop,
      onPauseAll: noop,
      onResumeAll: noop,
      onQuit: noop,
    };
    expect(trayTemplate(deps, false).map((i) => i.label ?? i.type)).toEqual([
      'Search',
      'Crawl now',
      'Pause crawling',
      'separator',
      'Quit Trawl',
    ]);
    expect(trayTemplate(deps, true)[2].label).toBe('Resume crawling');
    // Through a system-wide daemon, crawls are its administrator's: no crawl items.
    expect(
      trayTemplate({ ...deps, crawlsManagedElsewhere: true }, false).map((i) => i.label ?? i.type),
    ).toEqual(['Search', 'separator', 'Quit Trawl']);
  });

  it('reports a shortcut another app holds as inactive, and unregisters its own', () => {
    const registered = new Set<string>(['Alt+Space']);
    const gs = {
      register: (acc: string) => (registered.has(acc) ? false : (registered.add(acc), true)),
      unregister: (acc: string) => void registered.delete(acc),
    };
    const taken = bindShortcut(gs, 'Alt+Space', () => {});
    expect(taken.active).toBe(false);
    const mine = bindShortcut(gs, DEFAULT_SHORTCUT, () => {});
    expect(mine.active).toBe(true);
    mine.dispose();
    expect(registered.has(DEFAULT_SHORTCUT)).toBe(false);
    taken.dispose();
    expect(registered.has('Alt+Space')).toBe(true);
  });

  it('defaults the settings and survives a corrupt file', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-desktop-'));
    const file = path.join(dir, 'desktop-settings.json');
    expect(loadDesktopSettings(file)).toEqual({ shortcut: DEFAULT_SHORTCUT, startAtLogin: false });
    saveDesktopSettings(file, { shortcut: 'Alt+Shift+T', startAtLogin: true });
    expect(loadDesktopSettings(file)).toEqual({ shortcut: 'Alt+Shift+T', startAtLogin: true });
    fs.writeFileSync(file, '{"shortcut": 5, "startAtLogin": "yes"}');
    expect(loadDesktopSettings(file)).toEqual({ shortcut: DEFAULT_SHORTCUT, startAtLogin: false });
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
