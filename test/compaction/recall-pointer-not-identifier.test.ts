/**
 * The sentence a collapsed tool result ends with in the command-line tool's output ("The full output
 * can be read from: FILE, message N (context-keeper recall …)") names the recording the tool reads:
 * a later summary of that result never lists the recording as an identifier of the work.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { collapsedOutputPointer } from '../../src/compaction/summary/recall-pointer';
import { importTranscriptTextSync } from '../../src/transcripts';
import { itemsFromEntries } from '../../src/compaction/context';
import { sourceIdentifiers } from '../../src/compaction/summary/identifiers/backfill';
import { WRITERS, type Step } from '../support/recordings';

const RECORDING = 'rollout-lmstudio-chat.jsonl';

const steps = (): Step[] => [
  { user: 'Find where the chat request is built and make it use the LM Studio base URL.' },
  {
    tool: 'bash',
    command: 'rg -n "fetchChatResponse" components lib',
    output: `bash → ok, 2,310 characters, 41 lines; last line: components/chat/chat-helpers/index.ts:212: export const fetchChatResponse = async (. ${collapsedOutputPointer({ recording: RECORDING }, 12)}`,
  },
  {
    tool: 'bash',
    command: 'sed -n 1,80 lib/models/llm/lmstudio-llm-list.ts',
    output: `${collapsedOutputPointer({ recording: RECORDING }, 14)}\nexport const LMSTUDIO_LLM_LIST = [] // baseLmstudioUrl from getLmstudioSettings()`,
  },
  { say: 'The request is built in fetchChatResponse; the base URL comes from baseLmstudioUrl.' },
];

for (const format of ['codex', 'claude-code', 'openhands'] as const) {
  test(`${format}: the recording a collapsed result points to is not read as an identifier of tool output`, () => {
    const w = WRITERS[format];
    const items = itemsFromEntries(importTranscriptTextSync(w.write(steps()), w.file).entries);
    const read = [...sourceIdentifiers(items, 'output')].join('\n');
    assert.match(read, /components\/chat\/chat-helpers\/index\.ts/, read);
    assert.doesNotMatch(read, /rollout-lmstudio-chat\.jsonl/, read);
  });
}
