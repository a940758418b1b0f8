/** The tray icon and its menu: Search, Crawl now, Pause/Resume all, Quit. */
import type { Menu as MenuType, MenuItemConstructorOptions, NativeImage, Tray as TrayType } from 'electron';

export interface TrayDeps {
  Tray: new (image: NativeImage | string) => TrayType;
  Menu: { buildFromTemplate(template: MenuItemConstructorOptions[]): MenuType };
  icon: NativeImage | string;
  shortcutLabel(): string;
  onSearch(): void;
  onCrawl(): void;
  onPauseAll(): void;
  onResumeAll(): void;
  onQuit(): void;
  /** Crawls belong to a system-wide daemon's administrator: no crawl items. */
  crawlsManagedElsewhere?: boolean;
}

/** The menu template (a plain function of the state, so it can be checked without Electron). */
export function trayTemplate(
  deps: Omit<TrayDeps, 'Tray' | 'Menu' | 'icon'>,
  paused: boolean,
): MenuItemConstructorOptions[] {
  const crawlItems: MenuItemConstructorOptions[] = deps.crawlsManagedElsewhere
    ? []
    : [
        { label: 'Crawl now', click: deps.onCrawl },
        paused
          ? { label: 'Resume crawling', click: deps.onResumeAll }
          : { label: 'Pause crawling', click: deps.onPauseAll },
      ];
  return [
    { label: 'Search', accelerator: deps.shortcutLabel(), click: deps.onSearch },
    ...crawlItems,
    { type: 'separator' },
    { label: 'Quit Trawl', role: 'quit', click: deps.onQuit },
  ];
}

export function setupTray(deps: TrayDeps): { update(paused: boolean): void; destroy(): void } {
  const tray = new deps.Tray(deps.icon);
  tray.setToolTip('Trawl');
  tray.on('click', deps.onSearch);
  const update = (paused: boolean) =>
    tray.setContextMenu(deps.Menu.buildFromTemplate(trayTemplate(deps, paused)));
  update(false);
  return { update, destroy: () => tray.destroy() };
}
