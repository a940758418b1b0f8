/** The sources screen: the list of content sources, the add form and the selected source's editor. */
import { useEffect, useState } from 'react';
import type { ContentSource } from '../../../shared/contract.js';
import { isCrawling, useAppData } from '../app-data.js';
import { FolderIcon, GlobeIcon, PlusIcon, ServerIcon } from '../components/icons.js';
import { ProgressBar } from '../components/progress-bar.js';
import { useI18n } from '../i18n/i18n.js';
import { formatDate } from '../lib/format.js';
import { useUi } from '../ui-context.js';
import { AddSourceForm } from './add-source-form.js';
import { LiveBadge } from './live-badge.js';
import { SourceEditor } from './source-editor.js';

export function KindIcon({ kind, size = 18 }: { kind: ContentSource['kind']; size?: number }) {
  if (kind === 'smb') return <ServerIcon size={size} />;
  if (kind === 'http') return <GlobeIcon size={size} />;
  return <FolderIcon size={size} />;
}

export function SourcesView() {
  const data = useAppData();
  const ui = useUi();
  const { t, locale } = useI18n();
  const [adding, setAdding] = useState(ui.navOptions.addSource === true);
  const [selectedId, setSelectedId] = useState<number | null>(ui.navOptions.sourceId ?? null);
  const sources = data.sources ?? [];
  const stats = new Map((data.status?.sources ?? []).map((s) => [s.id, s.stats]));
  const live = new Map((data.live?.sources ?? []).map((s) => [s.sourceId, s]));

  useEffect(() => {
    if (ui.navOptions.addSource) setAdding(true);
    if (ui.navOptions.sourceId !== undefined) setSelectedId(ui.navOptions.sourceId);
  }, [ui.navOptions]);
  useEffect(() => {
    if (!adding && selectedId === null && sources.length > 0) setSelectedId(sources[0].id);
  }, [adding, selectedId, sources]);

  const selected = sources.find((s) => s.id === selectedId) ?? null;
  // Through a trawl daemon the list is read-only: its administrator manages sources.
  const viaDaemon = data.info?.daemon !== undefined;
  return (
    <div className="page">
      <header className="page-header">
        <div>
          <h1>{t('sources.title')}</h1>
          <p className="page-header__subtitle">
            {t(viaDaemon ? 'sources.daemonSubtitle' : 'sources.subtitle')}
          </p>
        </div>
        {viaDaemon ? null : (
          <button type="button" className="btn btn--primary" onClick={() => setAdding(true)}>
            <PlusIcon size={15} />
            {t('sources.add')}
          </button>
        )}
      </header>
      <div className="sources-layout">
        <ul className="source-list" aria-label={t('sources.title')}>
          {sources.length === 0 ? <li className="source-list__empty muted">{t('sources.none')}</li> : null}
          {sources.map((s) => {
            const st = stats.get(s.id);
            const progress = data.progress.get(s.id);
            const crawling = isCrawling(data, s.id);
            return (
              <li key={s.id}>
                <button
                  type="button"
                  className={`source-card${s.id === selectedId && !adding ? ' is-selected' : ''}`}
                  onClick={() => {
                    setAdding(false);
                    setSelectedId(s.id);
                  }}
                >
                  <span className={`source-card__icon source-card__icon--${s.kind}`}>
                    <KindIcon kind={s.kind} />
                  </span>
                  <span className="source-card__body">
                    <span className="source-card__name">
                      {s.name}
                      {s.paused && !live.has(s.id) ? (
                        <span className="tag tag--warn">{t('sources.paused')}</span>
                      ) : null}
                    </span>
                    <span className="source-card__address">{s.displayAddresses[0]}</span>
                    <LiveBadge live={live.get(s.id)} />
                    <span className="source-card__meta">
                      {t('sources.documents_other', { n: st?.documents ?? 0 })}
                      {' · '}
                      {st?.lastCrawl
                        ? t('sources.lastCrawl', { when: formatDate(st.lastCrawl.startedAt, locale) })
                        : t('sources.neverCrawled')}
                    </span>
                    {crawling ? <ProgressBar progress={progress ?? null} compact /> : null}
                  </span>
                </button>
              </li>
            );
          })}
        </ul>
        <div className="source-detail">
          {viaDaemon ? (
            <div className="card card--placeholder muted" data-testid="daemon-managed">
              {t('sources.daemonManaged')}
            </div>
          ) : adding ? (
            <AddSourceForm
              onCancel={() => setAdding(false)}
              onDone={(s) => {
                setAdding(false);
                setSelectedId(s.id);
              }}
            />
          ) : selected ? (
            <SourceEditor key={selected.id} source={selected} onRemoved={() => setSelectedId(null)} />
          ) : (
            <div className="card card--placeholder muted">{t('sources.select')}</div>
          )}
        </div>
      </div>
    </div>
  );
}
