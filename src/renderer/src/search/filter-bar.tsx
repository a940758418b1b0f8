/** Source, file type and date filters and the sort order, as compact menus under the search box. */
import type { ContentSource, SortOrder } from '../../../shared/contract.js';
import { ClockIcon, FilterIcon, LayersIcon, SortIcon } from '../components/icons.js';
import { useI18n } from '../i18n/i18n.js';
import { FILTER_KINDS, type FileKind } from '../lib/file-kinds.js';

export type Period = 'any' | 'day' | 'week' | 'month' | 'year';

export interface Filters {
  sourceId: number | null;
  kind: Exclude<FileKind, 'other'> | null;
  period: Period;
  sort: SortOrder;
}

export const DEFAULT_FILTERS: Filters = { sourceId: null, kind: null, period: 'any', sort: 'relevance' };

const PERIOD_MS: Record<Exclude<Period, 'any'>, number> = {
  day: 86_400_000,
  week: 7 * 86_400_000,
  month: 30 * 86_400_000,
  year: 365 * 86_400_000,
};

/** The lower bound for a period, rounded to the minute so the request stays stable while typing. */
export function periodStart(period: Period, now = Date.now()): number | undefined {
  if (period === 'any') return undefined;
  return Math.floor((now - PERIOD_MS[period]) / 60_000) * 60_000;
}

export function FilterBar({
  filters,
  sources,
  onChange,
}: {
  filters: Filters;
  sources: ContentSource[];
  onChange(f: Filters): void;
}) {
  const { t } = useI18n();
  const active = filters.sourceId !== null || filters.kind !== null || filters.period !== 'any';
  return (
    <div className="filter-bar" role="toolbar" aria-label={t('filter.source')}>
      <label className={`pill${filters.sourceId !== null ? ' is-active' : ''}`}>
        <LayersIcon size={14} />
        <select
          aria-label={t('filter.source')}
          value={filters.sourceId ?? ''}
          onChange={(e) =>
            onChange({ ...filters, sourceId: e.target.value === '' ? null : Number(e.target.value) })
          }
        >
          <option value="">{t('filter.allSources')}</option>
          {sources.map((s) => (
            <option key={s.id} value={s.id}>
              {s.name}
            </option>
          ))}
        </select>
      </label>
      <label className={`pill${filters.kind !== null ? ' is-active' : ''}`}>
        <FilterIcon size={14} />
        <select
          aria-label={t('filter.type')}
          value={filters.kind ?? ''}
          onChange={(e) =>
            onChange({ ...filters, kind: e.target.value === '' ? null : (e.target.value as Filters['kind']) })
          }
        >
          <option value="">{t('filter.allTypes')}</option>
          {FILTER_KINDS.map((k) => (
            <option key={k} value={k}>
              {t(`kind.${k}`)}
            </option>
          ))}
        </select>
      </label>
      <label className={`pill${filters.period !== 'any' ? ' is-active' : ''}`}>
        <ClockIcon size={14} />
        <select
          aria-label={t('filter.modified')}
          value={filters.period}
          onChange={(e) => onChange({ ...filters, period: e.target.value as Period })}
        >
          <option value="any">{t('filter.anyTime')}</option>
          <option value="day">{t('filter.day')}</option>
          <option value="week">{t('filter.week')}</option>
          <option value="month">{t('filter.month')}</option>
          <option value="year">{t('filter.year')}</option>
        </select>
      </label>
      {active ? (
        <button
          type="button"
          className="link-btn"
          onClick={() => onChange({ ...DEFAULT_FILTERS, sort: filters.sort })}
        >
          {t('filter.reset')}
        </button>
      ) : null}
      <span className="filter-bar__spacer" />
      <label className="pill pill--plain">
        <SortIcon size={14} />
        <select
          aria-label={t('filter.sort')}
          value={filters.sort}
          onChange={(e) => onChange({ ...filters, sort: e.target.value as SortOrder })}
        >
          <option value="relevance">{t('sort.relevance')}</option>
          <option value="date">{t('sort.date')}</option>
          <option value="name">{t('sort.name')}</option>
        </select>
      </label>
    </div>
  );
}
