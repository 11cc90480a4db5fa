/**
 * A checkpoint's retention scorecard: what the text a compaction wrote keeps of the span it replaced,
 * by the quality benchmark's gold-set rules (see index.ts) and presence rules (presence.ts), from
 * nothing but the checkpoint (its replaced and inserted items). Pure; shares no code with the
 * summary writer, so it judges the writer rather than repeating it.
 */
import type { Checkpoint, ContextItem, RetentionScorecard } from '../types';
import { textWithPlaceholders } from '../content-text';
import { recordedToolOutcome } from '../tool-outcomes';
import { agentCalls, type RetentionEntry } from './calls';
import { codeNames } from './code-names';
import { COMMAND_KEY_CHARS, errorSignatures, neverFailedCommands, type ErrorSignature } from './errors';
import { holdsSecretValue, maskSecretValues, maskValues, sameMasking, spanSecretValues } from '../secret-values';
import { maskSecrets } from '../secrets';
import { spanFiles } from './files';
import { spanCommits } from './commits';
import { spanEnvironment } from './environment';
import { collapsedRecordWords, typedRequests, type TypedRequest } from './requests';
import { leftWhenTurnEnded } from '../earlier-turn';
import { earlierHeld, isLeftOutLine } from './earlier';
import { containsAtWordBounds, errorNamedIn, expandRoots, falseOpens, hasPathIn, normalize, slashed } from './presence';
import { MessageMemo, messageMemosKept } from '../message-memo';
import { changedFilesText, failingText, RequestPresentations } from './presented';
import { withoutHandLines } from '../summary/hand-lines';

/** Most names listed per kind of what was left out (see `RetentionScorecard.missing`). */
export const SCORECARD_NAMES = 8;

export type { RetentionScorecard };

/** Longest request quoted in a list of what was left out, in characters. */
const REQUEST_NAME_CHARS = 80;

/** `name` as listed ({@link shownName}) added to `list` while it holds fewer than {@link SCORECARD_NAMES}; a full list takes none, so none is masked for nothing. */
function pushShown(list: string[], name: string, secrets: readonly string[]): void {
  if (list.length < SCORECARD_NAMES) list.push(shownName(name, secrets));
}

function requestName(text: string): string {
  const n = normalize(text);
  return n.length > REQUEST_NAME_CHARS ? clipAtWord(n, REQUEST_NAME_CHARS - 1) : n;
}

/**
 * `text` cut to at most `chars` characters at its last space within them, then "…": a name is never
 * cut mid-word (nor a credential mid-value, where masking would no longer recognise it).
 */
export function clipAtWord(text: string, chars: number): string {
  const head = text.slice(0, chars + 1);
  const space = head.search(/\s\S*$/);
  return `${(space > 0 ? head.slice(0, space) : head.slice(0, chars)).trimEnd()}…`;
}

/**
 * A name as the scorecard lists it: a command key cut at its limit clipped at a word, then masked
 * like the summary is (`secrets`: the span's secret values, see `secret-values.ts`), so the
 * scorecard never shows a credential the summary masks.
 */
function shownName(name: string, secrets: readonly string[]): string {
  const clipped = name.length >= COMMAND_KEY_CHARS ? clipAtWord(name, COMMAND_KEY_CHARS - 2) : name;
  return maskSecretValues(clipped, secrets);
}

/**
 * The scorecard of `checkpoint` as it stands in `items`, the context it was prepared on: the items
 * after its last replaced item are the `after` of {@link retentionScorecard}, the same inputs the
 * summary was written with (`SummaryRequest.context`). Every scorecard of a compaction, proposed or
 * edited by hand, is computed here, so an edited summary is judged by the same rules as the
 * proposed one. Undefined as {@link retentionScorecard} is. O(items) to find the span's end.
 * `knownSecrets`: secret values of messages outside the span, masked as the summary masks them.
 */
export function scorecardInContext(
  checkpoint: Pick<Checkpoint, 'replaced' | 'inserted'>,
  items: readonly ContextItem[],
  knownSecrets?: readonly string[],
): RetentionScorecard | undefined {
  const last = checkpoint.replaced.at(-1);
  const end = last === undefined ? -1 : items.lastIndexOf(last);
  return retentionScorecard(checkpoint, end >= 0 ? items.slice(end + 1) : [], knownSecrets);
}

