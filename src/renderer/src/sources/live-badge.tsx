/** A source's live state (watching, polling and why, paused, off) as a badge with its reason. */
import type { LiveSourceStatus } from '../../../shared/contract.js';
import { useI18n, type Translate } from '../i18n/i18n.js';

function label(live: LiveSourceStatus, t: Translate): string {
  switch (live.state) {
    case 'watching':
      return t('live.watching');
    case 'polling':
      return live.pollMinutes != null ? t('live.polling', { n: live.pollMinutes }) : t('live.pollingPlain');
    case 'unwatched':
      return t('live.unwatched');
    case 'paused':
      return t('live.paused');
    case 'starting':
      return t('live.starting');
    case 'off':
      return t('live.off');
  }
}

const TONE: Record<LiveSourceStatus['state'], string> = {
  watching: 'done',
  polling: 'warn',
  unwatched: 'muted',
  paused: 'warn',
  starting: 'muted',
  off: 'muted',
};

/** Renders nothing when the source has no live status (no background runner attached). */
export function LiveBadge({ live }: { live: LiveSourceStatus | undefined }) {
  const { t } = useI18n();
  if (!live) return null;
  return (
    <span className="live-state" title={t('live.label')}>
      <span className={`tag tag--${TONE[live.state]}`} data-live-state={live.state}>
        {label(live, t)}
      </span>
      {live.reason ? <span className="live-state__reason">{live.reason}</span> : null}
    </span>
  );
}
