/**
 * The virtualized result list: only the visible rows exist in the DOM, so thousands of hits
 * scroll smoothly; rows whose page has not arrived yet show a placeholder and request it.
 * (Row positions use React style props, which React applies through CSSOM: allowed by the CSP's
 * `style-src 'self'`, unlike style attributes in markup.)
 */
import { useVirtualizer } from '@tanstack/react-virtual';
import { memo, useEffect, useRef } from 'react';
import type { SearchHit } from '../../../shared/contract.js';
import { FileBadge } from '../components/file-badge.js';
import { Segments, Snippet } from '../components/marked-text.js';
import { useI18n } from '../i18n/i18n.js';
import { formatDate, formatSize, shortenPath } from '../lib/format.js';
import { highlightTerms } from '../lib/marked-text.js';

export const ROW_HEIGHT = 86;

interface ResultListProps {
  count: number;
  hits: Map<number, SearchHit>;
  terms: string[];
  selected: number;
  /** Scrolls back to the top when it changes (a new query, not a re-run). */
  resetKey: string;
  onSelect(index: number): void;
  onOpen(index: number): void;
  ensureRow(index: number): void;
}

export function ResultList({
  count,
  hits,
  terms,
  selected,
  resetKey,
  onSelect,
  onOpen,
  ensureRow,
}: ResultListProps) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 8,
  });
  const items = virtualizer.getVirtualItems();

  useEffect(() => {
    for (const item of items) if (!hits.has(item.index)) ensureRow(item.index);
  }, [items, hits, ensureRow]);

  useEffect(() => {
    scrollRef.current?.scrollTo({ top: 0 });
  }, [resetKey]);

  useEffect(() => {
    if (selected >= 0 && selected < count) virtualizer.scrollToIndex(selected, { align: 'auto' });
  }, [selected, count, virtualizer]);

  return (
    <div
      ref={scrollRef}
      className="result-list"
      role="listbox"
      aria-label="Results"
      aria-activedescendant={selected >= 0 ? `result-${selected}` : undefined}
      tabIndex={-1}
    >
      <div className="result-list__spacer" style={{ height: virtualizer.getTotalSize() }}>
        {items.map((item) => (
          <ResultRow
            key={item.key}
            index={item.index}
            top={item.start}
            hit={hits.get(item.index)}
            terms={terms}
            selected={item.index === selected}
            onSelect={onSelect}
            onOpen={onOpen}
          />
        ))}
      </div>
    </div>
  );
}

interface RowProps {
  index: number;
  top: number;
  hit: SearchHit | undefined;
  terms: string[];
  selected: boolean;
  onSelect(index: number): void;
  onOpen(index: number): void;
}

const ResultRow = memo(function ResultRow({ index, top, hit, terms, selected, onSelect, onOpen }: RowProps) {
  const { locale, t } = useI18n();
  const position = { transform: `translateY(${top}px)` };
  if (!hit) {
    return (
      <div
        style={position}
        className="result-row result-row--placeholder"
        id={`result-${index}`}
        role="option"
        aria-selected={selected}
      >
        <span className="skeleton skeleton--badge" />
        <span className="result-row__body">
          <span className="skeleton skeleton--title" />
          <span className="skeleton skeleton--line" />
        </span>
      </div>
    );
  }
  const location = hit.path || hit.url;
  return (
    <div
      style={position}
      id={`result-${index}`}
      className={`result-row${selected ? ' is-selected' : ''}`}
      role="option"
      aria-selected={selected}
      data-testid="result-row"
      data-id={hit.id}
      onMouseDown={(e) => {
        e.preventDefault();
        onSelect(index);
      }}
      onDoubleClick={() => onOpen(index)}
    >
      <FileBadge ext={hit.ext} mime={hit.type} url={hit.url} />
      <span className="result-row__body">
        <span className="result-row__line">
          <span className="result-row__title">
            <Segments segments={highlightTerms(hit.title || location, terms)} />
          </span>
          {hit.partial ? <span className="tag tag--muted">{t('search.partial')}</span> : null}
          <span className="result-row__meta">{formatDate(hit.mtime, locale)}</span>
        </span>
        <span className="result-row__line">
          <span className="result-row__path" title={location}>
            {shortenPath(location, 90)}
          </span>
          <span className="result-row__meta">{formatSize(hit.size, locale)}</span>
        </span>
        <Snippet className="result-row__snippet" html={hit.snippet} />
      </span>
    </div>
  );
});
