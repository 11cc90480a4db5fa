/**
 * What a finished agent task reports: the run's status and counts, the automatic compactions it
 * caused, and its failure in the shape the views explain. Pure.
 */
import type { RunResult } from '../agent/session';
import type { Checkpoint } from '../compaction/types';
import { modelFailureOf } from '../summarizers/openai-errors';
import type { TaskOutcome } from './records';

/** The outcome of `run`; `added`: the checkpoints recorded since the task began (only automatic ones count). */
export function taskOutcomeOf(run: RunResult, added: readonly Checkpoint[]): TaskOutcome {
  return {
    status: run.status,
    finalText: run.finalText,
    modelCalls: run.modelCalls,
    toolCalls: run.toolCalls,
    compactions: added.filter((c) => c.trigger === 'auto').length,
    ...(run.error ? { error: run.error.message, failure: modelFailureOf(run.error) } : {}),
  };
}
