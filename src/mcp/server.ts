/**
 * `context-keeper mcp`: an MCP server over standard input and output that offers `search_history`
 * and `read_history` over the current Claude Code or Codex session of a workspace, including what
 * that agent's own compactions replaced (checkpoints `import-1`, `import-2`… in file order). The
 * tools are read-only, bounded and masked as the product's own agent's are (`src/recall`).
 *
 * Standard output carries the protocol only; notes go to standard error.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';
import { RECALL_LIMITS, RECALL_TOOLS, RecallError, recallToolText, type RecallToolName } from '../recall';
import { TranscriptError } from '../transcripts';
import { SessionNotFound, SessionSource, type SessionChoice } from './session-source';
import { version as VERSION } from '../../package.json';

/** What the MCP descriptions add to the agent's: which session and what its checkpoints are. */
const SESSION_NOTE =
  'Reads the current session file of the coding agent in this workspace (Claude Code or Codex); its own compactions are checkpoints import-1, import-2… in order, and what they replaced is searchable here.';

const integer = (min: number, description: string) => z.number().int().min(min).optional().describe(description);

/** Zod shapes of the tools' arguments: the same names and meanings as the agent's tools. */
const SHAPES = {
  search_history: {
    query: z.string().describe(RECALL_TOOLS.search_history.parameters.query.description),
    checkpoint: z.string().optional().describe(RECALL_TOOLS.search_history.parameters.checkpoint.description),
    max_results: integer(1, RECALL_TOOLS.search_history.parameters.max_results.description),
  },
  read_history: {
    checkpoint: z.string().optional().describe(RECALL_TOOLS.read_history.parameters.checkpoint.description),
    from: integer(1, RECALL_TOOLS.read_history.parameters.from.description),
    to: integer(1, RECALL_TOOLS.read_history.parameters.to.description),
    offset: integer(0, RECALL_TOOLS.read_history.parameters.offset.description),
  },
};

/** Builds the server (not connected). Errors of a call come back as tool results with `isError`. */
export function recallServer(choice: SessionChoice): McpServer {
  const source = new SessionSource(choice);
  const server = new McpServer({ name: 'context-keeper-recall', version: VERSION });
  for (const name of Object.keys(SHAPES) as RecallToolName[]) {
    server.registerTool(
      name,
      {
        description: `${RECALL_TOOLS[name].description} ${SESSION_NOTE}`,
        inputSchema: SHAPES[name],
        annotations: { readOnlyHint: true, openWorldHint: false },
      },
      async (args: Record<string, unknown>) => {
        try {
          const loaded = await source.load();
          const text = recallToolText(name, stripUndefined(args), loaded.index);
          return { content: [{ type: 'text' as const, text: `${loaded.describe}\n${text}` }] };
        } catch (error) {
          if (error instanceof RecallError || error instanceof SessionNotFound || error instanceof TranscriptError)
            return { content: [{ type: 'text' as const, text: `${error.message}.` }], isError: true };
          throw error;
        }
      },
    );
  }
  return server;
}

function stripUndefined(args: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(args).filter(([, v]) => v !== undefined));
}

/** Runs the server on this process's standard input and output until the client closes it. */
export async function serveRecall(choice: SessionChoice, note: (line: string) => void): Promise<void> {
  const server = recallServer(choice);
  await server.connect(new StdioServerTransport());
  note(
    `context-keeper mcp: recall over ${choice.file ?? `the newest ${choice.agent ?? 'Claude Code or Codex'} session of ${choice.workspace}`} (at most ${RECALL_LIMITS.maxResults} results, ${RECALL_LIMITS.readChars} characters a read)`,
  );
}
