/** Extracted text is capped at this many UTF-16 code units. */
export const MAX_TEXT_CHARS = 4_000_000;

/** How {@link normalizeText} sees a UTF-16 code unit. */
const enum Kind {
  Other = 0,
  /** Whitespace that does not break a line, and control characters (they become spaces). */
  Space = 1,
  /** A line break: `\n`, `\r`, VT, FF, NEL, U+2028, U+2029. */
  Break = 2,
}

function kindOf(c: number): Kind {
  if (c > 0x20) {
    if (c < 0x7f) return Kind.Other;
    if (c === 0x7f || c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200b)) return Kind.Space;
    if (c === 0x85 || c === 0x2028 || c === 0x2029) return Kind.Break;
    if (c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff) return Kind.Space;
    return Kind.Other;
  }
  return c === 0x0a || c === 0x0d || c === 0x0b || c === 0x0c ? Kind.Break : Kind.Space;
}

/**
 * Normalises extracted text: control characters become spaces, every whitespace run becomes one
 * space, or one `\n` when the run holds a line break (paragraph breaks survive, blank lines and
 * indentation do not); leading/trailing whitespace is trimmed; the result is capped at `maxChars`
 * without splitting a surrogate pair.
 */
export function normalizeText(text: string, maxChars = MAX_TEXT_CHARS): string {
  // Whitespace runs shrink the text, so a slice somewhat over the cap keeps enough to fill it.
  const s = text.length > maxChars * 2 ? text.slice(0, maxChars * 2) : text;
  // One pass: text between whitespace runs is copied in slices; a run that is already a single
  // space between two other characters (most of them) is left inside the slice.
  const parts: string[] = [];
  const n = s.length;
  let i = 0;
  while (i < n && kindOf(s.charCodeAt(i)) !== Kind.Other) i++;
  let from = i; // start of the pending slice
  while (i < n) {
    const k = kindOf(s.charCodeAt(i));
    if (k === Kind.Other) {
      i++;
      continue;
    }
    const runStart = i;
    let brk = k === Kind.Break;
    i++;
    while (i < n) {
      const k2 = kindOf(s.charCodeAt(i));
      if (k2 === Kind.Other) break;
      if (k2 === Kind.Break) brk = true;
      i++;
    }
    if (i === n) {
      parts.push(s.slice(from, runStart));
      from = n;
      break;
    }
    if (!brk && i - runStart === 1 && s.charCodeAt(runStart) === 0x20) continue;
    parts.push(s.slice(from, runStart), brk ? '\n' : ' ');
    from = i;
  }
  if (from < n) parts.push(s.slice(from, n));
  return capText(parts.length === 1 ? parts[0] : parts.join(''), maxChars);
}

/** Collapses all whitespace to single spaces (titles, property values). */
export function normalizeLine(text: string | undefined, maxChars = 4096): string | undefined {
  if (text === undefined) return undefined;
  // eslint-disable-next-line no-control-regex
  const s = capText(text.replace(/[\u0000-\u001f\u007f\ufeff\s]+/g, ' ').trim(), maxChars);
  return s || undefined;
}

/**
 * Property values (keywords, names) without blanks or repeats: trimmed (trailing NULs of fixed-size
 * tag fields too), the first spelling of each kept (compared in any case), in order.
 */
export function distinctValues(xs: readonly (string | undefined)[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const x of xs) {
    const v = x?.replace(/\0+$/, '').trim();
    if (!v || seen.has(v.toLowerCase())) continue;
    seen.add(v.toLowerCase());
    out.push(v);
  }
  return out;
}

function capText(s: string, maxChars: number): string {
  if (s.length <= maxChars) return s;
  const last = s.charCodeAt(maxChars - 1);
  return s.slice(0, last >= 0xd800 && last <= 0xdbff ? maxChars - 1 : maxChars);
}
