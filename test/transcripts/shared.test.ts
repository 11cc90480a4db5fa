/**
 * Every recorded transcript in the shared test data imports, is detected right, has the counts the
 * transcripts README states (where its definitions match ours), valid tool pairing, unique and stable
 * ids, and no image stored as text. Skipped when the shared data is not present.
 */
import * as assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { detectFormat, importTranscript, type ImportedTranscript, type TranscriptFormat } from '../../src/transcripts';
import { sharedTranscriptsDir } from '../support/shared';
import { assertWellFormed, roles } from './helpers';

interface Expected {
  format: TranscriptFormat;
  check(t: ImportedTranscript): void;
}

const EXPECTED: Record<string, Expected> = {
  'claude-code/fundwise-split-settlement.jsonl': {
    format: 'claude-code',
    check(t) {
      // README: 71 API responses (one assistant message each), 83 tool_use / 83 tool_result, 31 thinking.
      assert.equal(roles(t).assistant, 71);
      assert.equal(t.stats.toolCalls, 83);
      assert.equal(t.stats.toolResults, 83);
      assert.equal(t.skipped.thinking, 31);
      assert.equal(t.skipped['queue-operation'], 6);
      // 86 user lines = 83 tool results + 3 prompts.
      assert.equal(roles(t).user, 3);
      assert.equal(t.model, 'claude-opus-4-7');
      assert.ok(
        t.entries.filter((e) => e.message.role === 'assistant').every((e) => (e.meta?.reportedPromptTokens ?? 0) > 0),
      );
    },
  },
  'claude-code/privacy-x402-enclave.jsonl': {
    format: 'claude-code',
    check(t) {
      assert.equal(roles(t).assistant, 34);
      assert.equal(t.stats.toolCalls, 32);
      assert.equal(t.stats.toolResults, 32);
      for (const type of [
        'permission-mode',
        'file-history-snapshot',
        'ai-title',
        'last-prompt',
        'attachment',
        'system',
      ]) {
        assert.ok(t.skipped[type] > 0, `${type} counted as skipped`);
      }
      assert.equal(t.skipped['file-history-snapshot'], 4);
      assert.equal(t.warnings.length, 0);
    },
  },
  'codex/chatbot-ui-lmstudio.jsonl': {
    format: 'codex',
    check(t) {
      // README: 2 message items (both user), 39 function_call / 39 outputs, window 258,400.
      assert.equal(roles(t).user, 2);
      assert.equal(t.stats.toolCalls, 39);
      assert.equal(t.stats.toolResults, 39);
      assert.equal(t.contextWindow, 258_400);
      assert.equal(t.skipped.reasoning, 38);
      assert.equal(t.skipped.token_count, 79);
      assert.equal(t.model, 'gpt-5.1-codex');
      const assistants = t.entries.filter((e) => e.message.role === 'assistant');
      assert.ok(assistants.every((e) => (e.meta?.reportedPromptTokens ?? 0) > 0));
    },
  },
  'openhands/trajectory-visualizer-rca.events.json': {
    format: 'openhands',
    check(t) {
      // README: 5 MessageEvents (3 user, 2 assistant), 1 system prompt, 46 actions / 46 observations.
      assert.equal(roles(t).user, 3);
      assert.equal(roles(t).system, 1);
      assert.equal(roles(t).assistant, 46 + 2);
      assert.equal(t.stats.toolCalls, 46);
      assert.equal(t.stats.toolResults, 46);
      assert.equal(t.tools.length, 6);
      assert.equal(t.compactions.length, 1);
      assert.equal(t.compactions[0].replacedIds.length, 56);
      assert.match(t.compactions[0].summary, /^USER_CONTEXT:/);
    },
  },
  'swe-agent/scikit-learn__scikit-learn-25102.traj': {
    format: 'swe-agent',
    check(t) {
      // README: 54 history messages (1 system, 27 user, 26 assistant); 26 steps, actions in text.
      assert.deepEqual(roles(t), { system: 1, user: 27, assistant: 26 });
      assert.equal(t.stats.toolCalls, 0);
      assert.equal(t.skipped['trajectory-step'], 26);
      assert.ok(t.entries.every((e) => !('agent' in e.message) && !('message_type' in e.message)));
    },
  },
  'aider/waterfront.aider.chat.history.md': {
    format: 'aider',
    check(t) {
      // README: 98 user messages, 17 of them slash commands and 11 empty inputs (`#### <blank>`); neither
      // was sent to the model, so both are skipped here.
      assert.equal(roles(t).user + t.skipped['slash-command'] + t.skipped['blank-input'], 98);
      assert.equal(t.skipped['slash-command'], 17);
      assert.equal(t.skipped['blank-input'], 11);
      assert.equal(t.skipped.session, 28);
      // 67 "> Tokens:" lines, each ending one model reply.
      assert.equal(t.entries.filter((e) => e.meta?.reportedPromptTokens !== undefined).length, 67);
    },
  },
  'cline/marine-response.api_conversation_history.json': {
    format: 'cline',
    check(t) {
      // README: 443 messages (222 user, 221 assistant), 231 tool_use, 1 image.
      assert.equal(roles(t).assistant, 221);
      assert.equal(roles(t).user, 222);
      assert.equal(t.stats.toolCalls, 231);
      assert.equal(t.stats.images, 1);
      // README counts 211 results with a first-line pattern; 12 more results have an argument spanning
      // lines (ask_followup_question, node -e scripts) or holding "]". 231 - 223 = 8 interrupted calls.
      assert.equal(t.stats.toolResults, 223);
      const image = t.entries.find(
        (e) => Array.isArray(e.message.content) && e.message.content.some((p) => p.type === 'image_url'),
      );
      assert.ok(image?.meta?.imageSizes?.[0]?.width, 'PNG size read from the header');
    },
  },
  'openai-chat/city-bus-platform.trajectory.json': {
    format: 'openai-chat',
    check(t) {
      // README: 619 messages (16 user, 353 assistant, 248 tool, 2 system), 249 tool_calls.
      // The 2 system messages are compaction markers; split parallel calls merge (353 -> 330).
      assert.equal(roles(t).user, 16);
      assert.equal(roles(t).tool, 248);
      assert.equal(roles(t).system, undefined);
      assert.equal(t.stats.toolCalls, 249);
      assert.equal(t.skipped.compact_boundary, 2);
      assert.equal(t.compactions.length, 2);
      assert.equal(t.compactions[0].summaryEntryId, 'm113');
      assert.equal(t.compactions[1].replacedIds[0], 'm113', 'the second compaction replaces the first summary');
    },
  },
};

