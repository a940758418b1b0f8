/**
 * The searchable words of a URL or path, for the full-text index's `url` column.
 *
 * `file:///home/al/Quarterly%20Report_2024-final.pdf` →
 * `home al Quarterly Report 2024 final pdf`: the scheme is dropped (every document of a source
 * shares it), `%xx` escapes are decoded, the text is split on separators (`/ \ . _ - ? = & # : + ~`
 * and the like), words keep their order (so a `path:"docs reports"` phrase matches a folder
 * followed by a sub-folder) and the file name and extension stay searchable. Words written in
 * camelCase or with embedded digits (`QuarterlyReport`, `report2024`) are also added split at the
 * end, after the ordered words, so `report` finds `QuarterlyReport.docx`.
 *
 * Pure and deterministic. The result is plain text: callers feed it through `toIndexText` like every
 * other column (CJK file names become bigrams there).
 */
export function urlTerms(url: string): string {
  if (!url) return '';
  let s = url.replace(/^[a-z][a-z0-9+.-]*:(\/\/)?/i, (m) => (/^[a-z]:$/i.test(m) ? m : ' '));
  s = decodePercent(s);
  const words = s.split(/[^\p{L}\p{N}\p{M}]+/u).filter((w) => w.length > 0);
  const extra: string[] = [];
  for (const w of words) {
    const parts = splitCompound(w);
    if (parts.length > 1) extra.push(...parts);
  }
  return [...words, ...extra].join(' ');
}

/** Decode `%xx` escapes (UTF-8); malformed sequences are kept as they are. */
function decodePercent(s: string): string {
  if (!s.includes('%')) return s;
  try {
    return decodeURIComponent(s);
  } catch {
    return s.replace(/(?:%[0-9a-f]{2})+/gi, (seq) => {
      try {
        return decodeURIComponent(seq);
      } catch {
        return seq;
      }
    });
  }
}

/** `QuarterlyReport2024` → `Quarterly Report 2024`; `HTMLParser` → `HTML Parser`. */
function splitCompound(word: string): string[] {
  return word
    .replace(/(\p{Ll})(\p{Lu})/gu, '$1 $2')
    .replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, '$1 $2')
    .replace(/(\p{L})(\p{N})/gu, '$1 $2')
    .replace(/(\p{N})(\p{L})/gu, '$1 $2')
    .split(' ')
    .filter((p) => p.length > 0);
}
