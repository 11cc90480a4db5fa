/**
 * Retention rules: what a compaction should keep of the span it replaces, computed from plain
 * messages by rules written for measurement (never the summary writer's own extraction), so the
 * quality benchmark and a checkpoint's scorecard judge the writer rather than repeat it.
 *
 * - typed requests and their constraint sentences (requests.ts);
 * - files modified and read, from every agent's edit tools and shell scripts (files.ts, shell.ts);
 * - error signatures, open or resolved at a point, and commands that never failed (errors.ts);
 * - names of the code the agent worked with (code-names.ts).
 */
import { agentCalls, type RetentionEntry } from './calls';
import { codeNames } from './code-names';
import { errorSignatures, neverFailedCommands, type ErrorSignature } from './errors';
import { spanFiles } from './files';
import { constraintSentences, typedRequests, type TypedRequest } from './requests';

export * from './calls';
export * from './code-names';
export * from './errors';
export * from './files';
export * from './requests';
export * from './shell';

/** The gold sets of one span. */
export interface RetentionGold {
  typed: TypedRequest[];
  constraints: string[];
  /** Path keys modified in the span, with what happened last. */
  modified: Array<{ path: string; action: 'created' | 'edited' | 'deleted' | 'moved' }>;
  /** Path keys read (not modified) in the span. */
  read: string[];
  errors: ErrorSignature[];
  neverFailed: string[];
  codeNames: string[];
}

/**
 * Every gold set of the span `from` ≤ index < `to` of `entries`, errors labelled at `point`
 * (default `to`: the first message after the span). Plain data in, plain data out.
 */
export function retentionGold(
  entries: readonly RetentionEntry[],
  from: number,
  to: number,
  point: number = to,
): RetentionGold {
  const typed = typedRequests(entries, from, to);
  // The agent's calls are read once for every set.
  const calls = agentCalls(entries);
  const files = spanFiles(entries, from, to, calls);
  return {
    typed,
    constraints: [...new Set(typed.flatMap((t) => constraintSentences(t.text)))],
    modified: [...files.modified].map(([path, action]) => ({ path, action })),
    read: files.read,
    errors: errorSignatures(entries, from, to, point, calls),
    neverFailed: neverFailedCommands(entries, from, to, point, calls),
    codeNames: codeNames(entries, from, to, calls),
  };
}