/**
 * The scorecard of `checkpoint`: gold sets from its replaced items (each tool result with its
 * recorded success flag), errors labelled at the end of the span; presence in the text of its
 * inserted items. An earlier summary in the span (a recording agent's or the product's own) is
 * content to keep: the requests it stands for or quotes are typed requests of the span, and the
 * files and commits it names are scored as `earlier` (see `earlier.ts`). Cost: linear in the span for the gold sets (the benchmark's rules),
 * plus one word index of the inserted text. Undefined when the span holds nothing to score
 * (a span of tool results alone, collapsed).
 *
 * `after`: the items that stay after the span in the context (the newest steps, the latest request),
 * as the summary that was written read them: a failure of the span that a later run there resolved
 * is resolved here too, by the same rule ({@link errorSignatures}, `LaterSuccesses`), so the scorecard
 * and the summary's "Errors and fixes" count the same failures open and resolved.
 * `knownSecrets`: secret values of messages outside the span (`CompactionOptions.knownSecretValues`),
 * never listed as names and masked where a listed text holds them, as in the summary.
 */
export function retentionScorecard(
  checkpoint: Pick<Checkpoint, 'replaced' | 'inserted'>,
  after: readonly ContextItem[] = [],
  knownSecrets: readonly string[] = [],
): RetentionScorecard | undefined {
  const entries = entriesOf(checkpoint.replaced);
  const carried: string[] = [];
  const held = new Set<string>();
  for (const it of checkpoint.replaced) {
    if (it.kind !== 'summary') continue;
    // The requests a summary keeps beside its text are its span's whole; its text may show them shortened.
    for (const r of it.requests ?? []) if (!isLeftOutLine(r)) carried.push(r);
    // A file re-attached after a summary is a copy of the workspace, not an earlier summary.
    if (it.attachedFile !== undefined) continue;
    const earlier = earlierHeld(withoutHandLines(textWithPlaceholders(it.message.content), it));
    if (it.requests === undefined) for (const r of earlier.requests) carried.push(r);
    for (const name of earlier.names) held.add(name);
  }
  const n = entries.length;
  // Each typed request with its message (the facts of a message's request are kept per message).
  const typed = new Map<string, object | undefined>();
  for (const text of carried) if (!typed.has(text)) typed.set(text, undefined);
  const spanTyped = spanTypedRequests(entries);
  for (const t of spanTyped) if (!typed.has(t.text)) typed.set(t.text, entries[t.index].message);
  // The agent's calls are read once for every set.
  const calls = agentCalls(entries);
  const files = spanFiles(entries, 0, n, calls);
  const read = files.read;
  const { errors, neverFailed } = spanErrors(entries, calls, after);
  // The span's secret values: no names to keep, masked in every name listed.
  // Values of messages outside the span too (`CompactionOptions.knownSecretValues`): the summary masks them.
  const own = spanSecretValues(checkpoint.replaced);
  const secrets = knownSecrets.length
    ? [...new Set([...own, ...knownSecrets])].sort((a, b) => b.length - a.length)
    : own;
  const names = codeNames(entries, 0, n, calls).filter((name) => !holdsSecretValue(name, secrets));
  const commits = spanCommits(entries, calls, 0, n);
  const environment = spanEnvironment(calls);
  if (
    typed.size +
      files.modified.size +
      read.length +
      errors.length +
      names.length +
      held.size +
      commits.length +
      environment.length ===
    0
  )
    return undefined;

  const text = expandRoots(writtenText(checkpoint.inserted));
  const pathText = slashed(text);
  const missing: RetentionScorecard['missing'] = {
    requests: [],
    filesChanged: [],
    openErrors: [],
    shownOpen: [],
    identifiers: [],
    neverFailed: [],
    earlier: [],
  };

  const requests = scoreRequests(
    typed,
    new RequestPresentations(text, [...recordWords(checkpoint.inserted), ...clippedRequests(checkpoint.inserted)]),
    missing.requests,
    secrets,
  );
  const pushBounded = (list: string[], name: string) => pushShown(list, name, secrets);

  const changedNamed = countChangedNamed(files.modified.keys(), text, (p) => pushBounded(missing.filesChanged, p));
  const readNamed = read.filter((p) => hasPathIn(pathText, p)).length;

  const latestRequestAt = spanTyped.length ? spanTyped[spanTyped.length - 1].index : -1;
  const later = after.length > 0 && typedRequests(entriesOf(after, false)).length > 0;
  const named = namedAsFailing(text);
  const unresolved = scoreUnresolved(errors, latestRequestAt, later, named, missing, pushBounded);
  const fo = falseOpens(text, errors, neverFailed);
  for (const e of fo.resolvedShownOpen) pushBounded(missing.shownOpen, e.key || e.line);
  for (const c of fo.neverFailedShown) pushBounded(missing.neverFailed!, c);

  let heldKept = 0;
  for (const name of held) {
    if (hasPathIn(pathText, name) || containsAtWordBounds(pathText, name)) heldKept++;
    else pushBounded(missing.earlier!, name);
  }

  const present = new Set(text.match(/[\w$]+/g) ?? []);
  let kept = 0;
  for (const name of names) {
    if (present.has(name)) kept++;
    else pushBounded(missing.identifiers, name);
  }

  return {
    requests,
    filesChanged: { total: files.modified.size, named: changedNamed },
    filesRead: { total: read.length, named: readNamed },
    errors: {
      ...unresolved,
      resolved: errors.length - unresolved.open - (unresolved.earlierTurn ?? 0),
      shownOpen: fo.falseOpen,
    },
    neverFailedShownFailing: fo.neverFailedShownFailing,
    identifiers: { total: names.length, kept },
    ...(held.size ? { earlier: { total: held.size, kept: heldKept, ...commitIds(held) } } : {}),
    ...commitsPart(commits, present, missing),
    ...environmentPart(environment, text, missing, pushBounded),
    missing,
  };
}

