/**
 * Intermediate records the format readers emit before tool pairing is repaired (see `pairing.ts`).
 */
import type { ChatCompletionContentPart } from 'openai/resources/chat/completions';
import type { ChatMessage, EntryMeta } from '../compaction/types';

/** A message as read from the file, before pairing repair and id de-duplication. */
export interface MessageDraft {
  kind: 'message';
  id: string;
  message: ChatMessage;
  meta: EntryMeta;
  /**
   * Assistant drafts with the same key belong to one model response and are merged into one assistant
   * message (Claude Code writes one line per content block; Codex one item per function call).
   */
  responseKey?: string;
  /**
   * For tool drafts: a user message (images the tool returned) that must follow the step's tool
   * messages, because OpenAI tool messages only carry text.
   */
  attachment?: MessageDraft;
}

/**
 * Marks where the recorded agent compacted its own context: everything still active before it was
 * replaced by `summary`, which the message `summaryDraftId` (if any) carries.
 */
export interface BoundaryDraft {
  kind: 'boundary';
  id: string;
  summary: string;
  summaryDraftId?: string;
  /**
   * Record ids (the source's own, `EntrySource.recordId`) of messages before the boundary that the
   * recording agent kept in its context (Claude Code's preserved segment); they are not replaced.
   */
  keepRecordIds?: string[];
}

export type Draft = MessageDraft | BoundaryDraft;

/** User content from parts: a single text part collapses to a string, as OpenAI clients send it. */
export function userContent(parts: ChatCompletionContentPart[]): string | ChatCompletionContentPart[] {
  return parts.length === 1 && parts[0].type === 'text' ? parts[0].text : parts;
}
