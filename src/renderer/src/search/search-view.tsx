/**
 * The search window: query box with suggestions and syntax help, filters, the virtualized result
 * list and the preview pane. Keyboard first: ↑/↓ move, Enter opens, Ctrl/⌘+Enter reveals,
 * Ctrl/⌘+C copies the path, Esc clears (then hides), F3 / Shift+F3 walk the preview's hits.
 */
import { useCallback, useEffect, useMemo, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';
import type { SearchHit } from '../../../shared/contract.js';
import { useApi } from '../api/api-context.js';
import { useAppData } from '../app-data.js';
import {
  AlertIcon,
  CloseIcon,
  FolderIcon,
  HelpIcon,
  PlayIcon,
  PlusIcon,
  SearchIcon,
} from '../components/icons.js';
import { useI18n } from '../i18n/i18n.js';
import { copyText } from '../lib/clipboard.js';
import { extensionsOf } from '../lib/file-kinds.js';
import { useUi } from '../ui-context.js';
import { DEFAULT_FILTERS, FilterBar, periodStart, type Filters } from './filter-bar.js';
import { PreviewPane, type PreviewHandle } from './preview-pane.js';
import { ResultList } from './result-list.js';
import { SyntaxHelp } from './syntax-help.js';
import { MAX_ROWS, useSearch, type SearchParams } from './use-search.js';
import { useSuggestions } from './use-suggestions.js';

const isMac = typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform);

