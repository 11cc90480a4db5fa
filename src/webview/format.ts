/** Number, time and label formatting shared by the sidebar's templates. */
import { formatWhen } from '../format/display.js';

/** Local time of an ISO string: the clock time today, else date and time (`formatWhen`). */
export function localTime(iso: string | undefined): string {
  return formatWhen(iso);
}

/** The divider's headline in plain words (see src/webview/shared/compaction-headline.ts). */
