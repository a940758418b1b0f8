/**
 * A crawl's progress: determinate (done / discovered) while the total is known, indeterminate
 * while discovery has not found anything yet, full when the crawl has ended.
 */
import type { CrawlProgress, CrawlRecord } from '../../../shared/contract.js';

/** The final progress of a finished crawl, from its record. */
export function progressFromRecord(record: CrawlRecord): CrawlProgress {
  const c = record.counts;
  return {
    crawlId: record.id,
    sourceId: record.sourceId,
    mode: record.mode,
    counts: c,
    done: c.added + c.updated + c.notModified + c.failed + c.excluded + c.deleted,
    currentItem: null,
    rate: 0,
    state: record.status,
  };
}

export function progressFraction(p: CrawlProgress | null): number | null {
  if (!p) return null;
  if (p.state !== 'running') return 1;
  if (p.counts.discovered <= 0) return null;
  return Math.min(1, p.done / p.counts.discovered);
}

export function ProgressBar({
  progress,
  compact = false,
  label,
  idle = false,
}: {
  progress: CrawlProgress | null;
  compact?: boolean;
  label?: string;
  /** Nothing running and nothing to show: an empty bar rather than an indeterminate one. */
  idle?: boolean;
}) {
  const fraction = idle ? 0 : progressFraction(progress);
  const state = idle ? 'idle' : (progress?.state ?? 'running');
  return (
    <span
      className={`progress${compact ? ' progress--compact' : ''} progress--${state}${fraction === null ? ' progress--indeterminate' : ''}`}
      role="progressbar"
      aria-label={label}
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={fraction === null ? undefined : Math.round(fraction * 100)}
      data-state={state}
    >
      <span
        className="progress__fill"
        style={{ width: fraction === null ? undefined : `${(fraction * 100).toFixed(1)}%` }}
      />
    </span>
  );
}
