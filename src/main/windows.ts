/**
 * The search window: sandboxed, context-isolated, no Node in the page; hidden (not closed) when the
 * user closes it so the app stays in the tray. Only windows created here may talk IPC.
 */
import type { BrowserWindow as BrowserWindowType, BrowserWindowConstructorOptions } from 'electron';

export interface WindowDeps {
  BrowserWindow: new (options: BrowserWindowConstructorOptions) => BrowserWindowType;
  preload: string;
  /** file:// URL of out/renderer/index.html, or the dev server URL. */
  pageUrl: string;
  iconPath?: string;
  darkBackground: boolean;
  /** True once the app is quitting: closing then really closes. */
  isQuitting(): boolean;
}

export class SearchWindows {
  private window: BrowserWindowType | null = null;
  private readonly ids = new Set<number>();

  constructor(private readonly deps: WindowDeps) {}

  /** True for the webContents of a window this app created (and has not destroyed). */
  isOurs(webContentsId: number): boolean {
    return this.ids.has(webContentsId);
  }

  webContents() {
    return this.window && !this.window.isDestroyed() ? [this.window.webContents] : [];
  }

  /** Shows and focuses the search window, creating it on first use. */
  show(): BrowserWindowType {
    const win = this.window && !this.window.isDestroyed() ? this.window : this.create();
    if (win.isMinimized()) win.restore();
    win.show();
    win.focus();
    win.webContents.focus();
    return win;
  }

  hide(): void {
    this.window?.hide();
  }

  toggle(): void {
    if (this.window?.isVisible() && this.window.isFocused()) this.hide();
    else this.show();
  }

  current(): BrowserWindowType | null {
    return this.window && !this.window.isDestroyed() ? this.window : null;
  }

  private create(): BrowserWindowType {
    const win = new this.deps.BrowserWindow({
      width: 1200,
      height: 780,
      minWidth: 760,
      minHeight: 480,
      show: false,
      title: 'Trawl',
      icon: this.deps.iconPath,
      backgroundColor: this.deps.darkBackground ? '#111318' : '#f4f5f8',
      autoHideMenuBar: true,
      webPreferences: {
        preload: this.deps.preload,
        contextIsolation: true,
        sandbox: true,
        nodeIntegration: false,
        nodeIntegrationInSubFrames: false,
        webSecurity: true,
        allowRunningInsecureContent: false,
        webviewTag: false,
        spellcheck: false,
        navigateOnDragDrop: false,
      },
    });
    const id = win.webContents.id;
    this.ids.add(id);
    win.on('close', (event) => {
      if (!this.deps.isQuitting()) {
        event.preventDefault();
        win.hide();
      }
    });
    win.on('closed', () => {
      this.ids.delete(id);
      if (this.window === win) this.window = null;
    });
    win.once('ready-to-show', () => win.show());
    void win.loadURL(this.deps.pageUrl);
    this.window = win;
    return win;
  }
}
