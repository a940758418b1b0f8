/**
 * Crawl status: one card per source with its progress bar, counters, rate and current item, the
 * full/incremental/pause/resume/stop controls, and the crawl log of failed and excluded items.
 */
import { useCallback, useEffect, useState } from 'react';
import type { ContentSource, CrawlLogEntry, CrawlProgress, CrawlRecord } from '../../../shared/contract.js';
import { useApi } from '../api/api-context.js';
import { isCrawling, useAppData } from '../app-data.js';
import { AlertIcon, PauseIcon, PlayIcon, RefreshIcon, StopIcon } from '../components/icons.js';
import { ProgressBar, progressFromRecord } from '../components/progress-bar.js';
import { useI18n } from '../i18n/i18n.js';
import { formatDate, formatDateTime, formatDuration, shortenPath } from '../lib/format.js';
import { KindIcon } from '../sources/sources-view.js';

export function ActivityView() {
  const data = useAppData();
  const api = useApi();
  const { t } = useI18n();
  const sources = data.sources ?? [];
  const lastCrawls = new Map((data.status?.sources ?? []).map((s) => [s.id, s.stats.lastCrawl]));
  const anyRunning = sources.some((s) => isCrawling(data, s.id));
  return (
    <div className="page">
      <header className="page-header">
        <div>
          <h1>{t('activity.title')}</h1>
          <p className="page-header__subtitle">{t('activity.subtitle')}</p>
        </div>
        <div className="page-header__actions">
          <button
            type="button"
            className="btn"
            disabled={sources.length === 0}
            onClick={() => void data.startCrawl(undefined, 'full')}
          >
            <RefreshIcon size={15} />
            {t('activity.fullAll')}
          </button>
          <button
            type="button"
            className="btn btn--primary"
            disabled={sources.length === 0}
            onClick={() => void data.startCrawl(undefined, 'incremental')}
          >
            <PlayIcon size={14} />
            {t('activity.crawlAll')}
          </button>
          {anyRunning ? (
            <button type="button" className="btn btn--danger" onClick={() => void api.stopCrawl({})}>
              <StopIcon size={14} />
              {t('activity.stopAll')}
            </button>
          ) : null}
        </div>
      </header>
      {data.errors.length > 0 ? (
        <div className="banner banner--error" role="alert">
          <AlertIcon size={16} />
          {t('activity.error', { message: data.errors[data.errors.length - 1].message })}
        </div>
      ) : null}
      {sources.length === 0 ? <p className="muted">{t('activity.none')}</p> : null}
      <div className="crawl-cards">
        {sources.map((s) => (
          <CrawlCard
            key={s.id}
            source={s}
            progress={data.progress.get(s.id) ?? null}
            starting={data.starting.has(s.id)}
            last={data.lastFinished.get(s.id) ?? lastCrawls.get(s.id) ?? null}
          />
        ))}
      </div>
      <CrawlLog sources={sources} />
    </div>
  );
}

