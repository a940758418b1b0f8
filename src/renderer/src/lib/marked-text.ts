/**
 * Turns the engine's snippets (HTML-escaped text in which hits are wrapped in `<mark>…</mark>`)
 * and preview hit ranges into plain segments. Nothing here ever produces markup: the UI renders the
 * segments as text nodes, so indexed content cannot inject elements or run script.
 */

export interface Segment {
  text: string;
  hit: boolean;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };

/** Decodes the entities an HTML escaper produces; anything else stays literal. */
export function unescapeHtml(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]{1,6}|#[0-9]{1,7}|[a-zA-Z]{2,6});/g, (whole, body: string) => {
    if (body[0] === '#') {
      const code =
        body[1] === 'x' || body[1] === 'X' ? parseInt(body.slice(2), 16) : parseInt(body.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[body] ?? whole;
  });
}

/**
 * Splits an escaped snippet on its `<mark>` tags. Only the exact tags `<mark>` and `</mark>` are
 * structure; every other character sequence is text (a stray `<b>` stays the literal text "<b>").
 */
export function parseMarkedSnippet(snippet: string): Segment[] {
  const segments: Segment[] = [];
  let hit = false;
  for (const part of snippet.split(/(<mark>|<\/mark>)/)) {
    if (part === '<mark>') hit = true;
    else if (part === '</mark>') hit = false;
    else if (part !== '') {
      const text = unescapeHtml(part);
      const last = segments[segments.length - 1];
      if (last && last.hit === hit) last.text += text;
      else segments.push({ text, hit });
    }
  }
  return segments;
}

/** Splits plain text on [start, end) hit ranges; unsorted, overlapping or touching ranges merge. */
export function splitByRanges(text: string, ranges: readonly (readonly [number, number])[]): Segment[] {
  const sorted = ranges
    .map(([s, e]) => [Math.max(0, Math.min(s, text.length)), Math.max(0, Math.min(e, text.length))] as const)
    .filter(([s, e]) => e > s)
    .sort((a, b) => a[0] - b[0]);
  const segments: Segment[] = [];
  let pos = 0;
  for (const [s, e] of sorted) {
    if (e <= pos) continue;
    const start = Math.max(s, pos);
    if (start > pos) segments.push({ text: text.slice(pos, start), hit: false });
    const last = segments[segments.length - 1];
    if (last?.hit && start === pos) last.text += text.slice(start, e);
    else segments.push({ text: text.slice(start, e), hit: true });
    pos = e;
  }
  if (pos < text.length) segments.push({ text: text.slice(pos), hit: false });
  return segments;
}

/** Marks case-insensitive occurrences of `terms` in plain text (for titles and paths). */
export function highlightTerms(text: string, terms: readonly string[]): Segment[] {
  const needles = [
    ...new Set(terms.map((t) => t.toLowerCase().replace(/\*$/, '')).filter((t) => t.length > 0)),
  ];
  if (needles.length === 0 || text === '') return text === '' ? [] : [{ text, hit: false }];
  const lower = text.toLowerCase();
  const ranges: [number, number][] = [];
  for (const needle of needles) {
    for (let i = lower.indexOf(needle); i !== -1; i = lower.indexOf(needle, i + needle.length)) {
      ranges.push([i, i + needle.length]);
    }
  }
  return lower.length === text.length ? splitByRanges(text, ranges) : [{ text, hit: false }];
}
