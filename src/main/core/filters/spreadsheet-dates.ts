/**
 * Spreadsheet numbers shown as dates: which number formats are dates or times, and a date serial
 * (days since the workbook's epoch) as ISO 8601. Shared by the XLSX and XLS filters.
 */

/** Built-in number formats that are dates or times (ECMA-376 18.8.30, with the CJK ones). */
export const BUILTIN_DATE_FORMATS = new Set([
  14, 15, 16, 17, 18, 19, 20, 21, 22, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 45, 46, 47, 50, 51, 52, 53, 54,
  55, 56, 57, 58,
]);

/** Whether a custom format code shows a date or time (quoted text, escapes and [..] left out). */
export function isDateFormat(code: string): boolean {
  const bare = code.replace(/"[^"]*"|\\.|\[[^\]]*\]/g, '');
  return !/^general$/i.test(bare.trim()) && /[dmyhs]/i.test(bare.replace(/[eE][+-]/g, ''));
}

/** A date serial as ISO 8601: the date, and the time of day when it has one. */
export function serialDate(raw: string, date1904: boolean): string {
  const serial = Number(raw);
  if (!Number.isFinite(serial) || serial < 0 || serial > 2958465) return raw; // past 9999-12-31
  const epoch = date1904 ? Date.UTC(1904, 0, 1) : Date.UTC(1899, 11, 30);
  const ms = Math.round(serial * 86_400_000);
  const iso = new Date(epoch + ms).toISOString();
  if (serial >= 1 && ms % 86_400_000 === 0) return iso.slice(0, 10);
  return serial < 1 ? iso.slice(11, 16) : `${iso.slice(0, 10)} ${iso.slice(11, 16)}`;
}
