/**
 * The one time and number format of every surface a person reads (sidebar, status bar, documents,
 * notifications, pickers): `Intl` in one display locale, so a time reads the same in the webview and
 * in the editor ("16:34" everywhere, or "4:34 PM" everywhere, never both side by side). The extension
 * sets the locale to VS Code's display language at activation and the webview to the one its page
 * names; the command line keeps the default, `en-US`. Pure, and imports nothing: the webview bundle
 * uses it.
 */

/** The locale figures are written in until {@link setDisplayLocale} changes it. */
export const DEFAULT_DISPLAY_LOCALE = 'en-US';

let locale = DEFAULT_DISPLAY_LOCALE;
const cache = new Map<string, Intl.NumberFormat | Intl.DateTimeFormat>();

/**
 * Sets the display locale (a BCP 47 tag such as `de`, `en-GB`, `zh-cn`); an unknown or malformed tag
 * falls back to {@link DEFAULT_DISPLAY_LOCALE}. Returns the locale in use.
 */
export function setDisplayLocale(tag: string | undefined): string {
  let next = DEFAULT_DISPLAY_LOCALE;
  try {
    if (tag) next = Intl.getCanonicalLocales(tag)[0] ?? DEFAULT_DISPLAY_LOCALE;
  } catch {
    // RangeError: not a well-formed tag.
  }
  if (next !== locale) cache.clear();
  locale = next;
  return locale;
}

/** The display locale in use. */
export function displayLocale(): string {
  return locale;
}

function numberFormat(key: string, options: Intl.NumberFormatOptions): Intl.NumberFormat {
  let format = cache.get(key) as Intl.NumberFormat | undefined;
  if (!format) cache.set(key, (format = new Intl.NumberFormat(locale, options)));
  return format;
}

function dateFormat(key: string, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  let format = cache.get(key) as Intl.DateTimeFormat | undefined;
  if (!format) cache.set(key, (format = new Intl.DateTimeFormat(locale, options)));
  return format;
}

/** A whole number with the locale's grouping: 365,316 (en) or 365.316 (de). Rounds. */
export function formatInteger(n: number): string {
  return numberFormat('integer', { maximumFractionDigits: 0 }).format(Math.round(n));
}

/** `n` with exactly `digits` decimals and no grouping, in the locale's decimal sign: 11.9 (en), 11,9 (de). */
export function formatDecimal(n: number, digits: number): string {
  return numberFormat(`decimal-${digits}`, {
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
    useGrouping: false,
  }).format(n);
}

/** A time of `iso` (or a `Date`): the locale's short clock time, "16:34" or "4:34 PM". '' when invalid. */
export function formatClock(time: string | number | Date | undefined): string {
  const date = toDate(time);
  return date ? dateFormat('clock', { timeStyle: 'short' }).format(date) : '';
}

/** Date and time of `time`, short: "01/12/2026, 16:34" or "12/1/26, 4:34 PM". '' when invalid. */
export function formatDateTime(time: string | number | Date | undefined): string {
  const date = toDate(time);
  return date ? dateFormat('date-time', { dateStyle: 'short', timeStyle: 'short' }).format(date) : '';
}

/**
 * `time` as a list shows it: the clock time when it is today (by `now`), else date and time. The
 * same clock format as {@link formatDateTime}. '' when invalid.
 */
export function formatWhen(time: string | number | Date | undefined, now = new Date()): string {
  const date = toDate(time);
  if (!date) return '';
  return date.toDateString() === now.toDateString() ? formatClock(date) : formatDateTime(date);
}

function toDate(time: string | number | Date | undefined): Date | undefined {
  if (time === undefined || time === '') return undefined;
  const date = time instanceof Date ? time : new Date(time);
  return Number.isNaN(date.getTime()) ? undefined : date;
}
