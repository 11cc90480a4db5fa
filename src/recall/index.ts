/**
 * Recall: read-only search and reading over a conversation's raw transcript, including what
 * compactions replaced. Bounded, cited by checkpoint and message, masked, provenance kept.
 * Used by the agent's history tools, the command-line tool and the MCP server.
 */
export { indexSource, type RecallIndex } from './messages';
export { searchHistory, MAX_QUERY_CHARS, type SearchOptions } from './search';
export { readHistory, type ReadOptions } from './read';
export { citation, describeProvenance, renderRead, renderSearch } from './render';
export { recallSourceOfImport } from './imported';
export { RECALL_TOOLS, recallToolText, type RecallToolName } from './tools';
export * from './types';
