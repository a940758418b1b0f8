/** The application frame: sidebar navigation, the current screen, and the status bar. */
import { useEffect, useMemo, type ReactNode } from 'react';
import type { TrawlApi } from '../../shared/rpc.js';
import { ActivityView } from './activity/activity-view.js';
import { ApiProvider } from './api/api-context.js';
import { AppDataProvider, useAppData } from './app-data.js';
import {
  ActivityIcon,
  AlertIcon,
  DatabaseIcon,
  FolderIcon,
  LanguageIcon,
  MonitorIcon,
  MoonIcon,
  SearchIcon,
  SunIcon,
  UserIcon,
} from './components/icons.js';
import { DesktopPrefs } from './desktop-prefs.js';
import { I18nProvider, useI18n, type LocalePreference } from './i18n/i18n.js';
import { SearchView } from './search/search-view.js';
import { SourcesView } from './sources/sources-view.js';
import { StatsView } from './stats/stats-view.js';
import { ThemeProvider, useTheme, type ThemePreference } from './theme.js';
import { UiProvider, useUi, type View } from './ui-context.js';

const NAV: {
  view: View;
  icon: typeof SearchIcon;
  key: 'nav.search' | 'nav.sources' | 'nav.activity' | 'nav.stats';
}[] = [
  { view: 'search', icon: SearchIcon, key: 'nav.search' },
  { view: 'sources', icon: FolderIcon, key: 'nav.sources' },
  { view: 'activity', icon: ActivityIcon, key: 'nav.activity' },
  { view: 'stats', icon: DatabaseIcon, key: 'nav.stats' },
];

/** The whole UI over a contract client (the real transport, or a fake in tests). */
export function App({ api, initialView }: { api: TrawlApi; initialView?: View }) {
  return (
    <ThemeProvider>
      <I18nProvider>
        <ApiProvider api={api}>
          <UiProvider initialView={initialView}>
            <AppDataProvider>
              <Frame />
            </AppDataProvider>
          </UiProvider>
        </ApiProvider>
      </I18nProvider>
    </ThemeProvider>
  );
}

/** Shown when the page was opened without the web shell's token (and outside Electron). */
export function NoAccess() {
  return (
    <ThemeProvider>
      <I18nProvider>
        <NoAccessBody />
      </I18nProvider>
    </ThemeProvider>
  );
}

function NoAccessBody() {
  const { t } = useI18n();
  return (
    <div className="no-access">
      <div className="state-panel">
        <div className="state-panel__icon">
          <AlertIcon size={28} />
        </div>
        <h2>{t('state.noToken.title')}</h2>
        <p>{t('state.noToken.body')}</p>
      </div>
    </div>
  );
}

