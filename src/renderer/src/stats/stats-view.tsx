/** Index statistics: totals, documents per source and per file type, last crawl results. */
import { useEffect, type ReactNode } from 'react';
import { useAppData } from '../app-data.js';
import { DatabaseIcon, AlertIcon, LayersIcon, FolderIcon } from '../components/icons.js';
import { FileBadge } from '../components/file-badge.js';
import { useI18n } from '../i18n/i18n.js';
import { formatDate, formatDuration, formatSize } from '../lib/format.js';
import { KindIcon } from '../sources/sources-view.js';

export function StatsView() {
  const data = useAppData();
  const { t, locale } = useI18n();
  const { refresh } = data;
  useEffect(() => {
    void refresh();
  }, [refresh]);
  const status = data.status;
  const sources = status?.sources ?? [];
  const byType = new Map<string, number>();
  for (const s of sources)
    for (const x of s.stats.byType) byType.set(x.ext, (byType.get(x.ext) ?? 0) + x.count);
  const types = [...byType.entries()].sort((a, b) => b[1] - a[1]).slice(0, 12);
  const maxType = types[0]?.[1] ?? 1;
  const failed = sources.reduce((n, s) => n + s.stats.failed, 0);
  // A trawl daemon does not tell users the size or place of its index.
  const viaDaemon = data.info?.daemon !== undefined;
  return (
    <div className="page">
      <header className="page-header">
        <div>
          <h1>{t('stats.title')}</h1>
          <p className="page-header__subtitle">{t('stats.subtitle')}</p>
        </div>
      </header>
      <div className="stat-tiles">
        <Tile
          icon={<DatabaseIcon size={18} />}
          label={t('stats.documents')}
          value={(status?.documents ?? 0).toLocaleString(locale)}
          testId="stat-documents"
        />
        {viaDaemon ? null : (
          <Tile
            icon={<LayersIcon size={18} />}
            label={t('stats.size')}
            value={formatSize(status?.indexBytes ?? 0, locale)}
          />
        )}
        <Tile icon={<FolderIcon size={18} />} label={t('stats.sources')} value={String(sources.length)} />
        <Tile
          icon={<AlertIcon size={18} />}
          label={t('stats.failed')}
          value={failed.toLocaleString(locale)}
          tone={failed > 0 ? 'bad' : undefined}
        />
      </div>
      <div className="stats-grid">
        <section className="card">
          <h2 className="card__title">{t('stats.bySource')}</h2>
          <table className="table">
            <thead>
              <tr>
                <th>{t('stats.source')}</th>
                <th className="num">{t('stats.documents')}</th>
                <th className="num">{t('activity.failedCount')}</th>
                <th>{t('stats.lastCrawl')}</th>
              </tr>
            </thead>
            <tbody>
              {sources.map((s) => {
                const last = s.stats.lastCrawl;
                return (
                  <tr key={s.id}>
                    <td>
                      <span className="table__source">
                        <KindIcon kind={s.kind} size={15} />
                        {s.name}
                      </span>
                    </td>
                    <td className="num">{s.stats.documents.toLocaleString(locale)}</td>
                    <td className="num">{s.stats.failed.toLocaleString(locale)}</td>
                    <td>
                      {last ? (
                        <span className="table__last">
                          <span className={`tag tag--${last.status}`}>
                            {t(`activity.${last.status === 'running' ? 'running' : last.status}`)}
                          </span>
                          <span className="muted">
                            {formatDate(last.startedAt, locale)}
                            {last.endedAt ? ` · ${formatDuration(last.endedAt - last.startedAt)}` : ''}
                          </span>
                        </span>
                      ) : (
                        <span className="muted">{t('activity.never')}</span>
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </section>
        <section className="card">
          <h2 className="card__title">{t('stats.byType')}</h2>
          <ul className="type-bars">
            {types.map(([ext, count]) => (
              <li key={ext || 'none'} className="type-bar">
                <FileBadge ext={ext} size="sm" />
                <span className="type-bar__label">{ext ? `.${ext}` : '—'}</span>
                <span className="type-bar__track">
                  <span
                    className="type-bar__fill"
                    style={{ width: `${Math.max(2, (count / maxType) * 100)}%` }}
                  />
                </span>
                <span className="type-bar__count">{count.toLocaleString(locale)}</span>
              </li>
            ))}
          </ul>
        </section>
      </div>
      {status && !viaDaemon ? (
        <p className="stats-foot muted">
          {t('stats.dataDir')}: <code>{status.dataDir}</code>
        </p>
      ) : null}
    </div>
  );
}

function Tile({
  icon,
  label,
  value,
  tone,
  testId,
}: {
  icon: ReactNode;
  label: string;
  value: string;
  tone?: 'bad';
  testId?: string;
}) {
  return (
    <div className={`tile${tone ? ` tile--${tone}` : ''}`}>
      <span className="tile__icon">{icon}</span>
      <span className="tile__label">{label}</span>
      <span className="tile__value" data-testid={testId}>
        {value}
      </span>
    </div>
  );
}
