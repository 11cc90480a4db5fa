/**
 * The two recall tools, `search_history` and `read_history`, independent of who offers them (the
 * product's agent, the MCP server): names, descriptions stating the caps, parameter descriptions,
 * and one function that checks plain JSON arguments and returns the tool's text.
 */
import { groupDigits } from '../compaction/summary/requests-section';
import type { RecallIndex } from './messages';
import { readHistory } from './read';
import { renderRead, renderSearch } from './render';
import { searchHistory } from './search';
import { RECALL_LIMITS, RecallError } from './types';

export type RecallToolName = 'search_history' | 'read_history';

interface ToolText {
  description: string;
  parameters: Record<string, { type: 'string' | 'integer'; description: string; minimum?: number }>;
  required: string[];
}

const L = RECALL_LIMITS;

/** Descriptions and parameters of the recall tools. */
export const RECALL_TOOLS: Record<RecallToolName, ToolText> = {
  search_history: {
    description:
      "Search this conversation's full transcript, including messages a compaction replaced (a summary names its checkpoint). " +
      'A phrase, else all its words; case-insensitive. Read-only, no approval. ' +
      `At most ${L.maxResults} results and ${groupDigits(L.searchChars)} characters, cited by message number, author and checkpoint; credentials masked.`,
    parameters: {
      query: { type: 'string', description: 'Word or phrase.' },
      checkpoint: { type: 'string', description: 'Only what this checkpoint replaced.' },
      max_results: { type: 'integer', minimum: 1, description: `At most ${L.maxResults}.` },
    },
    required: ['query'],
  },
  read_history: {
    description:
      "Read messages of this conversation's full transcript word for word, e.g. what a checkpoint replaced. Read-only, no approval. " +
      `At most ${L.readMessages} messages and ${groupDigits(L.readChars)} characters; says how to continue. Credentials masked.`,
    parameters: {
      checkpoint: {
        type: 'string',
        description: 'Only what this checkpoint replaced; from defaults to its first message.',
      },
      from: { type: 'integer', minimum: 1, description: 'First message number.' },
      to: { type: 'integer', minimum: 1, description: 'Last message number.' },
      offset: { type: 'integer', minimum: 0, description: 'Characters of the first message to skip.' },
    },
    required: [],
  },
};

/**
 * Runs a recall tool on plain JSON arguments and returns its text.
 * @throws RecallError for an unknown tool, arguments of the wrong type or unknown, and the errors of
 *   {@link searchHistory} and {@link readHistory}
 */
export function recallToolText(name: string, args: Record<string, unknown>, index: RecallIndex): string {
  if (name !== 'search_history' && name !== 'read_history') throw new RecallError(`unknown recall tool "${name}"`);
  const known = Object.keys(RECALL_TOOLS[name].parameters);
  for (const key of Object.keys(args)) {
    if (!known.includes(key)) throw new RecallError(`${name} has no argument "${key}" (it takes ${known.join(', ')})`);
  }
  const checkpoint = optional(args, 'checkpoint', 'string');
  if (name === 'search_history') {
    const query = optional(args, 'query', 'string');
    if (query === undefined) throw new RecallError('search_history needs "query"');
    const result = searchHistory(index, { query, checkpoint, maxResults: optional(args, 'max_results', 'integer') });
    const example = result.hits[0];
    const hint = example
      ? `Whole messages: read_history with from and to set to a message number${example.checkpoints.length ? ` (and the checkpoint, e.g. {"checkpoint":"${example.checkpoints[example.checkpoints.length - 1]}","from":${example.index},"to":${example.index}})` : ` (e.g. {"from":${example.index},"to":${example.index}})`}.`
      : '';
    return renderSearch(result, hint);
  }
  const result = readHistory(index, {
    checkpoint,
    from: optional(args, 'from', 'integer'),
    to: optional(args, 'to', 'integer'),
    offset: optional(args, 'offset', 'integer'),
  });
  return renderRead(result, (next) =>
    JSON.stringify({
      ...(checkpoint !== undefined ? { checkpoint } : {}),
      from: next.from,
      ...(args.to !== undefined ? { to: args.to } : {}),
      ...(next.offset > 0 ? { offset: next.offset } : {}),
    }),
  );
}

function optional(args: Record<string, unknown>, key: string, type: 'string'): string | undefined;
function optional(args: Record<string, unknown>, key: string, type: 'integer'): number | undefined;
function optional(args: Record<string, unknown>, key: string, type: 'string' | 'integer'): string | number | undefined {
  const value = args[key];
  if (value === undefined || value === null) return undefined;
  if (type === 'string' && typeof value !== 'string') throw new RecallError(`"${key}" must be a string`);
  if (type === 'integer' && !Number.isInteger(value)) throw new RecallError(`"${key}" must be a whole number`);
  return value as string | number;
}