/**
 * The card's environment part: how many of the span's `subjects` (`environment.ts`) `text` names,
 * the others added to `missing.environment` by `push`; nothing when the span has none.
 */
function environmentPart(
  subjects: readonly string[],
  text: string,
  missing: RetentionScorecard['missing'],
  push: (list: string[], name: string) => void,
): Pick<RetentionScorecard, 'environment'> {
  if (subjects.length === 0) return {};
  let named = 0;
  for (const subject of subjects) {
    if (containsAtWordBounds(text, subject)) named++;
    else push((missing.environment ??= []), subject);
  }
  return { environment: { total: subjects.length, named } };
}

/**
 * Whether `text` names an open failure where it presents it as failing or open (`failingText`,
 * presented.ts), not where its command is a bare mention (a line calling the work done, a list of
 * identifiers).
 */
function namedAsFailing(text: string): (e: ErrorSignature) => boolean {
  const failing = failingText(text);
  const normalized = normalize(failing);
  return (e) => errorNamedIn(e, failing, normalized);
}

/**
 * How many of the files `changed` the text presents as changed (`changedFilesText`, presented.ts: a
 * files-changed section, a line saying it was created or edited), not where a path is a bare name
 * among identifiers; each one not named goes to `unnamed`.
 */
function countChangedNamed(changed: Iterable<string>, text: string, unnamed: (path: string) => void): number {
  const changedText = slashed(changedFilesText(text));
  let named = 0;
  for (const p of changed) {
    if (hasPathIn(changedText, p)) named++;
    else unnamed(p);
  }
  return named;
}

/**
 * The failures still unresolved at the end of the span, split by the summary's rule (one rule:
 * earlier-turn.ts): open work of the latest request, and those left when an earlier turn ended
 * (a request was typed after their last failing run, `latestRequestAt` in the span or `typedAfter`
 * it). Counts each and how many `named` finds in the text; the unnamed go to `missing`, through
 * `pushBounded` (which masks and bounds them).
 */
function scoreUnresolved(
  errors: readonly ErrorSignature[],
  latestRequestAt: number,
  typedAfter: boolean,
  named: (e: ErrorSignature) => boolean,
  missing: RetentionScorecard['missing'],
  pushBounded: (list: string[], name: string) => void,
): Pick<RetentionScorecard['errors'], 'open' | 'openNamed' | 'earlierTurn' | 'earlierTurnNamed'> {
  let open = 0;
  let openNamed = 0;
  let left = 0;
  let leftNamed = 0;
  const leftMissing: string[] = [];
  for (const e of errors) {
    if (e.state !== 'open') continue;
    const earlier = leftWhenTurnEnded(e.index, latestRequestAt, typedAfter);
    if (earlier) left++;
    else open++;
    if (named(e)) {
      if (earlier) leftNamed++;
      else openNamed++;
    } else pushBounded(earlier ? leftMissing : missing.openErrors, e.key || e.line);
  }
  if (left) missing.earlierTurnErrors = leftMissing;
  return { open, openNamed, ...(left ? { earlierTurn: left, earlierTurnNamed: leftNamed } : {}) };
}

/** `{ commits: n }` when `n` of `names` are commit ids, else nothing. */
function commitIds(names: Iterable<string>): { commits?: number } {
  let n = 0;
  for (const name of names) if (/^[0-9a-f]{7,40}$/.test(name)) n++;
  return n ? { commits: n } : {};
}

