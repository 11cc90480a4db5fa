/**
 * Turns raw transcript entries into the sidebar's transcript lines, one entry at a time, so the host
 * can append lines as entries arrive instead of rebuilding the whole list. Pure: no `vscode` import.
 *
 * Texts are capped at {@link TEXT_CAP_CHARS} characters (a 40k-character tool result would otherwise
 * cost 40 KB per snapshot); the line then carries `fullLength` and the webview fetches the rest on
 * demand (see `expandItem` in protocol.ts).
 */
import { isCancelledReply } from '../../agent/cancelled-reply';
import type { Entry } from '../../compaction/types';
import type { TranscriptItemView } from '../../webview/shared/protocol';
import { parseJsonObject } from '../../format/json';
import { textWithPlaceholders } from '../../compaction/content-text';
import { userTextSpeaker } from '../../compaction/harness-text';

/** Longest text a transcript line carries, in characters. */
export const TEXT_CAP_CHARS = 1_500;
/** Longest tool-call argument preview, in characters. */
const ARGUMENTS_CAP_CHARS = 160;

/** Live facts the entries do not record: tools still running and the outcome of finished ones. */
/** Tool calls by call id (the latest step's) and tool results by entry id: the tool's name and the call's line id. */
export type ToolNames = Map<string, { name: string; lineId: string }>;

export interface ToolLiveState {
  /** Tool calls started and not finished, by line id ({@link toolCallLineId}). */
  running: ReadonlySet<string>;
  /** Outcome of finished tool calls by line id. */
  outcomes: ReadonlyMap<string, boolean>;
}

/** First line of `text`, cut to `max` characters. */
export function firstLine(text: string, max = 160): string {
  const line = text.trimStart().split('\n', 1)[0] ?? '';
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** `text` cut to the cap, with the full length when it was cut. */
export function capText(text: string, cap = TEXT_CAP_CHARS): { text: string; fullLength?: number } {
  return text.length > cap ? { text: text.slice(0, cap), fullLength: text.length } : { text };
}

/**
 * The line id of tool call `callId` of assistant entry `entryId`. Call ids repeat across steps
 * (servers that number calls per reply send `call_0` every time), so a line is keyed by both. The
 * `#call#` mark keeps it apart from entry ids built as `<entry>#<call id>` (placeholder results of
 * older imports): a line id shared with another entry's line would leave one of them unmarked when
 * a compaction replaces it.
 */
export function toolCallLineId(entryId: string, callId: string): string {
  return `${entryId}#call#${callId}`;
}

/**
 * The lines for one entry: a user line; an assistant line (when it has text) followed by one line per
 * function tool call; a tool-result line. System and developer messages give none. `toolNames` maps
 * call ids to the tool name and line id of the latest step's call (results, which follow their step,
 * look them up) and, once a result is seen, its entry id to the tool name.
 */
export function itemsForEntry(entry: Entry, toolNames: ToolNames, live: ToolLiveState): TranscriptItemView[] {
  const message = entry.message;
  const common = { entryId: entry.id, time: entry.meta?.timestamp };
  switch (message.role) {
    case 'user': {
      const text = textWithPlaceholders(message.content);
      const capped = capText(text);
      // Text a harness wrote (environment details, reminders) is shown as the harness's, never as "You";
      // a message mostly of a harness's text around the user's words names both.
      const speaker = userTextSpeaker(text, entry.meta?.harnessText === true);
      return [
        {
          kind: 'user',
          id: entry.id,
          ...common,
          text: capped.text,
          fullLength: capped.fullLength,
          ...(speaker ? { speaker } : {}),
        },
      ];
    }
    case 'assistant': {
      const items: TranscriptItemView[] = [];
      const text = textWithPlaceholders(message.content);
      if (text.trim().length > 0) {
        const capped = capText(text);
        // Flagged so the view marks it even when the marker at the text's end is past the cap.
        items.push({
          kind: 'assistant',
          id: entry.id,
          ...common,
          text: capped.text,
          fullLength: capped.fullLength,
          ...(isCancelledReply(text) ? { interrupted: true } : {}),
        });
      }
      for (const call of message.tool_calls ?? []) {
        if (call.type !== 'function') continue;
        const lineId = toolCallLineId(entry.id, call.id);
        toolNames.set(call.id, { name: call.function.name, lineId });
        items.push({
          kind: 'tool-call',
          id: lineId,
          ...common,
          name: call.function.name,
          argumentsPreview: firstLine(call.function.arguments, ARGUMENTS_CAP_CHARS),
          running: live.running.has(lineId) || undefined,
        });
      }
      return items;
    }
    case 'tool': {
      const text = textWithPlaceholders(message.content);
      const capped = capText(text);
      const call = toolNames.get(message.tool_call_id);
      if (call) toolNames.set(entry.id, { name: call.name, lineId: call.lineId });
      return [
        {
          kind: 'tool-result',
          id: entry.id,
          ...common,
          name: call?.name ?? 'tool',
          ok: (call && live.outcomes.get(call.lineId)) ?? entry.meta?.toolOk ?? guessOk(text),
          preview: capped.text,
          size: text.length,
          fullLength: capped.fullLength,
        },
      ];
    }
    default:
      return [];
  }
}

/** The full text behind a line (tool-call lines: the whole arguments); undefined for unknown ids. */
export function fullTextOf(entry: Entry, itemId: string): string | undefined {
  const message = entry.message;
  if (message.role === 'assistant' && itemId !== entry.id) {
    const call = message.tool_calls?.find((c) => toolCallLineId(entry.id, c.id) === itemId);
    return call && call.type === 'function' ? call.function.arguments : undefined;
  }
  return textWithPlaceholders(message.content);
}

/** A path-like argument of a tool call (`path`, `file`, `filePath`…), for lists of replaced messages. */
export function pathArgument(argumentsJson: string): string | undefined {
  // Arguments the model wrote are not always valid JSON; then there is simply no path to show.
  const parsed = parseJsonObject(argumentsJson);
  if (!parsed) return undefined;
  for (const key of ['path', 'file', 'filePath', 'file_path', 'filename', 'target']) {
    const value = parsed[key];
    if (typeof value === 'string' && value.length > 0) return value.slice(0, 200);
  }
  return undefined;
}

/**
 * Fallback only, for imported recordings whose format records no success flag (`EntryMeta.toolOk`
 * undefined): a result that opens with "Error" is taken as a failed call. Live calls and recordings
 * that carry the flag never reach this guess.
 */
function guessOk(text: string): boolean {
  return !/^error\b/i.test(text.trimStart());
}
