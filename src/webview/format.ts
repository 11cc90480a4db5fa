/** Number, time and label formatting shared by the sidebar's templates. */

/** Local time of an ISO string: hours and minutes today, else date and time. */
export function localTime(iso: string | undefined): string {
  if (!iso) return '';
  const time = new Date(iso);
  if (Number.isNaN(time.getTime())) return '';
  const today = new Date().toDateString() === time.toDateString();
  return today
    ? time.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' })
    : time.toLocaleString([], { dateStyle: 'short', timeStyle: 'short' });
}

/** The divider's headline in plain words (see src/webview/shared/compaction-headline.ts). */