function CrawlCard({
  source,
  progress,
  starting,
  last,
}: {
  source: ContentSource;
  progress: CrawlProgress | null;
  starting: boolean;
  last: CrawlRecord | null;
}) {
  const data = useAppData();
  const api = useApi();
  const { t, locale } = useI18n();
  const live = progress?.state === 'running' ? progress : null;
  const running = starting || live !== null;
  const finished = running
    ? null
    : progress && progress.state !== 'running'
      ? progress
      : last && last.status !== 'running'
        ? progressFromRecord(last)
        : null;
  const shown = live ?? finished;
  const ended = finished?.state;
  const stateLabel =
    starting && !live
      ? t('activity.queued')
      : running
        ? t('activity.running')
        : source.paused
          ? t('activity.paused')
          : ended
            ? t(`activity.${ended}` as const)
            : t('activity.idle');
  const counts = shown?.counts ?? last?.counts ?? null;
  return (
    <section
      className={`crawl-card${running ? ' is-running' : ''}`}
      data-testid="crawl-card"
      data-source-id={source.id}
      aria-label={source.name}
    >
      <header className="crawl-card__header">
        <span className={`source-card__icon source-card__icon--${source.kind}`}>
          <KindIcon kind={source.kind} size={16} />
        </span>
        <div className="crawl-card__title">
          <h2>{source.name}</h2>
          <span className="crawl-card__address">{source.displayAddresses[0]}</span>
        </div>
        <span
          className={`status-dot status-dot--${running ? 'running' : source.paused ? 'paused' : (ended ?? 'idle')}`}
          data-testid="crawl-state"
        >
          {stateLabel}
        </span>
      </header>
      <div className="crawl-card__progress">
        <ProgressBar progress={shown} idle={!running && !shown} label={source.name} />
        <div className="crawl-card__numbers">
          {running ? (
            <>
              <span>
                {live
                  ? t('activity.progress', {
                      done: live.done,
                      discovered: Math.max(live.done, live.counts.discovered),
                    })
                  : t('activity.queued')}
              </span>
              {live ? <span>{t('activity.rate', { n: Math.round(live.rate * 10) / 10 })}</span> : null}
            </>
          ) : last ? (
            <>
              <span>
                {t('activity.lastRun', {
                  mode: t(`activity.mode.${last.mode}`),
                  when: formatDate(last.startedAt, locale),
                  duration: last.endedAt ? formatDuration(last.endedAt - last.startedAt) : '—',
                })}
              </span>
              {shown ? <span>{t('activity.items_other', { n: shown.done })}</span> : null}
            </>
          ) : (
            <span className="muted">{t('activity.never')}</span>
          )}
        </div>
        {running && progress?.currentItem ? (
          <div className="crawl-card__current" title={progress.currentItem}>
            {shortenPath(progress.currentItem, 96)}
          </div>
        ) : null}
        {!running && last?.error ? <div className="crawl-card__error">{last.error}</div> : null}
      </div>
      {counts ? (
        <dl className="counters">
          <Counter label={t('activity.discovered')} value={counts.discovered} />
          <Counter label={t('activity.added')} value={counts.added} tone="good" />
          <Counter label={t('activity.updated')} value={counts.updated} />
          <Counter label={t('activity.notModified')} value={counts.notModified} />
          <Counter label={t('activity.deleted')} value={counts.deleted} />
          <Counter label={t('activity.excluded')} value={counts.excluded} />
          <Counter
            label={t('activity.failedCount')}
            value={counts.failed}
            tone={counts.failed > 0 ? 'bad' : undefined}
          />
        </dl>
      ) : null}
      <footer className="crawl-card__actions">
        <button
          type="button"
          className="btn btn--sm"
          disabled={running}
          onClick={() => void data.startCrawl(source.id, 'incremental')}
        >
          <PlayIcon size={12} />
          {t('activity.incremental')}
        </button>
        <button
          type="button"
          className="btn btn--sm"
          disabled={running}
          onClick={() => void data.startCrawl(source.id, 'full')}
        >
          <RefreshIcon size={13} />
          {t('activity.full')}
        </button>
        <span className="crawl-card__spacer" />
        {source.paused ? (
          <button
            type="button"
            className="btn btn--sm"
            onClick={() =>
              void api.resume({ sourceId: source.id }).then(() => data.startCrawl(source.id, 'incremental'))
            }
          >
            <PlayIcon size={12} />
            {t('activity.resume')}
          </button>
        ) : (
          <button
            type="button"
            className="btn btn--sm"
            onClick={() => void api.pause({ sourceId: source.id })}
          >
            <PauseIcon size={13} />
            {t('activity.pause')}
          </button>
        )}
        <button
          type="button"
          className="btn btn--sm btn--danger-ghost"
          disabled={!running}
          onClick={() => void api.stopCrawl({ sourceId: source.id })}
        >
          <StopIcon size={12} />
          {t('activity.stop')}
        </button>
      </footer>
    </section>
  );
}

