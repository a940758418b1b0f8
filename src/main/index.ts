/**
 * Electron main process: one instance, the engine in a utility process, one sandboxed search
 * window, the IPC wrapper, tray, global shortcut and start-at-login. Each concern lives in its own
 * module; this file wires them in order from `onReady`.
 */
import {
  app,
  BrowserWindow,
  dialog,
  globalShortcut,
  ipcMain,
  Menu,
  nativeImage,
  nativeTheme,
  safeStorage,
  session,
  shell,
  Tray,
  utilityProcess,
} from 'electron';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { resolveDataDir } from '../cli/data-dir.js';
import type { AppInfo, ContentSource, DesktopSettings, OpenResult } from '../shared/contract.js';
import { TrawlError, type Handlers } from '../shared/rpc.js';
import { CredentialVault } from './credential-vault.js';
import { loadDesktopSettings, saveDesktopSettings, type StoredDesktopSettings } from './desktop-settings.js';
import { daemonAppInfo } from '../daemon/daemon-binding.js';
import { createEngineHost, desktopDaemonSocket, type EngineChild } from './engine-host.js';
import { appUrlMatcher, broadcast, setupIpc } from './ipc.js';
import { isExternalWebUrl, setupSecurity } from './security.js';
import { bindShortcut, type ShortcutBinding } from './shortcut.js';
import { setupTray } from './tray.js';
import { SearchWindows } from './windows.js';

const OUT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
/** Files the engine process loads from disk (native module, filter workers) live outside the asar. */
const unpacked = (p: string) =>
  p.replace(`${path.sep}app.asar${path.sep}`, `${path.sep}app.asar.unpacked${path.sep}`);

function argValue(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i !== -1
    ? process.argv[i + 1]
    : process.argv.find((a) => a.startsWith(`${name}=`))?.slice(name.length + 1);
}

function main(): void {
  if (!app.requestSingleInstanceLock()) {
    app.quit();
    return;
  }
  let quitting = false;
  let engineClosed = false;
  let windows: SearchWindows | null = null;
  let closeEngine: () => Promise<void> = async () => {};

  app.on('second-instance', () => windows?.show());
  app.on('window-all-closed', () => {
    /* stay in the tray */
  });
  app.on('before-quit', (event) => {
    quitting = true;
    if (engineClosed) return;
    event.preventDefault();
    void closeEngine().finally(() => {
      engineClosed = true;
      app.quit();
    });
  });
  app.on('will-quit', () => globalShortcut.unregisterAll());

  void app.whenReady().then(() => {
    const ready = onReady(() => quitting);
    windows = ready.windows;
    closeEngine = ready.closeEngine;
  });
}

