import type { TranscriptItemView } from './protocol';

/**
 * How a transcript line looks, from its item alone. Pure, shared by the webview and tests.
 * A user-role line a harness wrote (`speaker` set: Cline's environment details, to-do reminders) is the
 * harness's, as its accessible label says: not the user's bold text and person icon, but muted text with
 * an environment icon, folded when long. A line a compaction replaced is dimmed (`compacted`).
 */
export interface LineLook {
  /** Classes of the line's `li`, beside `turn`. */
  classes: string[];
  /** The codicon's name, without `codicon-`. */
  icon: string;
  /** True when its text starts folded to its first line (a long harness text). */
  folded: boolean;
}

const ICONS: Record<TranscriptItemView['kind'], string> = {
  user: 'account',
  assistant: 'hubot',
  'tool-call': 'tools',
  'tool-result': 'output',
};

/** A harness's text longer than this many lines or characters starts folded. */
const FOLD_LINES = 3;
const FOLD_CHARS = 240;

/** The speaker `userTextSpeaker` gives a harness's text around the user's own words (kept open: they are the user's). */
const WITH_USER_WORDS = /, with your words$/;

/** True for a user-role line a harness wrote, in whole or around the user's words. */
export function isHarnessLine(item: TranscriptItemView): boolean {
  return item.kind === 'user' && item.speaker !== undefined;
}

/** The look of `item`'s line. O(length of its shown text). */
export function lineLook(item: TranscriptItemView): LineLook {
  const running = item.kind === 'tool-call' && item.running === true;
  const streaming = item.kind === 'assistant' && item.streaming === true;
  const harness = isHarnessLine(item);
  const kind = item.kind === 'tool-result' ? ['result', item.ok ? 'ok' : 'failed'] : [harness ? 'harness' : item.kind];
  const classes = [
    ...kind,
    ...(streaming ? ['streaming'] : []),
    ...(item.compactedBy ? ['compacted'] : []),
    ...(item.pinned ? ['pinned'] : []),
  ];
  const long =
    item.kind === 'user' &&
    (item.text.length > FOLD_CHARS || item.text.split('\n').length > FOLD_LINES || item.fullLength !== undefined);
  return {
    classes,
    icon: running ? 'loading codicon-modifier-spin' : harness ? 'server-environment' : ICONS[item.kind],
    folded: harness && long && !WITH_USER_WORDS.test(item.kind === 'user' ? (item.speaker ?? '') : ''),
  };
}

/** The first line of a folded text, as its fold's title shows it (at most `max` characters). */
export function foldTitle(text: string, max = 80): string {
  const first = text.trimStart().split('\n', 1)[0].trim();
  return first.length > max ? `${first.slice(0, max - 1)}…` : first;
}
