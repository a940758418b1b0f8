/** Extracted text is capped at this many UTF-16 code units. */
export const MAX_TEXT_CHARS = 4_000_000;

// eslint-disable-next-line no-control-regex
const CONTROL_CHARS = /[\u0000-\u0008\u000e-\u001f\u007f\u200b\ufeff]/g;
// eslint-disable-next-line no-control-regex
const LINE_BREAKS = /\r\n?|[\u000b\u000c\u0085\u2028\u2029]/g;

/**
 * Normalises extracted text: control characters become spaces, every whitespace run becomes one
 * space, or one `\n` when the run holds a line break (paragraph breaks survive, blank lines and
 * indentation do not); leading/trailing whitespace is trimmed; the result is capped at `maxChars`
 * without splitting a surrogate pair.
 */
export function normalizeText(text: string, maxChars = MAX_TEXT_CHARS): string {
  // Whitespace runs shrink the text, so a slice somewhat over the cap keeps enough to fill it.
  let s = text.length > maxChars * 2 ? text.slice(0, maxChars * 2) : text;
  s = s
    .replace(CONTROL_CHARS, ' ')
    .replace(LINE_BREAKS, '\n')
    .replace(/[^\S\n]*\n\s*/g, '\n')
    .replace(/[^\S\n]{2,}|[^\S\n ]/g, ' ')
    .trim();
  return capText(s, maxChars);
}

/** Collapses all whitespace to single spaces (titles, property values). */
export function normalizeLine(text: string | undefined, maxChars = 4096): string | undefined {
  if (text === undefined) return undefined;
  // eslint-disable-next-line no-control-regex
  const s = capText(text.replace(/[\u0000-\u001f\u007f\ufeff\s]+/g, ' ').trim(), maxChars);
  return s || undefined;
}

function capText(s: string, maxChars: number): string {
  if (s.length <= maxChars) return s;
  const last = s.charCodeAt(maxChars - 1);
  return s.slice(0, last >= 0xd800 && last <= 0xdbff ? maxChars - 1 : maxChars);
}