function onReady(isQuitting: () => boolean): { windows: SearchWindows; closeEngine(): Promise<void> } {
  const dataDir = resolveDataDir(argValue('--data-dir'));
  const userData = app.getPath('userData');
  const pageUrl =
    process.env.ELECTRON_RENDERER_URL ?? pathToFileURL(path.join(OUT, 'renderer', 'index.html')).href;
  const isAppUrl = appUrlMatcher(
    pathToFileURL(path.join(OUT, 'renderer', 'index.html')).href,
    process.env.ELECTRON_RENDERER_URL,
  );
  setupSecurity(app, session.defaultSession, shell, isAppUrl);

  const iconPath = path.join(
    app.isPackaged ? process.resourcesPath : path.join(OUT, '..', 'resources'),
    'icon.png',
  );
  const trayIconPath = path.join(
    app.isPackaged ? process.resourcesPath : path.join(OUT, '..', 'resources'),
    'tray.png',
  );
  const windows = new SearchWindows({
    BrowserWindow,
    preload: path.join(OUT, 'preload', 'index.cjs'),
    pageUrl,
    iconPath,
    darkBackground: nativeTheme.shouldUseDarkColors,
    isQuitting,
  });

  const vault = new CredentialVault(path.join(userData, 'credentials.enc.json'), safeStorage);
  const settingsFile = path.join(userData, 'desktop-settings.json');
  let settings: StoredDesktopSettings = loadDesktopSettings(settingsFile);
  let shortcut: ShortcutBinding = bindShortcut(globalShortcut, settings.shortcut, () => windows.toggle());
  if (settings.startAtLogin) app.setLoginItemSettings({ openAtLogin: true, args: ['--hidden'] });

  // A system-wide `trawl daemon` answers instead of the own index when configured (as for `trawl search`).
  const daemon = desktopDaemonSocket({ argv: process.argv, env: process.env, dataDir });
  const baseInfo: AppInfo = {
    transport: 'electron',
    version: app.getVersion(),
    platform: process.platform,
    canPickFolder: !daemon,
    canOpenFiles: true,
  };
  const info = daemon ? daemonAppInfo(baseInfo, daemon) : baseInfo;
  let allPaused = false;
  const tray = setupTray({
    Tray,
    Menu,
    icon: nativeImage.createFromPath(trayIconPath),
    shortcutLabel: () => shortcut.accelerator,
    onSearch: () => windows.show(),
    onCrawl: () => void host.call('startCrawl', { mode: 'incremental' }),
    onPauseAll: () => void host.call('pause', {}),
    onResumeAll: () => void host.call('resume', {}),
    onQuit: () => app.quit(),
    crawlsManagedElsewhere: !!daemon,
  });

  const host = createEngineHost({
    fork: () =>
      utilityProcess.fork(unpacked(path.join(OUT, 'engine', 'engine-process.js')), [], {
        serviceName: 'Trawl engine',
        stdio: 'inherit',
      }) as unknown as EngineChild,
    dataDir,
    daemon,
    info,
    vault,
    onEvent: (event, payload) => {
      broadcast(windows.webContents(), event, payload);
      if (event === 'sources-changed') {
        const sources = payload as ContentSource[];
        allPaused = sources.length > 0 && sources.every((s) => s.paused);
        tray.update(allPaused);
      }
    },
    onProblem: (message) => console.error(message),
  });

  const desktopSettings = (): DesktopSettings => ({ ...settings, shortcutActive: shortcut.active });
  const local: Partial<Handlers> = {
    openItem: async (request) => {
      const answer = await host.call('openItem', request);
      if (!answer.ok) throw new TrawlError(answer.error.code, answer.error.message);
      const resolved = answer.value as OpenResult | null;
      if (!resolved) return null;
      if (resolved.kind === 'url') {
        if (!isExternalWebUrl(resolved.target))
          throw new TrawlError('UNSUPPORTED', 'Only http(s) links open in the browser');
        await shell.openExternal(resolved.target);
      } else if (request.action === 'reveal') {
        shell.showItemInFolder(resolved.target);
      } else {
        const problem = await shell.openPath(resolved.target);
        if (problem) throw new TrawlError('INTERNAL', problem);
      }
      return { ...resolved, opened: true };
    },
    setCredential: async ({ id, secret }) => {
      await vault.set(id, secret);
      return null;
    },
    credentialIds: () => vault.ids(),
    pickFolder: async () => {
      const win = windows.current();
      const options = { properties: ['openDirectory' as const, 'dontAddToRecent' as const] };
      const picked = win ? await dialog.showOpenDialog(win, options) : await dialog.showOpenDialog(options);
      return picked.canceled ? null : (picked.filePaths[0] ?? null);
    },
    hideWindow: () => {
      windows.hide();
      return null;
    },
    appInfo: () => info,
    desktopSettings,
    updateDesktopSettings: (patch) => {
      if (patch.shortcut !== undefined && patch.shortcut !== settings.shortcut) {
        shortcut.dispose();
        shortcut = bindShortcut(globalShortcut, patch.shortcut, () => windows.toggle());
        settings = { ...settings, shortcut: patch.shortcut };
      }
      if (patch.startAtLogin !== undefined && patch.startAtLogin !== settings.startAtLogin) {
        app.setLoginItemSettings({ openAtLogin: patch.startAtLogin, args: ['--hidden'] });
        settings = { ...settings, startAtLogin: patch.startAtLogin };
      }
      saveDesktopSettings(settingsFile, settings);
      tray.update(allPaused);
      return desktopSettings();
    },
  };
  setupIpc(ipcMain, host.handlers(local), { isOurWindow: (id) => windows.isOurs(id), isAppUrl });

  if (!process.argv.includes('--hidden')) windows.show();
  return {
    windows,
    closeEngine: async () => {
      tray.destroy();
      await host.close();
    },
  };
}

main();
