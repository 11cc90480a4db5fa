/**
 * The agent's read-only history tools, `search_history` and `read_history`, over its own
 * conversation's raw transcript (see `src/recall`). They read no workspace file, write nothing and
 * run nothing, so they need no approval and are safe in every trust state; their output is bounded
 * and masked by recall itself.
 */
import type { ToolSchema } from '../compaction/types';
import { indexSource } from '../recall/messages';
import { RECALL_TOOLS, recallToolText, type RecallToolName } from '../recall/tools';
import { RecallError, type RecallSource } from '../recall/types';

/** JSON schemas of the history tools, in the order they are offered. */
export const HISTORY_TOOL_SCHEMAS: ToolSchema[] = (Object.keys(RECALL_TOOLS) as RecallToolName[]).map((name) => {
  const { description, parameters, required } = RECALL_TOOLS[name];
  return {
    type: 'function',
    function: {
      name,
      description,
      parameters: { type: 'object', properties: parameters, required, additionalProperties: false },
    },
  };
});

/** True for a history tool's name. */
export function isHistoryTool(name: string): name is RecallToolName {
  return Object.hasOwn(RECALL_TOOLS, name);
}

/**
 * Runs a history tool on parsed arguments over `source`. Bad arguments (unknown checkpoint, empty
 * query, range outside the transcript) come back as `ok: false` with the reason; other errors throw.
 */
export function runHistoryTool(
  name: RecallToolName,
  args: Record<string, unknown>,
  source: RecallSource,
): { ok: true; text: string } | { ok: false; error: string } {
  try {
    return { ok: true, text: recallToolText(name, args, indexSource(source)) };
  } catch (error) {
    if (error instanceof RecallError) return { ok: false, error: `${error.message}.` };
    throw error;
  }
}