/**
 * The scorecard's count of the span's `commits` the text names (`present`: the text's words), with
 * those it does not added to `missing.commits`; nothing when the span made no commit.
 */
function commitsPart(
  commits: readonly string[],
  present: ReadonlySet<string>,
  missing: RetentionScorecard['missing'],
): Pick<RetentionScorecard, 'commits'> {
  if (!commits.length) return {};
  const absent = commits.filter((id) => !present.has(id));
  missing.commits = absent.slice(0, SCORECARD_NAMES);
  return { commits: { total: commits.length, named: commits.length - absent.length } };
}

/**
 * `typedRequests(entries)`, continuing the reading of the span scored last when `entries` starts
 * with its messages (with the same harness marks): a message is read for a typed request once per
 * span, not at every compaction of a growing conversation. Each message's request depends on that
 * message alone (`requests.ts`), so the requests of the messages read before stand. The returned
 * list is changed by the next call: read it first.
 */
function spanTypedRequests(entries: readonly RetentionEntry[]): readonly TypedRequest[] {
  const n = entries.length;
  // A process that compacts once never scores a grown span: nothing is kept for one.
  if (!messageMemosKept()) keptTyped = undefined;
  if (n < KEEP_FROM || !messageMemosKept()) return typedRequests(entries, 0, n);
  let k = keptTyped;
  let from = k && k.messages.length <= n ? k.messages.length : -1;
  for (let i = 0; i < from; i++)
    if (k!.messages[i] !== entries[i].message || k!.harness[i] !== entries[i].meta?.harnessText) from = -1;
  if (!k || from < 0) {
    k = keptTyped = { messages: [], harness: [], typed: [] };
    from = 0;
  }
  for (let i = from; i < n; i++) {
    k.messages.push(entries[i].message);
    k.harness.push(entries[i].meta?.harnessText);
  }
  for (const t of typedRequests(entries, from, n)) k.typed.push(t);
  return k.typed;
}

/** Spans shorter than this are read whole (cheap), so they do not push a long span's reading out. */
const KEEP_FROM = 256;

/** The messages of the span scored last (with their harness marks) and its typed requests. */
let keptTyped: { messages: object[]; harness: Array<boolean | undefined>; typed: TypedRequest[] } | undefined;

/**
 * How the typed requests (text → its message, when one) survived in the written text: whole, shortened
 * or left out, where it presents them as requests (`shown`, presented.ts: an item that is
 * the request, or one with the summary's cut mark whose kept parts are the request's; each item given
 * to one request), so the counts are the ones the summary's requests section states and a sentence
 * another request or a tool call repeats keeps nothing. Each request is looked for masked as the
 * summary masks it (`secrets`: the span's secret values). The first {@link SCORECARD_NAMES} not kept
 * whole go to `names`, masked.
 */
function scoreRequests(
  typed: ReadonlyMap<string, object | undefined>,
  shown: RequestPresentations,
  names: string[],
  secrets: readonly string[],
): RetentionScorecard['requests'] {
  const requests = { total: typed.size, whole: 0, shortened: 0, leftOut: 0 };
  for (const [t, message] of typed) {
    const kept = shown.keep(normalizedRequest(t, message, secrets));
    if (kept === 'whole') {
      requests.whole++;
      continue;
    }
    if (kept === 'shortened') requests.shortened++;
    else requests.leftOut++;
    // Named lazily: most requests left out are never listed.
    if (names.length < SCORECARD_NAMES)
      names.push(maskSecretValues(`${kept === 'shortened' ? 'shortened' : 'left out'}: ${requestName(t)}`, secrets));
  }
  return requests;
}

/**
 * Each typed request's normalized text by its message (a request's text is a function of its
 * message, which is never mutated), with the secret values it was masked with: a grown span's
 * requests are normalized once in their life, and masked again only when the span's secret values
 * changed. `masked`: the text with `maskSecrets` applied (a function of the text alone), kept for that.
 */
const normalizedOf = new MessageMemo<
  object,
  { text: string; secrets: readonly string[]; normalized: string; masked?: string }
>();

/**
 * `text` normalized (see `normalize`), masked first when the span has secret values (`secrets`, see
 * `maskSecretValues`). A function of `text` and `secrets` alone: what is kept per message is reused
 * only for the same text and the same values in the same order.
 */
