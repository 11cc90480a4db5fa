/**
 * Commits made in a span, by their ids: Aider's commit notices (`> Commit e647cd7 feat: …`, which the
 * importer keeps at the end of the reply whose edits they committed) and the first line a
 * successful `git commit` prints (`[main e647cd7] feat: …`, `[main (root-commit) e647cd7] …`). Rules
 * written for measurement; no code shared with the summary writer. Pure.
 */
import { textWithPlaceholders } from '../content-text';
import { commandOf, type AgentCall, type RetentionEntry } from './calls';
import { messageMemosKept } from '../message-memo';
import { isPrefix } from '../prefix';
import type { ChatMessage } from '../types';

const NOTICE = /^> Commit ([0-9a-f]{7,40}) \S/gm;
const GIT_FIRST_LINE = /^\[[^\]\s]+(?: \(root-commit\))? ([0-9a-f]{7,40})\] \S/gm;

/**
 * Ids of the commits made by messages `from` ≤ index < `to` of `entries`, in order, without repeats.
 * `calls`: the span's `agentCalls`.
 */
export function spanCommits(
  entries: readonly RetentionEntry[],
  calls: readonly AgentCall[],
  from = 0,
  to = entries.length,
): string[] {
  if (from <= 0 && to >= entries.length && entries.length >= KEEP_FROM) return commitsOfAll(entries, calls);
  const out = new Set<string>();
  readCommits(entries, calls, Math.max(0, from), Math.min(to, entries.length), 0, from, out);
  return [...out];
}

/**
 * Reads the commits of messages `start` ≤ i < `end` into `out`, the calls from `calls[next]` on
 * (those of messages before `from` are passed over); returns where the calls read stop.
 */
function readCommits(
  entries: readonly RetentionEntry[],
  calls: readonly AgentCall[],
  start: number,
  end: number,
  next: number,
  from: number,
  out: Set<string>,
): number {
  for (let i = start; i < end; i++) {
    const m = entries[i].message;
    if (m.role !== 'assistant') continue;
    // A call's commits come before the notices of the reply after it: calls of this message first.
    for (; next < calls.length && calls[next].index <= i; next++) {
      const c = calls[next];
      const command = c.index >= from ? commandOf(c) : undefined;
      if (command === undefined || c.failed === true || !/\bgit\b[^\n|;&]*\bcommit\b/.test(command)) continue;
      for (const hit of (c.result ?? '').matchAll(GIT_FIRST_LINE)) out.add(hit[1]);
    }
    const text = textWithPlaceholders(m.content);
    if (text.includes('> Commit ')) for (const hit of text.matchAll(NOTICE)) out.add(hit[1]);
  }
  return next;
}

/**
 * {@link spanCommits} of a whole span, continuing the reading of the span read last: its messages
 * (the same objects at the start) up to the calls at the end still without a result, and the calls
 * read with them (the same objects, see `agentCalls`), are not read again; the rest is read on a copy
 * each time (a call's result may come next time, as a new object). Measured: waiting instead at the
 * first call without a result, one never answered early in a 100k-message span had every later
 * message read again by each compaction.
 */
function commitsOfAll(entries: readonly RetentionEntry[], calls: readonly AgentCall[]): string[] {
  let k = keptCommits;
  if (k && !(isPrefix(k.messages, entries, (e) => e.message) && isPrefix(k.calls, calls, (c) => c))) k = undefined;
  k ??= { messages: [], calls: [], out: new Set() };
  // The calls at the end still without a result are read on a copy: theirs may come next time. A
  // call in the middle without one (never answered) is read as it is; an answer coming later makes it
  // a new object, and the whole span is read again.
  let waiting = calls.length;
  while (waiting > k.calls.length && calls[waiting - 1].result === undefined) waiting--;
  const upTo = waiting < calls.length ? Math.max(k.messages.length, calls[waiting].index) : entries.length;
  const next = readCommits(entries, calls, k.messages.length, upTo, k.calls.length, 0, k.out);
  for (let i = k.messages.length; i < upTo; i++) k.messages.push(entries[i].message);
  for (let i = k.calls.length; i < next; i++) k.calls.push(calls[i]);
  keptCommits = messageMemosKept() ? k : undefined;
  const out = new Set(k.out);
  readCommits(entries, calls, upTo, entries.length, next, 0, out);
  return [...out];
}

/** Spans shorter than this are read whole (cheap), so they do not push a long span's reading out. */
const KEEP_FROM = 256;

/** The span {@link commitsOfAll} read last: its messages and calls read, and the commits they made. */
let keptCommits: { messages: ChatMessage[]; calls: AgentCall[]; out: Set<string> } | undefined;
