/**
 * Figures of one compacted context against the recording it came from: typed messages kept,
 * identifiers of the replaced span kept (by class) and the current-state items kept.
 */
import { actionsOf, type Action } from './actions';
import {
  CLASSES,
  commandKey,
  emptyIdentifiers,
  errorLines,
  fromAction,
  fromWrittenText,
  pathKey,
  type IdClass,
} from './identifiers';
import { contextText, keptIn, messageText, normalize, WordIndex, type Kept, type PlainMessage } from './text';
import type { TypedMessage } from './typed';

/** A kept/total pair. */
export interface Share {
  kept: number;
  total: number;
}

/** One current-state item and whether the context still holds it. */
export interface StateItem {
  item: 'latest request' | 'latest failure line' | 'latest command' | 'edited file';
  /** What was looked for (cut to 100 characters; a path, a command, a line, or the request's first words). */
  value: string;
  kept: boolean;
}

/** Everything measured on one context. */
export interface QualityFigures {
  /** Typed messages of the replaced span still in the context. */
  typedReplaced: Share;
  /** How the replaced ones were kept. */
  typedVerbatim: number;
  typedByWords: number;
  /** All typed messages of the recording still in the context (replaced or not). */
  typedAll: Share;
  /** Distinct identifiers of the replaced span, by class. */
  identifiers: Record<IdClass, Share>;
  state: StateItem[];
}

/** A searchable view of a context. */
class ContextView {
  readonly text: string;
  readonly normalized: string;
  readonly paths: string;
  readonly index: WordIndex;
  readonly names: Set<string>;
  constructor(messages: readonly PlainMessage[]) {
    this.text = contextText(messages);
    this.normalized = normalize(this.text);
    this.paths = pathKey(this.text);
    this.index = new WordIndex(this.text);
    this.names = new Set(this.text.match(/[\w$]+/g) ?? []);
  }
  keptText(t: string): Kept {
    return keptIn(t, this.normalized, this.index);
  }
  hasPath(p: string): boolean {
    if (this.paths.includes(p)) return true;
    // A summary may give a path relative to the workspace: the last two components suffice.
    const parts = p.split('/').filter(Boolean);
    return parts.length >= 2 && this.paths.includes(parts.slice(-2).join('/'));
  }
  has(c: IdClass, id: string): boolean {
    if (c === 'paths') return this.hasPath(id);
    if (c === 'symbols') return this.names.has(id);
    if (c === 'urls') return this.text.includes(id);
    return this.normalized.includes(id);
  }
}

/** The recording with its typed messages, actions and command outputs, read once. */
export interface Recording {
  entries: ReadonlyArray<{ id: string; message: PlainMessage }>;
  typed: TypedMessage[];
  actions: Action[];
}

export function recordingOf(
  entries: ReadonlyArray<{ id: string; message: PlainMessage }>,
  typed: TypedMessage[],
): Recording {
  return { entries, typed, actions: entries.flatMap((e, i) => actionsOf(i, e.message)) };
}

/**
 * The current-state items of the recording: the latest typed request, the first failure line of the
 * latest failed command (read from that command's output), the latest command and the last three
 * distinct edited files.
 */
export function stateItems(r: Recording): Array<Omit<StateItem, 'kept'> & { text?: string }> {
  const out: Array<Omit<StateItem, 'kept'> & { text?: string }> = [];
  const last = r.typed[r.typed.length - 1];
  if (last) out.push({ item: 'latest request', value: normalize(last.text).slice(0, 100), text: last.text });
  const failure = latestFailure(r);
  if (failure) out.push({ item: 'latest failure line', value: failure });
  const commands = r.actions.filter((a) => a.kind === 'command' && a.command);
  if (commands.length) out.push({ item: 'latest command', value: commandKey(commands[commands.length - 1].command!) });
  const files: string[] = [];
  for (const a of [...r.actions].reverse()) {
    if (a.kind !== 'edit' || !a.path) continue;
    const p = pathKey(a.path);
    if (!files.includes(p)) files.push(p);
    if (files.length === 3) break;
  }
  for (const f of files) out.push({ item: 'edited file', value: f });
  return out;
}

/**
 * Output of a command that failed: it states a non-zero exit, or reads as a failure from its first
 * lines' shape (a traceback, a shell's "not found", an `error:` line, a test runner's FAIL or
 * failure count). A file shown by `cat` that mentions FAILED or an exception class is not one.
 */