function Counter({ label, value, tone }: { label: string; value: number; tone?: 'good' | 'bad' }) {
  const { locale } = useI18n();
  return (
    <div className={`counter${tone ? ` counter--${tone}` : ''}`}>
      <dt>{label}</dt>
      <dd>{value.toLocaleString(locale)}</dd>
    </div>
  );
}

type LogFilter = 'all' | 'failed' | 'excluded';

function CrawlLog({ sources }: { sources: ContentSource[] }) {
  const api = useApi();
  const data = useAppData();
  const { t, locale } = useI18n();
  const [filter, setFilter] = useState<LogFilter>('all');
  const [sourceId, setSourceId] = useState<number | null>(null);
  const [entries, setEntries] = useState<CrawlLogEntry[] | null>(null);
  const names = new Map(sources.map((s) => [s.id, s.name]));

  const load = useCallback(async () => {
    try {
      const list = await api.log({
        ...(sourceId !== null ? { sourceId } : {}),
        failedOnly: filter === 'failed',
        limit: 500,
      });
      setEntries(list);
    } catch {
      setEntries([]);
    }
  }, [api, filter, sourceId]);

  useEffect(() => {
    void load();
  }, [load, data.lastFinished]);

  const shown = (entries ?? []).filter((e) => filter === 'all' || e.outcome === filter);
  return (
    <section className="card log" aria-label={t('log.title')}>
      <header className="log__header">
        <h2 className="card__title">{t('log.title')}</h2>
        <div className="segmented segmented--sm" role="tablist">
          {(['all', 'failed', 'excluded'] as LogFilter[]).map((f) => (
            <button
              type="button"
              role="tab"
              key={f}
              aria-selected={filter === f}
              className={`segmented__item${filter === f ? ' is-active' : ''}`}
              onClick={() => setFilter(f)}
            >
              {t(`log.${f}`)}
            </button>
          ))}
        </div>
        <select
          className="select"
          aria-label={t('filter.source')}
          value={sourceId ?? ''}
          onChange={(e) => setSourceId(e.target.value === '' ? null : Number(e.target.value))}
        >
          <option value="">{t('filter.allSources')}</option>
          {sources.map((s) => (
            <option key={s.id} value={s.id}>
              {s.name}
            </option>
          ))}
        </select>
        <button
          type="button"
          className="icon-btn"
          aria-label={t('log.refresh')}
          title={t('log.refresh')}
          onClick={() => void load()}
        >
          <RefreshIcon />
        </button>
      </header>
      {shown.length === 0 ? (
        <p className="muted log__empty">{t('log.empty')}</p>
      ) : (
        <div className="log__scroll">
          <table className="log__table">
            <thead>
              <tr>
                <th>{t('log.time')}</th>
                <th>{t('log.outcome')}</th>
                <th>{t('log.item')}</th>
                <th>{t('log.reason')}</th>
              </tr>
            </thead>
            <tbody>
              {shown.map((e) => (
                <tr key={e.id} data-testid="log-row">
                  <td className="log__time" title={formatDateTime(e.at, locale)}>
                    {formatDate(e.at, locale)}
                  </td>
                  <td>
                    <span className={`tag tag--${e.outcome}`}>{t(`outcome.${e.outcome}`)}</span>
                  </td>
                  <td className="log__item" title={e.url}>
                    {sourceId === null && names.size > 1 ? (
                      <span className="log__source">{names.get(e.sourceId)}</span>
                    ) : null}
                    {shortenPath(decodeUrl(e.url), 80)}
                  </td>
                  <td className="log__reason">{e.reason ?? ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

function decodeUrl(url: string): string {
  if (!url.startsWith('file://')) return url;
  try {
    return decodeURIComponent(new URL(url).pathname);
  } catch {
    return url;
  }
}
