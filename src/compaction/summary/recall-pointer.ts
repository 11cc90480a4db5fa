/**
 * The line that ends every summary: where the messages it replaced can be read word for word (the
 * agent's history tools, the MCP server of the same name, `context-keeper recall`). It opens with
 * `[` so that a later compaction reading the requests section above it ends the last request there.
 *
 * Pure: no I/O.
 */

/** The pointer of the summary of checkpoint `checkpointId`, which replaced `messages` raw messages. */
export function recallPointer(checkpointId: string, messages: number): string {
  return `[The ${messages} replaced message${messages === 1 ? ' is' : 's are'} kept: search_history / read_history, checkpoint ${checkpointId}.]`;
}