export function SearchView() {
  const api = useApi();
  const data = useAppData();
  const ui = useUi();
  const { t } = useI18n();
  const [query, setQuery] = useState('');
  const [filters, setFilters] = useState<Filters>(DEFAULT_FILTERS);
  const [selected, setSelected] = useState(0);
  const [helpOpen, setHelpOpen] = useState(false);
  const [inputFocused, setInputFocused] = useState(true);
  const [suggestionsDismissed, setSuggestionsDismissed] = useState(false);
  const inputRef = useRef<HTMLInputElement>(null);
  const previewRef = useRef<PreviewHandle>(null);

  const modifiedFrom = useMemo(() => periodStart(filters.period), [filters.period]);
  const params = useMemo<SearchParams>(
    () => ({
      query,
      sort: filters.sort,
      sourceIds: filters.sourceId !== null ? [filters.sourceId] : undefined,
      types: filters.kind !== null ? extensionsOf(filters.kind) : undefined,
      modifiedFrom,
    }),
    [query, filters.sort, filters.sourceId, filters.kind, modifiedFrom],
  );
  const { state, ensureRow, reload } = useSearch(api, params);
  const count = Math.min(state.total, MAX_ROWS);
  const selectedHit: SearchHit | null = state.status === 'error' ? null : (state.hits.get(selected) ?? null);
  const suggestions = useSuggestions(api, query, inputFocused && !helpOpen && !suggestionsDismissed);

  // A new query starts at the top; the same query re-run (the index changed) keeps the selected
  // document selected when it is still there.
  const shownKey = useRef('');
  const selectedId = useRef<number | null>(null);
  selectedId.current = selectedHit?.id ?? selectedId.current;
  useEffect(() => {
    if (state.key !== shownKey.current) {
      shownKey.current = state.key;
      selectedId.current = null;
      setSelected(0);
      return;
    }
    for (const [i, hit] of state.hits) {
      if (hit.id === selectedId.current) {
        setSelected(i);
        return;
      }
    }
    setSelected((s) => Math.max(0, Math.min(s, Math.min(state.total, MAX_ROWS) - 1)));
  }, [state.generation]); // runs once per result set; reads the rest from refs and state
  useEffect(() => {
    if (data.lastFinished.size > 0) reload();
  }, [data.lastFinished, reload]);
  useEffect(() => {
    inputRef.current?.focus();
  }, []);

  const move = useCallback(
    (delta: number) => {
      if (count === 0) return;
      setSelected((s) => Math.max(0, Math.min(count - 1, s + delta)));
    },
    [count],
  );

  const copyPath = useCallback(
    async (hit: SearchHit | null) => {
      if (!hit) return;
      const ok = await copyText(hit.path || hit.url);
      ui.toast(ok ? t('result.copied') : hit.path || hit.url);
    },
    [ui, t],
  );

  const openHit = useCallback(
    async (hit: SearchHit | null, action: 'open' | 'reveal') => {
      if (!hit) return;
      try {
        const result = await api.openItem({ id: hit.id, action });
        if (!result) {
          ui.toast(t('result.gone'), 'error');
          return;
        }
        if (result.opened) return;
        if (result.kind === 'url' && /^https?:\/\//i.test(result.target)) {
          window.open(result.target, '_blank', 'noopener,noreferrer');
          ui.toast(t('result.openedExternally'));
          return;
        }
        await copyText(result.target);
        ui.toast(t('result.fileNeedsApp'));
      } catch (error) {
        ui.toast(t('common.error', { message: (error as Error).message }), 'error');
      }
    },
    [api, ui, t],
  );

  const acceptSuggestion = (s: string) => {
    setQuery(s.endsWith(' ') ? s : `${s} `);
    inputRef.current?.focus();
  };

  const onKeyDown = (e: KeyboardEvent<HTMLElement>) => {
    const mod = isMac ? e.metaKey : e.ctrlKey;
    switch (e.key) {
      case 'ArrowDown':
        e.preventDefault();
        move(1);
        return;
      case 'ArrowUp':
        e.preventDefault();
        move(-1);
        return;
      case 'PageDown':
        e.preventDefault();
        move(8);
        return;
      case 'PageUp':
        e.preventDefault();
        move(-8);
        return;
      case 'Enter':
        e.preventDefault();
        void openHit(selectedHit, mod ? 'reveal' : 'open');
        return;
      case 'F3':
        e.preventDefault();
        if (e.shiftKey) previewRef.current?.prevHit();
        else previewRef.current?.nextHit();
        return;
      case 'F1':
        e.preventDefault();
        setHelpOpen((o) => !o);
        return;
      case 'Tab':
        if (suggestions.length > 0 && e.currentTarget === inputRef.current && !e.shiftKey) {
          e.preventDefault();
          acceptSuggestion(suggestions[0]);
        }
        return;
      case 'Escape':
        e.preventDefault();
        if (helpOpen) setHelpOpen(false);
        else if (suggestions.length > 0) setSuggestionsDismissed(true);
        else if (query !== '') setQuery('');
        else void api.hideWindow().catch(() => {});
        return;
    }
    if (mod && (e.key === 'c' || e.key === 'C')) {
      const input = inputRef.current;
      const hasSelection = input && e.currentTarget === input && input.selectionStart !== input.selectionEnd;
      if (!hasSelection && selectedHit) {
        e.preventDefault();
        void copyPath(selectedHit);
      }
    } else if (mod && e.key.toLowerCase() === 'g') {
      e.preventDefault();
      if (e.shiftKey) previewRef.current?.prevHit();
      else previewRef.current?.nextHit();
    }
  };

  const sources = data.sources ?? [];
  const documents = data.status?.documents ?? 0;
  const crawling = data.progress.size > 0 && [...data.progress.values()].some((p) => p.state === 'running');
  const showResults =
    query.trim() !== '' &&
    (state.status === 'ready' || (state.status === 'loading' && state.generation > 0 && state.query !== ''));
  const modKey = isMac ? '⌘' : 'Ctrl';

  return (
    <div className="search-view">
      <div className="search-header">
        <div className={`search-box${state.status === 'loading' ? ' is-loading' : ''}`}>
          <SearchIcon size={20} className="search-box__icon" />
          <input
            ref={inputRef}
            className="search-box__input"
            type="search"
            value={query}
            placeholder={t('search.placeholder')}
            aria-label={t('search.label')}
            spellCheck={false}
            autoComplete="off"
            onChange={(e) => {
              setQuery(e.target.value);
              setSuggestionsDismissed(false);
            }}
            onKeyDown={onKeyDown}
            onFocus={() => setInputFocused(true)}
            onBlur={() => setInputFocused(false)}
          />
          {state.status === 'loading' ? (
            <span className="spinner" aria-label={t('search.searching')} />
          ) : null}
          {query !== '' ? (
            <button
              type="button"
              className="icon-btn"
              aria-label={t('search.clear')}
              onClick={() => setQuery('')}
            >
              <CloseIcon />
            </button>
          ) : null}
          <button
            type="button"
            className={`icon-btn${helpOpen ? ' is-active' : ''}`}
            aria-label={t('search.help')}
            aria-expanded={helpOpen}
            title={`${t('search.help')} (F1)`}
            onClick={() => setHelpOpen((o) => !o)}
          >
            <HelpIcon />
          </button>
        </div>
        {suggestions.length > 0 ? (
          <div className="suggestions" role="listbox" aria-label={t('search.suggestions')}>
            <span className="suggestions__label">{t('search.suggestions')}</span>
            {suggestions.map((s, i) => (
              <button
                type="button"
                role="option"
                aria-selected={i === 0}
                key={s}
                className={`suggestion${i === 0 ? ' is-first' : ''}`}
                onMouseDown={(e) => {
                  e.preventDefault();
                  acceptSuggestion(s);
                }}
              >
                {s}
              </button>
            ))}
            <span className="suggestions__hint">
              <kbd>Tab</kbd> {t('search.tabToAccept')}
            </span>
          </div>
        ) : null}
        <FilterBar filters={filters} sources={sources} onChange={setFilters} />
        {helpOpen ? (
          <SyntaxHelp
            onClose={() => setHelpOpen(false)}
            onInsert={(example) => {
              setQuery(example);
              setHelpOpen(false);
              inputRef.current?.focus();
            }}
          />
        ) : null}
      </div>

      <div className="search-body">
        {showResults ? (
          <>
            <section className="results-pane" onKeyDown={onKeyDown}>
              <div className="results-summary" aria-live="polite">
                <span data-testid="result-count">
                  <strong>{t('search.results_other', { n: state.total })}</strong>
                  <span className="muted">
                    {' '}
                    · {t('search.took', { ms: Math.max(1, Math.round(state.tookMs)) })}
                  </span>
                </span>
                {state.relaxed ? <span className="results-summary__note">{t('search.relaxed')}</span> : null}
              </div>
              {count === 0 ? (
                <EmptyResults query={state.query} />
              ) : (
                <ResultList
                  count={count}
                  hits={state.hits}
                  terms={state.terms}
                  selected={selected}
                  resetKey={state.key}
                  onSelect={setSelected}
                  onOpen={(i) => void openHit(state.hits.get(i) ?? null, 'open')}
                  ensureRow={ensureRow}
                />
              )}
              <footer className="kbd-hints">
                <span>
                  <kbd>↑</kbd>
                  <kbd>↓</kbd> {t('kbd.move')}
                </span>
                <span>
                  <kbd>↵</kbd> {t('kbd.open')}
                </span>
                <span>
                  <kbd>{modKey}</kbd>
                  <kbd>↵</kbd> {t('kbd.reveal')}
                </span>
                <span>
                  <kbd>{modKey}</kbd>
                  <kbd>C</kbd> {t('kbd.copy')}
                </span>
                <span>
                  <kbd>F3</kbd> {t('kbd.preview')}
                </span>
                <span>
                  <kbd>Esc</kbd> {t('kbd.clear')}
                </span>
              </footer>
            </section>
            {count > 0 ? (
              <PreviewPane
                ref={previewRef}
                hit={selectedHit}
                query={state.query}
                terms={state.terms}
                canReveal={data.info?.transport === 'electron' || data.info?.canOpenFiles === true}
                onOpen={(action) => void openHit(selectedHit, action)}
                onCopy={() => void copyPath(selectedHit)}
              />
            ) : null}
          </>
        ) : state.status === 'error' && state.error ? (
          <StatePanel
            tone="error"
            title={
              state.error.code === 'QUERY_SYNTAX'
                ? t('state.syntax.title')
                : state.error.code === 'ENGINE_UNAVAILABLE'
                  ? t('state.offline.title')
                  : t('state.error.title')
            }
            body={state.error.message}
            hint={state.error.code === 'QUERY_SYNTAX' ? t('state.syntax.body') : undefined}
            action={
              state.error.code === 'QUERY_SYNTAX'
                ? { label: t('search.help'), onClick: () => setHelpOpen(true), icon: <HelpIcon size={15} /> }
                : { label: t('state.retry'), onClick: reload }
            }
          />
        ) : data.sources !== null && sources.length === 0 && data.info?.daemon ? (
          <StatePanel
            icon={<FolderIcon size={28} />}
            title={t('state.daemonEmpty.title')}
            body={t('state.daemonEmpty.body')}
          />
        ) : data.sources !== null && sources.length === 0 ? (
          <StatePanel
            icon={<FolderIcon size={28} />}
            title={t('state.noSources.title')}
            body={t('state.noSources.body')}
            action={{
              label: t('state.noSources.action'),
              onClick: () => ui.navigate('sources', { addSource: true }),
              icon: <PlusIcon size={15} />,
              primary: true,
            }}
          />
        ) : data.status && documents === 0 && sources.length > 0 && !crawling && !data.info?.daemon ? (
          <StatePanel
            icon={<PlayIcon size={26} />}
            title={t('state.emptyIndex.title')}
            body={t('state.emptyIndex.body')}
            action={{
              label: t('state.emptyIndex.action'),
              onClick: () => void data.startCrawl(undefined, 'incremental'),
              primary: true,
            }}
          />
        ) : (
          <IdlePanel documents={documents} onExample={(q) => setQuery(q)} />
        )}
      </div>
    </div>
  );
}