const dir = sharedTranscriptsDir();

test('shared transcripts: every file is covered by an expectation', (t) => {
  if (!dir) return t.skip('…/shared/transcripts not found');
  assert.deepEqual(listFiles(dir).sort(), Object.keys(EXPECTED).sort());
});

for (const [relative, expected] of Object.entries(EXPECTED)) {
  test(`shared transcript ${relative}`, async (t) => {
    if (!dir) return t.skip('…/shared/transcripts not found');
    const file = path.join(dir, relative);
    assert.equal(detectFormat(readFileSync(file, 'utf8')), expected.format, 'detected from content without the name');
    const first = await importTranscript(file);
    assert.equal(first.format, expected.format);
    assertWellFormed(first);
    expected.check(first);
    const second = await importTranscript(file);
    assert.deepEqual(
      second.entries.map((e) => e.id),
      first.entries.map((e) => e.id),
      'ids are stable',
    );
    assert.deepEqual(second, first, 'import is deterministic');
  });
}

function listFiles(root: string): string[] {
  const out: string[] = [];
  for (const sub of readdirSync(root)) {
    const full = path.join(root, sub);
    if (!statSync(full).isDirectory()) continue;
    for (const name of readdirSync(full)) out.push(`${sub}/${name}`);
  }
  return out;
}