function Frame() {
  const ui = useUi();
  const { t } = useI18n();
  const data = useAppData();
  // Through a trawl daemon, crawls are its administrator's: no crawl screen.
  const viaDaemon = data.info?.daemon !== undefined;
  const nav = useMemo(() => (viaDaemon ? NAV.filter((n) => n.view !== 'activity') : NAV), [viaDaemon]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const mod = e.ctrlKey || e.metaKey;
      if (mod && !e.shiftKey && !e.altKey && /^[1-9]$/.test(e.key) && Number(e.key) <= nav.length) {
        e.preventDefault();
        ui.navigate(nav[Number(e.key) - 1].view);
      } else if (mod && e.key.toLowerCase() === 'k') {
        e.preventDefault();
        ui.navigate('search');
        document.querySelector<HTMLInputElement>('.search-box__input')?.focus();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [ui, nav]);

  let screen: ReactNode;
  switch (ui.view === 'activity' && viaDaemon ? 'search' : ui.view) {
    case 'sources':
      screen = <SourcesView />;
      break;
    case 'activity':
      screen = <ActivityView />;
      break;
    case 'stats':
      screen = <StatsView />;
      break;
    default:
      screen = <SearchView />;
  }
  const running =
    [...data.progress.values()].filter((p) => p.state === 'running').length + data.starting.size;
  return (
    <div className="frame">
      <nav className="sidebar" aria-label="Main">
        <div className="brand">
          <span className="brand__mark" aria-hidden="true">
            <SearchIcon size={16} />
          </span>
          <span className="brand__name">{t('app.name')}</span>
        </div>
        <ul className="nav">
          {nav.map(({ view, icon: Icon, key }, i) => (
            <li key={view}>
              <button
                type="button"
                className={`nav__item${ui.view === view ? ' is-active' : ''}`}
                aria-current={ui.view === view ? 'page' : undefined}
                onClick={() => ui.navigate(view)}
                title={`${t(key)} (Ctrl+${i + 1})`}
              >
                <Icon size={17} />
                <span>{t(key)}</span>
                {view === 'activity' && running > 0 ? (
                  <span className="nav__badge" aria-hidden="true" />
                ) : null}
              </button>
            </li>
          ))}
        </ul>
        <div className="sidebar__spacer" />
        <Preferences />
      </nav>
      <main className="main">
        {data.offline ? (
          <div className="banner banner--error" role="alert">
            <AlertIcon size={16} />
            <span>
              <strong>{t('state.offline.title')}</strong> — {t('state.offline.body')}
            </span>
            <button type="button" className="btn btn--sm" onClick={() => void data.refresh()}>
              {t('state.retry')}
            </button>
          </div>
        ) : null}
        <div className="screen">{screen}</div>
        <StatusBar />
      </main>
    </div>
  );
}

function Preferences() {
  const { t, preference, setPreference } = useI18n();
  const theme = useTheme();
  const data = useAppData();
  const nextTheme: Record<ThemePreference, ThemePreference> = {
    system: 'light',
    light: 'dark',
    dark: 'system',
  };
  const ThemeIcon =
    theme.preference === 'system' ? MonitorIcon : theme.preference === 'dark' ? MoonIcon : SunIcon;
  const themeLabel = t(
    theme.preference === 'system'
      ? 'theme.system'
      : theme.preference === 'dark'
        ? 'theme.dark'
        : 'theme.light',
  );
  return (
    <div className="prefs">
      {data.info?.transport === 'electron' ? <DesktopPrefs /> : null}
      <button
        type="button"
        className="nav__item nav__item--quiet"
        onClick={() => theme.setPreference(nextTheme[theme.preference])}
        title={t('nav.theme')}
        aria-label={`${t('nav.theme')}: ${themeLabel}`}
      >
        <ThemeIcon size={16} />
        <span>{themeLabel}</span>
      </button>
      <label className="nav__item nav__item--quiet nav__select">
        <LanguageIcon size={16} />
        <select
          aria-label={t('nav.language')}
          value={preference}
          onChange={(e) => setPreference(e.target.value as LocalePreference)}
        >
          <option value="system">{t('lang.system')}</option>
          <option value="en">English</option>
          <option value="zh-CN">简体中文</option>
        </select>
      </label>
    </div>
  );
}

function StatusBar() {
  const data = useAppData();
  const { t, locale } = useI18n();
  const running = [...data.progress.values()].filter((p) => p.state === 'running');
  const crawlingCount = new Set([...running.map((p) => p.sourceId), ...data.starting.keys()]).size;
  return (
    <footer className="statusbar">
      <span className="statusbar__who" data-testid="whoami" title={data.whoami?.principals.join(', ')}>
        <UserIcon size={13} />
        {data.whoami
          ? t('status.searchingAs', { who: data.whoami.display.replace(/^Searching as\s+/i, '') })
          : '…'}
      </span>
      <span className="statusbar__spacer" />
      {crawlingCount > 0 ? (
        <span className="statusbar__crawl">
          <span className="spinner spinner--xs" />
          {t('status.crawling_other', { n: crawlingCount })}
        </span>
      ) : null}
      <span>{t('status.docs', { n: data.status?.documents ?? 0 })}</span>
      <span className="statusbar__sep" />
      {data.info?.daemon ? (
        <span data-testid="daemon" title={t('status.daemonTitle', { socket: data.info.daemon.socket })}>
          {t('status.daemon')}
        </span>
      ) : (
        <span>{formatTransport(data.info?.transport, t)}</span>
      )}
      {data.status && !data.info?.daemon ? <span className="statusbar__sep" /> : null}
      {data.status && !data.info?.daemon ? (
        <span>
          {new Intl.NumberFormat(locale, {
            style: 'unit',
            unit: 'megabyte',
            maximumFractionDigits: 1,
          }).format(data.status.indexBytes / 1048576)}
        </span>
      ) : null}
    </footer>
  );
}

function formatTransport(
  transport: 'electron' | 'web' | undefined,
  t: ReturnType<typeof useI18n>['t'],
): string {
  if (!transport) return '';
  return transport === 'electron' ? t('status.desktop') : t('status.web');
}
