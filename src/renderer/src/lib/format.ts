/** Display formatting for sizes, dates, durations and long paths. */

export function formatSize(bytes: number, locale?: string): string {
  if (!Number.isFinite(bytes) || bytes < 0) return '—';
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  const digits = value >= 100 ? 0 : value >= 10 ? 1 : 1;
  return `${value.toLocaleString(locale, { maximumFractionDigits: digits })} ${units[unit]}`;
}

export function formatNumber(n: number, locale?: string): string {
  return n.toLocaleString(locale);
}

/** "14:05" today, "Mar 3" this year, "Mar 3, 2021" before. */
export function formatDate(ms: number, locale?: string, now = Date.now()): string {
  if (!ms) return '—';
  const d = new Date(ms);
  const today = new Date(now);
  if (d.toDateString() === today.toDateString()) {
    return d.toLocaleTimeString(locale, { hour: '2-digit', minute: '2-digit' });
  }
  if (d.getFullYear() === today.getFullYear())
    return d.toLocaleDateString(locale, { month: 'short', day: 'numeric' });
  return d.toLocaleDateString(locale, { year: 'numeric', month: 'short', day: 'numeric' });
}

export function formatDateTime(ms: number, locale?: string): string {
  if (!ms) return '—';
  return new Date(ms).toLocaleString(locale, {
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
  });
}

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(s < 10 ? 1 : 0)} s`;
  const m = Math.floor(s / 60);
  return `${m} min ${Math.round(s % 60)} s`;
}

/**
 * Shortens a path or URL for one line: keeps the scheme/host or first folder and as many trailing
 * segments as fit, replacing the middle with "…"; `~` for the home directory when known.
 */
export function shortenPath(full: string, max = 72, home?: string): string {
  let p = full;
  if (home && home.length > 1 && (p === home || p.startsWith(home + '/'))) p = '~' + p.slice(home.length);
  if (p.length <= max) return p;
  const url = /^([a-z][a-z0-9+.-]*:\/\/[^/]*)(\/.*)?$/i.exec(p);
  const sep = !url && p.includes('\\') && !p.includes('/') ? '\\' : '/';
  let head: string;
  let segs: string[];
  if (url) {
    head = url[1];
    segs = (url[2] ?? '').split('/').filter(Boolean);
  } else {
    const parts = p.split(sep);
    head = parts[0] === '' ? sep + (parts[1] ?? '') : parts[0];
    segs = parts.slice(parts[0] === '' ? 2 : 1);
  }
  if (segs.length === 0) return '…' + p.slice(-(max - 1));
  let tail = segs[segs.length - 1];
  for (let i = segs.length - 2; i >= 0; i--) {
    const candidate = segs[i] + sep + tail;
    if (head.length + 3 + candidate.length > max) break;
    tail = candidate;
  }
  const out = `${head}${sep}…${sep}${tail}`;
  return out.length <= max ? out : '…' + p.slice(-(max - 1));
}