function normalizedRequest(text: string, message: object | undefined, secrets: readonly string[]): string {
  const known = message ? normalizedOf.get(message) : undefined;
  if (known && known.text === text && sameValues(known.secrets, secrets)) return known.normalized;
  // Values added since (a grown span's new messages) that the masked text does not hold: the same result.
  if (
    message &&
    known?.text === text &&
    known.masked !== undefined &&
    known.secrets.length &&
    secrets.length &&
    sameMasking(known.masked, known.secrets, secrets)
  ) {
    normalizedOf.set(message, { ...known, secrets });
    return known.normalized;
  }
  let masked: string | undefined;
  let normalized: string;
  if (secrets.length) {
    masked = known && known.text === text && known.masked !== undefined ? known.masked : maskSecrets(text);
    normalized = normalize(maskValues(masked, secrets));
  } else normalized = normalize(text);
  if (message) normalizedOf.set(message, { text, secrets, normalized, masked: masked ?? known?.masked });
  return normalized;
}

/** Whether `a` and `b` hold the same values in the same order. */
function sameValues(a: readonly string[], b: readonly string[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The person's words each collapsed tool result's record among `items` keeps (see `collapsedRecordWords`). */
function recordWords(items: readonly ContextItem[]): string[] {
  const out: string[] = [];
  for (const it of items) {
    if (it.message.role !== 'tool') continue;
    const words = collapsedRecordWords(textWithPlaceholders(it.message.content));
    if (words) out.push(words);
  }
  return out;
}

/**
 * The typed requests a clipped message still holds, each presented whole: a message clipped in its
 * middle keeps the person's words when the clip took only what surrounds them (a harness's
 * environment block, a reminder). Read by the same rules as the span's requests, so a request the
 * clip left intact is the same text; one the clip cut is not.
 */
function clippedRequests(items: readonly ContextItem[]): string[] {
  const clipped = items.filter((it) => it.kind === 'clipped');
  if (!clipped.length) return [];
  return typedRequests(entriesOf(clipped, false)).map((t) => t.text);
}

/** The text of inserted items as a model reads it: content, then each tool call's name and arguments. */
function writtenText(items: readonly ContextItem[]): string {
  const out: string[] = [];
  for (const it of items) {
    out.push(textWithPlaceholders(it.message.content));
    const calls = (it.message as { tool_calls?: Array<{ function?: { name?: string; arguments?: string } }> })
      .tool_calls;
    for (const c of calls ?? []) out.push(c.function?.name ?? '', c.function?.arguments ?? '');
  }
  return out.join('\n');
}

/**
 * The error signatures of the span `entries` (its calls `calls`) and its commands that never failed,
 * labelled where the items `after` it end, as the summary labels them (see {@link retentionScorecard}).
 */
function spanErrors(
  entries: RetentionEntry[],
  calls: ReturnType<typeof agentCalls>,
  after: readonly ContextItem[],
): { errors: ErrorSignature[]; neverFailed: string[] } {
  const n = entries.length;
  // The items after the span are read apart: the span's reading stays kept for the next, grown span.
  const later = after.length ? entries.concat(entriesOf(after, false)) : entries;
  const laterCalls = after.length ? agentCalls(later) : calls;
  return {
    errors: errorSignatures(later, 0, n, later.length, laterCalls),
    neverFailed: neverFailedCommands(later, 0, n, later.length, laterCalls),
  };
}

/**
 * The messages of `items` as the scorecard reads them, each with its recorded success flag; summaries
 * left out. The items the previous call read, in the same places at the start of `items`, give the
 * entries they gave then (an item's message and its recorded flag never change once the item is
 * made, see context.ts), so a grown span looks up only its new messages' flags; `keep` false reads
 * `items` apart, leaving that reading as it is. Returns a new array.
 */
function entriesOf(items: readonly ContextItem[], keep = true): RetentionEntry[] {
  if (!messageMemosKept()) keptEntries = undefined;
  if (items.length < KEEP_FROM || !keep || !messageMemosKept()) {
    const entries: RetentionEntry[] = [];
    for (const it of items) pushEntry(entries, it);
    return entries;
  }
  let k = keptEntries;
  let same = 0;
  if (k) {
    const upTo = Math.min(k.items.length, items.length);
    while (same < upTo && k.items[same] === items[same]) same++;
  }
  if (!k || same === 0) k = keptEntries = { items: [], ends: [], entries: [] };
  k.items.length = k.ends.length = same;
  k.entries.length = same ? k.ends[same - 1] : 0;
  for (let i = same; i < items.length; i++) {
    k.items.push(items[i]);
    pushEntry(k.entries, items[i]);
    k.ends.push(k.entries.length);
  }
  return k.entries.slice();
}

function pushEntry(entries: RetentionEntry[], it: ContextItem): void {
  if (it.kind === 'summary') return;
  const ok = recordedToolOutcome(it.message);
  entries.push(ok === undefined ? { message: it.message } : { message: it.message, meta: { toolOk: ok } });
}

/**
 * The items {@link entriesOf} read last, the entries they gave and, per item, how many entries the
 * items up to it gave.
 */
let keptEntries: { items: ContextItem[]; ends: number[]; entries: RetentionEntry[] } | undefined;

/**
 * The failures of `items` (a span, oldest first) still open at its end, by the scorecard's rules
 * ({@link errorSignatures}), oldest first.
 */
export function openFailures(items: readonly ContextItem[]): ErrorSignature[] {
  const entries = entriesOf(items);
  return errorSignatures(entries, 0, entries.length).filter((e) => e.state === 'open');
}

/**
 * The scorecards of several checkpoints (one compaction run) as one: counts added up, names listed
 * in order up to {@link SCORECARD_NAMES} per kind. Undefined when none has one.
 */
export function mergeScorecards(cards: ReadonlyArray<RetentionScorecard | undefined>): RetentionScorecard | undefined {
  const present = cards.filter((c): c is RetentionScorecard => c !== undefined);
  if (present.length <= 1) return present[0];
  const sum = <T extends Record<string, number>>(pick: (c: RetentionScorecard) => T): T => {
    const out = { ...pick(present[0]) };
    for (const c of present.slice(1))
      for (const k of Object.keys(out)) (out as Record<string, number>)[k] += pick(c)[k];
    return out;
  };
  const names = (pick: (c: RetentionScorecard) => string[] | undefined) =>
    present.flatMap((c) => pick(c) ?? []).slice(0, SCORECARD_NAMES);
  const withEarlier = present.filter((c) => c.earlier !== undefined);
  const withCommits = present.filter((c) => c.commits !== undefined);
  const withEnvironment = present.filter((c) => c.environment !== undefined);
  const earlierCommits = withEarlier.reduce((n, c) => n + (c.earlier!.commits ?? 0), 0);
  return {
    requests: sum((c) => c.requests),
    filesChanged: sum((c) => c.filesChanged),
    filesRead: sum((c) => c.filesRead),
    errors: mergeErrors(present.map((c) => c.errors)),
    neverFailedShownFailing: present.reduce((n, c) => n + c.neverFailedShownFailing, 0),
    identifiers: sum((c) => c.identifiers),
    ...(present.some((c) => c.contradicted?.length)
      ? { contradicted: present.flatMap((c) => c.contradicted ?? []).slice(0, SCORECARD_NAMES) }
      : {}),
    ...(withEarlier.length
      ? {
          earlier: {
            total: withEarlier.reduce((n, c) => n + c.earlier!.total, 0),
            kept: withEarlier.reduce((n, c) => n + c.earlier!.kept, 0),
            ...(earlierCommits ? { commits: earlierCommits } : {}),
          },
        }
      : {}),
    ...(withCommits.length
      ? {
          commits: {
            total: withCommits.reduce((n, c) => n + c.commits!.total, 0),
            named: withCommits.reduce((n, c) => n + c.commits!.named, 0),
          },
        }
      : {}),
    ...(withEnvironment.length
      ? {
          environment: {
            total: withEnvironment.reduce((n, c) => n + c.environment!.total, 0),
            named: withEnvironment.reduce((n, c) => n + c.environment!.named, 0),
          },
        }
      : {}),
    missing: {
      requests: names((c) => c.missing.requests),
      filesChanged: names((c) => c.missing.filesChanged),
      openErrors: names((c) => c.missing.openErrors),
      ...(present.some((c) => c.errors.earlierTurn)
        ? { earlierTurnErrors: names((c) => c.missing.earlierTurnErrors) }
        : {}),
      shownOpen: names((c) => c.missing.shownOpen),
      identifiers: names((c) => c.missing.identifiers),
      neverFailed: names((c) => c.missing.neverFailed),
      earlier: names((c) => c.missing.earlier),
      ...(withCommits.length ? { commits: names((c) => c.missing.commits) } : {}),
      ...(withEnvironment.length ? { environment: names((c) => c.missing.environment) } : {}),
    },
  };
}

/** Error counts of several scorecards added up; the earlier turns' only where some card has them. */
function mergeErrors(all: ReadonlyArray<RetentionScorecard['errors']>): RetentionScorecard['errors'] {
  const add = (pick: (e: RetentionScorecard['errors']) => number | undefined) =>
    all.reduce((n, e) => n + (pick(e) ?? 0), 0);
  const earlierTurn = add((e) => e.earlierTurn);
  return {
    open: add((e) => e.open),
    openNamed: add((e) => e.openNamed),
    resolved: add((e) => e.resolved),
    shownOpen: add((e) => e.shownOpen),
    ...(earlierTurn ? { earlierTurn, earlierTurnNamed: add((e) => e.earlierTurnNamed) } : {}),
  };
}

/**
 * The part of `card` that a later checkpoint of the same run does not score again, for adding the
 * run's cards up: that later checkpoint replaced this one's summary and scores the requests, files
 * and commits it held against the text that stands now, so only what this one left out (requests
 * and earlier summaries' names it no longer held) stays counted here; files, errors and identifiers
 * of its own span are scored only here.
 */
export function supersededScorecard(card: RetentionScorecard): RetentionScorecard {
  const leftOut = card.missing.requests.filter((r) => r.startsWith('left out: '));
  const dropped = card.earlier ? card.earlier.total - card.earlier.kept : 0;
  return {
    ...card,
    requests: { total: card.requests.leftOut, whole: 0, shortened: 0, leftOut: card.requests.leftOut },
    ...(card.earlier ? { earlier: { total: dropped, kept: 0 } } : {}),
    missing: { ...card.missing, requests: leftOut },
  };
}

/**
 * The scorecard in one line, e.g. "kept: requests 5/6 whole (1 shortened), files changed 4/5 named,
 * files read 7/9 named, open errors 1/2 named, unresolved from earlier turns 1/1 named, resolved errors shown as open: 0 of 3,
 * identifiers 31/40" (a part for failures an earlier turn left only when there are some), after a warning when the
 * summary contradicts the tool results (`contradicted`). Parts with nothing to count are left out;
 * every count a card holds has a part, so the line is '' only for a card that counts nothing at all.
 */
export function scorecardLine(c: RetentionScorecard): string {
  const parts: string[] = [];
  const warning = c.contradicted?.length
    ? `the summary contradicts the tool results: it says the work is done, but ${c.contradicted.length} failure${c.contradicted.length === 1 ? ' is' : 's are'} still open (a correction was added)`
    : '';
  const r = c.requests;
  if (r.total)
    parts.push(
      `requests ${r.whole}/${r.total} whole${r.shortened ? ` (${r.shortened} shortened)` : ''}${r.leftOut ? `, ${r.leftOut} left out` : ''}`,
    );
  if (c.filesChanged.total) parts.push(`files changed ${c.filesChanged.named}/${c.filesChanged.total} named`);
  // Every count the card holds has its part: a card of reads alone (a span that only looked around)
  // otherwise reads as an empty line.
  if (c.filesRead.total) parts.push(`files read ${c.filesRead.named}/${c.filesRead.total} named`);
  if (c.errors.open) parts.push(`open errors ${c.errors.openNamed}/${c.errors.open} named`);
  if (c.errors.earlierTurn)
    parts.push(`unresolved from earlier turns ${c.errors.earlierTurnNamed ?? 0}/${c.errors.earlierTurn} named`);
  // Counts of what went wrong read "what: n of m", never as a kept fraction like the parts around them.
  if (c.errors.resolved) parts.push(`resolved errors shown as open: ${c.errors.shownOpen} of ${c.errors.resolved}`);
  if (c.neverFailedShownFailing)
    parts.push(
      `${c.neverFailedShownFailing} ${c.neverFailedShownFailing === 1 ? 'command that never failed shown as failing' : 'commands that never failed shown as failing'}`,
    );
  if (c.identifiers.total) parts.push(`identifiers ${c.identifiers.kept}/${c.identifiers.total}`);
  if (c.commits?.total) parts.push(`commits ${c.commits.named}/${c.commits.total} named`);
  if (c.environment?.total) parts.push(`environment ${c.environment.named}/${c.environment.total} named`);
  if (c.earlier?.total)
    parts.push(`earlier summaries' ${earlierWhat(c.earlier)} ${c.earlier.kept}/${c.earlier.total} named`);
  const kept = parts.length ? `kept: ${parts.join(', ')}` : '';
  return warning && kept ? `${warning}; ${kept}` : warning || kept;
}

/**
 * The scorecard's details, one line each: every count in words, then what was left out by name
 * (the lists are bounded, so a line says how many more there are). `code` quotes a path, command or
 * identifier (Markdown: backticks); requests are given as they are.
 */
export function scorecardDetails(c: RetentionScorecard, code: (name: string) => string = (n) => n): string[] {
  const out: string[] = [];
  const r = c.requests;
  if (c.contradicted?.length)
    out.push(
      `The summary contradicts the tool results: it says the work is done, but these failed and were not fixed (a correction line says so in the summary): ${c.contradicted.map(code).join('; ')}`,
    );
  out.push(`Typed requests: ${r.total} (${r.whole} kept whole, ${r.shortened} shortened, ${r.leftOut} left out)`);
  out.push(`Files changed: ${c.filesChanged.named} of ${c.filesChanged.total} named`);
  out.push(`Files read: ${c.filesRead.named} of ${c.filesRead.total} named`);
  out.push(
    `Errors: ${c.errors.open} open (${c.errors.openNamed} still named), ${c.errors.resolved} resolved (${c.errors.shownOpen} shown as open)`,
  );
  if (c.errors.earlierTurn)
    out.push(
      `Errors unresolved when an earlier turn ended: ${c.errors.earlierTurn} (${c.errors.earlierTurnNamed ?? 0} still named)`,
    );
  if (c.neverFailedShownFailing) out.push(`Commands that never failed shown as failing: ${c.neverFailedShownFailing}`);
  out.push(`Identifiers: ${c.identifiers.kept} of ${c.identifiers.total} kept`);
  if (c.commits?.total) out.push(`Commits made: ${c.commits.named} of ${c.commits.total} named`);
  if (c.environment?.total)
    out.push(`Environment (programs found missing or found): ${c.environment.named} of ${c.environment.total} named`);
  if (c.earlier?.total) {
    const what = earlierWhat(c.earlier);
    out.push(
      `${what[0].toUpperCase()}${what.slice(1)} named by earlier summaries: ${c.earlier.kept} of ${c.earlier.total} still named`,
    );
  }
  return [...out, ...scorecardLeftOut(c, code)];
}

/**
 * What was left out, by name, one line per kind that has any (e.g. "Files changed not named:
 * src/a.ts; src/b.ts; and 3 more"), files and commits first; [] when nothing was.
 */
export function scorecardLeftOut(c: RetentionScorecard, code: (name: string) => string = (n) => n): string[] {
  const out: string[] = [];
  const r = c.requests;
  const list = (label: string, names: readonly string[], total: number, quote = code) => {
    if (total <= 0) return;
    const more = total - names.length;
    // A card saved before a kind's names were kept has the count alone.
    if (!names.length) out.push(`${label}: ${total}`);
    else out.push(`${label}: ${names.map(quote).join('; ')}${more > 0 ? `; and ${more} more` : ''}`);
  };
  // Files and commits first: what the agent needs to go on working, and what a reader checks first.
  list('Files changed not named', c.missing.filesChanged, c.filesChanged.total - c.filesChanged.named);
  if (c.commits) list('Commits not named', c.missing.commits ?? [], c.commits.total - c.commits.named);
  if (c.environment)
    list('Environment not named', c.missing.environment ?? [], c.environment.total - c.environment.named);
  if (c.earlier)
    list(
      `Earlier summaries' ${earlierWhat(c.earlier)} not named`,
      c.missing.earlier ?? [],
      c.earlier.total - c.earlier.kept,
    );
  list('Requests not kept whole', c.missing.requests, r.shortened + r.leftOut, (n) => n);
  list('Open errors not named', c.missing.openErrors, c.errors.open - c.errors.openNamed);
  if (c.errors.earlierTurn)
    list(
      'Errors unresolved from earlier turns not named',
      c.missing.earlierTurnErrors ?? [],
      c.errors.earlierTurn - (c.errors.earlierTurnNamed ?? 0),
    );
  list('Resolved errors shown as open', c.missing.shownOpen, c.errors.shownOpen);
  list('Commands that never failed shown as failing', c.missing.neverFailed ?? [], c.neverFailedShownFailing);
  list('Identifiers left out', c.missing.identifiers, c.identifiers.total - c.identifiers.kept);
  return out;
}

/**
 * What earlier summaries' names are, as counted: "files and commits" only where some are commit ids,
 * "commits" where all are, else "files" (also on a card saved before commits were counted apart): the
 * line never claims commits that were not there.
 */
function earlierWhat(e: NonNullable<RetentionScorecard['earlier']>): string {
  if (e.commits === undefined) return 'files';
  return e.commits === e.total ? 'commits' : 'files and commits';
}