const FAILED_OUTPUT =
  /\bexit(?:ed)?(?: with)? (?:code|status):? ?-?[1-9]|\bExit code:? ?-?[1-9]|Traceback \(most recent call last\)|command not found|No such file or directory|npm ERR!|^\s*(?:error|Error|ERROR|fatal|FATAL)(?:\[\w+\])?:|^(?:FAIL|FAILED)\b|\b[1-9]\d* (?:failed|failing|errors?)\b/m;

/** First failure line of the latest failed command's output (see {@link FAILED_OUTPUT}) that has one. */
function latestFailure(r: Recording): string | undefined {
  const byCall = new Map(r.actions.filter((a) => a.callId).map((a) => [a.callId!, a]));
  const typedAt = new Set(r.typed.map((t) => t.index));
  let found: string | undefined;
  let lastCommandAt = -1;
  r.entries.forEach((e, i) => {
    const m = e.message as PlainMessage & { tool_call_id?: string };
    if (r.actions.some((a) => a.index === i && a.kind === 'command' && !a.callId)) lastCommandAt = i;
    let isOutput = false;
    if (m.role === 'tool') isOutput = byCall.get(m.tool_call_id ?? '')?.kind === 'command';
    // Formats without tool calls (SWE-agent) send the output of a text action as the next user message.
    else if (m.role === 'user' && !typedAt.has(i) && lastCommandAt === i - 1) isOutput = true;
    if (!isOutput) return;
    const text = messageText(m);
    if (!FAILED_OUTPUT.test(text)) return;
    const lines = errorLines(text);
    if (lines.length) found = lines[0];
  });
  return found;
}

/**
 * Measures `context` (the messages a model would be sent next) against the recording. `replaced`
 * holds the indexes of the entries the compaction(s) replaced: the typed messages counted are
 * theirs. The identifiers counted are those of `idReplaced` (default `replaced`): a compaction of an
 * imported session replaces a recorded summary, and the messages behind it were never in the
 * context it read (their typed requests were: the import keeps them beside the recorded summary).
 */
export function measure(
  r: Recording,
  replaced: ReadonlySet<number>,
  context: readonly PlainMessage[],
  idReplaced: ReadonlySet<number> = replaced,
): QualityFigures {
  const view = new ContextView(context);
  const f: QualityFigures = {
    typedReplaced: { kept: 0, total: 0 },
    typedVerbatim: 0,
    typedByWords: 0,
    typedAll: { kept: 0, total: 0 },
    identifiers: Object.fromEntries(CLASSES.map((c) => [c, { kept: 0, total: 0 }])) as Record<IdClass, Share>,
    state: [],
  };
  const typedByIndex = new Map<number, TypedMessage[]>();
  for (const t of r.typed) {
    const k = view.keptText(t.text);
    f.typedAll.total++;
    if (k !== 'no') f.typedAll.kept++;
    if (replaced.has(t.index)) {
      f.typedReplaced.total++;
      if (k !== 'no') f.typedReplaced.kept++;
      if (k === 'verbatim') f.typedVerbatim++;
      if (k === 'words') f.typedByWords++;
    }
    typedByIndex.set(t.index, [...(typedByIndex.get(t.index) ?? []), t]);
  }
  const ids = emptyIdentifiers();
  for (const i of idReplaced) {
    const m = r.entries[i]?.message;
    if (!m) continue;
    for (const t of typedByIndex.get(i) ?? []) fromWrittenText(t.text, ids);
    if (m.role === 'assistant') fromWrittenText(messageText(m), ids);
  }
  for (const a of r.actions) if (idReplaced.has(a.index)) fromAction(a, ids);
  for (const c of CLASSES) {
    for (const id of ids[c]) {
      f.identifiers[c].total++;
      if (view.has(c, id)) f.identifiers[c].kept++;
    }
  }
  for (const s of stateItems(r)) {
    const kept =
      s.item === 'latest request'
        ? view.keptText(s.text!) !== 'no'
        : s.item === 'edited file'
          ? view.hasPath(s.value)
          : view.normalized.includes(s.value);
    f.state.push({ item: s.item, value: s.value, kept });
  }
  return f;
}
