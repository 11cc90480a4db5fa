/**
 * Validation of a summarizer's reply: used only when the call ended normally (`finish_reason: stop`),
 * without tool calls or a refusal, with non-empty text that is not refusal- or error-shaped: a broken
 * stream, an empty template or an error page never becomes a summary.
 */
import { SummarizerError } from '../compaction/types';
import { clipMiddle } from '../compaction/clip';

/** What one call returned before validation. */
export interface RawReply {
  text: string;
  finishReason: string | null;
  toolCalls: number;
  refusal: string;
  model?: string;
  promptTokens?: number;
  completionTokens?: number;
  /** Prompt tokens the provider served from its prompt cache, when reported. */
  cachedTokens?: number;
  /** The stream ended (the server closed it) without a finish reason. */
  incomplete?: boolean;
}

/** Refusal-shaped replies: short text opening with an apology or a statement of inability. */
const REFUSAL_TEXT =
  /^(?:i['’]m sorry|i am sorry|sorry[,!.]|i apologi[sz]e|unfortunately,? i|i can(?:['’]t|not)|i won['’]t|i['’]m (?:not able|unable)|i am (?:not able|unable)|as an ai\b)/i;
/** Error-shaped replies: text that reports a failure instead of summarizing. */
const ERROR_TEXT =
  /^(?:error\b|exception\b|traceback\b|an error occurred|request failed|internal server error|failed to (?:generate|summari[sz]e|process)|unable to (?:generate|summari[sz]e)|\{\s*"error"\s*:)|error generating summary/i;
/** Longest text checked for refusal or error shape, in characters; real summaries are longer. */
const SHAPE_CHECK_CHARS = 600;

/**
 * Applies the rules for a usable reply (INV-VALID-SUMMARY in the failure cases) and returns the trimmed
 * text. Throws SummarizerError (`truncated`, `tool-call`, `refusal`, `empty`, `invalid`).
 */
export function validateReply(reply: RawReply): string {
  const text = reply.text.trim();
  if (reply.incomplete === true) {
    throw new SummarizerError(
      `the summarizer's stream ended before the reply was complete (${text.length} characters received); the partial summary was discarded`,
      'truncated',
    );
  }
  if (reply.toolCalls > 0 || reply.finishReason === 'tool_calls' || reply.finishReason === 'function_call') {
    throw new SummarizerError('the summarizer answered with a tool call instead of a summary', 'tool-call');
  }
  if (reply.refusal.trim().length > 0) {
    throw new SummarizerError(
      `the summarizer refused: ${clipMiddle(reply.refusal.trim().replace(/\s+/g, ' '), 200)}`,
      'refusal',
    );
  }
  if (reply.finishReason === 'content_filter')
    throw new SummarizerError('the summarizer reply was blocked by a content filter', 'refusal');
  if (reply.finishReason === 'length') {
    throw new SummarizerError('the summary was cut off at the reply token limit (finish_reason "length")', 'truncated');
  }
  if (reply.finishReason !== 'stop') {
    throw new SummarizerError(
      `the summarizer call ended with finish_reason "${String(reply.finishReason)}", not "stop"`,
      'invalid',
    );
  }
  if (text.length === 0) throw new SummarizerError('the summarizer returned an empty reply', 'empty');
  if (text.length <= SHAPE_CHECK_CHARS) {
    const oneLine = clipMiddle(text.replace(/\s+/g, ' '), 160);
    if (REFUSAL_TEXT.test(text)) throw new SummarizerError(`the summarizer refused: "${oneLine}"`, 'refusal');
    if (ERROR_TEXT.test(text))
      throw new SummarizerError(
        `the summarizer returned an error message instead of a summary: "${oneLine}"`,
        'invalid',
      );
  }
  if (isBlankTemplate(text)) throw new SummarizerError('the summarizer returned only empty sections', 'empty');
  return text;
}

/** True when, without headings and "none"-like lines, nothing is left (a blank template filled with nothing). */
export function isBlankTemplate(text: string): boolean {
  const rest = text
    .split('\n')
    .map((l) => l.trim())
    .filter(
      (l) =>
        l.length > 0 &&
        !/^#{1,6}\s/.test(l) &&
        !/^[-*]?\s*(?:none|n\/a|nothing|not applicable|no(?:ne)? (?:yet|so far)|-|—)\.?$/i.test(l),
    );
  return rest.join(' ').length < 20;
}
