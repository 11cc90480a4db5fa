/**
 * The log line of one compaction: its figures and its cause, written at info level to the
 * extension's LogOutputChannel so a user can tell afterwards when, why and how much each
 * compaction took away. Pure: no `vscode` import.
 */
import { describeCoverage } from '../compaction/summary/coverage';
import type { Checkpoint } from '../compaction/types';
import { formatTokensFull, plural } from '../format/tokens';
import { compactionParts } from './notices';

/** Why a checkpoint was made, in words: the cause it records, else its trigger. */
function causeOf(checkpoint: Pick<Checkpoint, 'trigger' | 'cause' | 'focus'>): string {
  if (checkpoint.cause) return checkpoint.cause;
  switch (checkpoint.trigger) {
    case 'auto':
      return 'automatic: the context reached the compaction trigger';
    case 'manual':
      return checkpoint.focus ? 'Compact Conversation, with a focus' : 'Compact Conversation';
    case 'import':
      return 'imported recording';
    case 'continue':
      return 'Continue in a New Task: the continued recording was over budget';
  }
}

/**
 * One line for the log, e.g. "Compaction (summary, automatic: the context reached the compaction
 * trigger): 169,012 → 6,604 tokens (-162,408); 1 summary; summarizer gpt-4o-mini, 1.2 s; 12
 * entries replaced." Token figures are exact (the log is for checking), the rest only when known.
 */
export function compactionLogLine(
  checkpoint: Pick<
    Checkpoint,
    | 'trigger'
    | 'strategy'
    | 'cause'
    | 'focus'
    | 'tokensBefore'
    | 'tokensAfter'
    | 'inserted'
    | 'replacedIds'
    | 'summarizerModel'
    | 'durationMs'
    | 'coverage'
    | 'attachedFiles'
  >,
): string {
  const n = (value: number) => formatTokensFull(value);
  const saved = checkpoint.tokensBefore - checkpoint.tokensAfter;
  const parts = compactionParts([checkpoint]);
  const details = [
    `${n(checkpoint.tokensBefore)} → ${n(checkpoint.tokensAfter)} tokens (${saved >= 0 ? '-' : '+'}${n(Math.abs(saved))})`,
    parts || undefined,
    checkpoint.summarizerModel
      ? `summarizer ${checkpoint.summarizerModel}${checkpoint.durationMs !== undefined ? `, ${(checkpoint.durationMs / 1000).toFixed(1)} s` : ''}`
      : undefined,
    `${plural(checkpoint.replacedIds.length, 'entry', 'entries')} replaced`,
    checkpoint.coverage ? `covers ${describeCoverage(checkpoint.coverage)}` : undefined,
    checkpoint.attachedFiles?.length
      ? `re-attached ${checkpoint.attachedFiles.map((f) => `${f.path} (${n(f.tokens)} tokens)`).join(', ')}`
      : undefined,
  ].filter((part): part is string => part !== undefined);
  return `Compaction (${checkpoint.strategy}, ${causeOf(checkpoint)}): ${details.join('; ')}.`;
}
