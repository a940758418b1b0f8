/**
 * The preview pane: the document's extracted text as plain text nodes (never HTML), its hits
 * marked, with next/previous-hit navigation. Stale previews are dropped when the selection moves on.
 */
import { forwardRef, useCallback, useEffect, useImperativeHandle, useMemo, useRef, useState } from 'react';
import type { DocumentPreview, SearchHit } from '../../../shared/contract.js';
import { FileBadge } from '../components/file-badge.js';
import {
  ChevronDownIcon,
  ChevronUpIcon,
  CopyIcon,
  ExternalIcon,
  FolderOpenIcon,
} from '../components/icons.js';
import { Segments } from '../components/marked-text.js';
import { useApi } from '../api/api-context.js';
import { useI18n } from '../i18n/i18n.js';
import { formatDateTime, formatSize } from '../lib/format.js';
import { highlightTerms, splitByRanges } from '../lib/marked-text.js';

export interface PreviewHandle {
  nextHit(): void;
  prevHit(): void;
}

interface PreviewPaneProps {
  hit: SearchHit | null;
  query: string;
  terms: string[];
  canReveal: boolean;
  onOpen(action: 'open' | 'reveal'): void;
  onCopy(): void;
}

type Loaded = { id: number; query: string; preview: DocumentPreview | null; error?: string };

export const PreviewPane = forwardRef<PreviewHandle, PreviewPaneProps>(function PreviewPane(
  { hit, query, terms, canReveal, onOpen, onCopy },
  ref,
) {
  const api = useApi();
  const { t, locale } = useI18n();
  const [loaded, setLoaded] = useState<Loaded | null>(null);
  const bodyRef = useRef<HTMLDivElement>(null);
  const request = useRef(0);
  const id = hit?.id ?? null;

  useEffect(() => {
    if (id === null) return;
    const n = ++request.current;
    const timer = setTimeout(() => {
      api.preview({ id, query }).then(
        (preview) => {
          if (n === request.current) setLoaded({ id, query, preview });
        },
        (error: unknown) => {
          if (n === request.current) setLoaded({ id, query, preview: null, error: (error as Error).message });
        },
      );
    }, 60);
    return () => clearTimeout(timer);
  }, [api, id, query]);

  const preview = loaded && loaded.id === id ? loaded.preview : null;
  const segments = useMemo(() => (preview ? splitByRanges(preview.text, preview.hits) : []), [preview]);
  const hitCount = useMemo(() => segments.filter((s) => s.hit).length, [segments]);

  // A different document or query starts at its first hit; a re-fetch of the same one keeps the place.
  // The reset happens while rendering the new key (not in an effect, which could run after the
  // user's first step and undo it).
  const shownKey = preview ? `${id}|${query}` : null;
  const [pos, setPos] = useState<{ key: string | null; i: number }>({ key: null, i: 0 });
  if (pos.key !== shownKey) setPos({ key: shownKey, i: 0 });
  const current = pos.key === shownKey ? pos.i : 0;
  const scrollPending = useRef(false);
  useEffect(() => {
    scrollPending.current = true;
    bodyRef.current?.scrollTo({ top: 0 });
  }, [shownKey]);

  useEffect(() => {
    const marks = bodyRef.current?.querySelectorAll('mark');
    if (!marks || marks.length === 0) return;
    const i = Math.min(current, marks.length - 1);
    marks.forEach((m, j) => m.classList.toggle('is-current', j === i));
    if (scrollPending.current) {
      scrollPending.current = false;
      marks[i].scrollIntoView?.({ block: 'center' });
    }
  }, [segments, current]);

  const goTo = useCallback(
    (index: number) => {
      if (hitCount === 0) return;
      scrollPending.current = true;
      setPos({ key: shownKey, i: ((index % hitCount) + hitCount) % hitCount });
    },
    [hitCount, shownKey],
  );

  useImperativeHandle(ref, () => ({ nextHit: () => goTo(current + 1), prevHit: () => goTo(current - 1) }), [
    goTo,
    current,
  ]);

  if (!hit) {
    return (
      <aside className="preview preview--empty" aria-label={t('preview.title')}>
        <p className="muted">{t('preview.empty')}</p>
      </aside>
    );
  }
  const loading = !loaded || loaded.id !== id;
  const location = hit.path || hit.url;
  return (
    <aside className="preview" aria-label={t('preview.title')} data-testid="preview">
      <header className="preview__header">
        <FileBadge ext={hit.ext} mime={hit.type} url={hit.url} />
        <div className="preview__heading">
          <h2 className="preview__title">
            <Segments segments={highlightTerms(preview?.title || hit.title || location, terms)} />
          </h2>
          <div className="preview__path" title={location}>
            {location}
          </div>
        </div>
      </header>
      <div className="preview__actions">
        <button type="button" className="btn btn--primary btn--sm" onClick={() => onOpen('open')}>
          <ExternalIcon size={14} />
          {t('result.open')}
        </button>
        {canReveal ? (
          <button type="button" className="btn btn--sm" onClick={() => onOpen('reveal')}>
            <FolderOpenIcon size={14} />
            {t('result.reveal')}
          </button>
        ) : null}
        <button type="button" className="btn btn--sm" onClick={onCopy}>
          <CopyIcon size={14} />
          {t('result.copy')}
        </button>
      </div>
      <dl className="preview__meta">
        <div>
          <dt>{t('preview.type')}</dt>
          <dd>{(hit.ext || hit.type || '—').toUpperCase()}</dd>
        </div>
        <div>
          <dt>{t('preview.size')}</dt>
          <dd>{formatSize(hit.size, locale)}</dd>
        </div>
        <div>
          <dt>{t('preview.modified')}</dt>
          <dd>{formatDateTime(hit.mtime, locale)}</dd>
        </div>
        {preview?.author ? (
          <div>
            <dt>{t('preview.author')}</dt>
            <dd>{preview.author}</dd>
          </div>
        ) : null}
      </dl>
      <div className="preview__hitbar">
        <span className="preview__hitcount" aria-live="polite">
          {loading
            ? t('preview.loading')
            : hitCount > 0
              ? t('preview.hitOf', { i: current + 1, n: hitCount })
              : t('preview.noHits')}
        </span>
        <span className="preview__hitnav">
          <button
            type="button"
            className="icon-btn"
            onClick={() => goTo(current - 1)}
            disabled={hitCount === 0}
            aria-label={t('preview.prev')}
            title={`${t('preview.prev')} (Shift+F3)`}
          >
            <ChevronUpIcon />
          </button>
          <button
            type="button"
            className="icon-btn"
            onClick={() => goTo(current + 1)}
            disabled={hitCount === 0}
            aria-label={t('preview.next')}
            title={`${t('preview.next')} (F3)`}
          >
            <ChevronDownIcon />
          </button>
        </span>
      </div>
      <div className="preview__body" ref={bodyRef} data-testid="preview-text" tabIndex={0}>
        {!loading && !preview ? (
          <p className="muted">{loaded?.error ?? t('preview.gone')}</p>
        ) : (
          <pre className="preview__text">
            <Segments segments={segments} />
          </pre>
        )}
        {preview?.truncated ? <p className="preview__note">{t('preview.truncated')}</p> : null}
        {preview?.changedSinceIndexed ? <p className="preview__note">{t('preview.changed')}</p> : null}
      </div>
    </aside>
  );
});