function EmptyResults({ query }: { query: string }) {
  const { t } = useI18n();
  const word =
    query
      .trim()
      .split(/\s+/)[0]
      ?.replace(/[^\p{L}\p{N}]/gu, '') ?? '';
  return (
    <div className="state-panel state-panel--inline" data-testid="no-results">
      <SearchIcon size={26} className="state-panel__icon" />
      <h2>{t('state.empty.title', { q: query })}</h2>
      <p>
        {t('state.empty.body', {
          example: `${word.slice(0, Math.max(3, Math.ceil(word.length / 2))) || 'plan'}*`,
        })}
      </p>
    </div>
  );
}

interface StateAction {
  label: string;
  onClick(): void;
  icon?: ReactNode;
  primary?: boolean;
}

function StatePanel({
  title,
  body,
  hint,
  action,
  icon,
  tone,
}: {
  title: string;
  body: string;
  hint?: string;
  action?: StateAction;
  icon?: ReactNode;
  tone?: 'error';
}) {
  return (
    <div
      className={`state-panel${tone === 'error' ? ' state-panel--error' : ''}`}
      role={tone === 'error' ? 'alert' : undefined}
    >
      <div className="state-panel__icon">
        {icon ?? (tone === 'error' ? <AlertIcon size={28} /> : <SearchIcon size={28} />)}
      </div>
      <h2>{title}</h2>
      <p className={tone === 'error' ? 'state-panel__message' : undefined}>{body}</p>
      {hint ? <p className="muted">{hint}</p> : null}
      {action ? (
        <button
          type="button"
          className={`btn${action.primary ? ' btn--primary' : ''}`}
          onClick={action.onClick}
        >
          {action.icon}
          {action.label}
        </button>
      ) : null}
    </div>
  );
}

function IdlePanel({ documents, onExample }: { documents: number; onExample(q: string): void }) {
  const { t } = useI18n();
  const examples = ['"release notes"', 'ext:pdf invoice', 'modified:week', 'title:report -draft'];
  return (
    <div className="state-panel state-panel--idle" data-testid="idle">
      <div className="state-panel__icon">
        <SearchIcon size={28} />
      </div>
      <h2>{t('state.idle.title', { n: documents })}</h2>
      <p>{t('state.idle.body')}</p>
      <div className="idle-examples">
        {examples.map((q) => (
          <button key={q} type="button" className="code-chip" onClick={() => onExample(q)}>
            {q}
          </button>
        ))}
      </div>
    </div>
  );
}
