/**
 * An imported recording that holds the provider's usage shows the provider's prompt tokens of its
 * newest request beside the gauge's own count (the recording's messages and the tool schemas it recorded), also after
 * switching away and back; a recording without usage shows no such figure. Over the running
 * extension (typed `vscode` fake, real context service) and on the gauge's note text.
 */
import '../support/vscode-fake/register';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type * as vscode from 'vscode';
import { activate, type ContextKeeperApi } from '../../src/extension';
import { recordedPromptNote } from '../../src/webview/shared/gauge-geometry';
import { countAsImported } from '../../src/views/import-count';
import { commands, host, resetVscodeFake, Uri } from '../support/vscode-fake';
import { fakeExtensionContext } from '../support/vscode-fake/context';
import { claudeCodeWithUsage as claudeCode } from '../support/claude-code-usage';

let storage: string;
let context: vscode.ExtensionContext;
let api: ContextKeeperApi;

before(() => {
  resetVscodeFake();
  host.setSetting('contextKeeper.model', 'gpt-4o-mini');
  storage = mkdtempSync(path.join(tmpdir(), 'ck-recorded-prompt-'));
  writeFileSync(path.join(storage, 'session.jsonl'), claudeCode);
  context = fakeExtensionContext(storage);
  api = activate(context);
});
after(() => {
  for (const subscription of context.subscriptions) subscription.dispose();
  rmSync(storage, { recursive: true, force: true });
});

test('recordedPromptNote names the provider figure, what it includes, and the gauge figure as what is sent', () => {
  assert.equal(recordedPromptNote({ used: 54_301 }), undefined);
  const note = recordedPromptNote({ used: 54_301, recordedPromptTokens: 135_528 }) ?? '';
  assert.match(
    note,
    /^Recorded by the provider: 135\.5k prompt tokens for the recording's newest request, including what the recording does not hold \(system prompt, tool schemas, hidden reasoning\)\./,
  );
  assert.match(note, /The gauge counts the recording's messages and the tool schemas it recorded: 54,301 tokens\.$/);
});

test('recordedPromptNote says a figure far below the count is a last request the agent had condensed or cut', () => {
  const note = recordedPromptNote({ used: 365_000, recordedPromptTokens: 69_400 }) ?? '';
  assert.match(
    note,
    /^Recorded by the provider: 69\.4k prompt tokens for the recording's newest request, less than the whole recording: the agent condensed or cut its own context/,
  );
  assert.doesNotMatch(note, /does not hold/);
  assert.match(note, /The gauge counts the recording's messages and the tool schemas it recorded: 365,000 tokens\.$/);
});

test('an imported Claude Code recording carries its newest reported prompt tokens beside the count, after switching too', async () => {
  await commands.executeCommand('contextKeeper.importTranscript', Uri.file(path.join(storage, 'session.jsonl')));
  const view = api.getViewState();
  assert.equal(view.budget.recordedPromptTokens, 135_528);
  // A few messages plus the system prompt and the agent's tool schemas: far below the recorded figure.
  assert.ok(view.budget.used < 2000, `the gauge's own figure is the counted context: ${view.budget.used}`);
  const imported = view.sessionId!;
  await commands.executeCommand('contextKeeper.newSession');
  assert.equal(api.getViewState().budget.recordedPromptTokens, undefined, 'a working session has no recorded figure');
  await commands.executeCommand('contextKeeper.switchSession', imported);
  assert.equal(
    api.getViewState().budget.recordedPromptTokens,
    135_528,
    'the recording keeps its figure when shown again',
  );
});

test('a recording without usage shows no recorded figure', async () => {
  await commands.executeCommand(
    'contextKeeper.importTranscript',
    Uri.file(path.resolve(__dirname, '../../../samples/demo-session.json')),
  );
  assert.equal(api.getViewState().budget.recordedPromptTokens, undefined);
});

test('after ContextKeeper compacted a recording the agent had condensed, the note still says condensed, against the count as imported', () => {
  // Aider-like: recorded 24.0k, 292k counted as imported, 17k after Compact.
  const note = recordedPromptNote({ used: 17_000, recordedPromptTokens: 24_000, importedTokens: 292_000 }) ?? '';
  assert.match(note, /newest request, less than the whole recording: the agent condensed or cut its own context/);
  assert.doesNotMatch(note, /does not hold/);
  assert.match(
    note,
    /\(compared with the recording as imported, 292,000 tokens; ContextKeeper has compacted it since\)/,
  );
  assert.equal(note.split('17,000').length - 1, 1, 'the compacted count is said once');
  // Without the imported count the compacted figure would have flipped the reason.
  assert.match(recordedPromptNote({ used: 17_000, recordedPromptTokens: 24_000 }) ?? '', /does not hold/);
});

test('after ContextKeeper compacted a recording whose figure was above its count, the note still says above, not condensed', () => {
  const note = recordedPromptNote({ used: 9_000, recordedPromptTokens: 135_528, importedTokens: 54_301 }) ?? '';
  assert.match(note, /newest request, including what the recording does not hold/);
  assert.match(note, /recording as imported, 54,301 tokens/);
});

test("countAsImported is the first ContextKeeper checkpoint's count before, only while one is in force", () => {
  assert.equal(countAsImported([]), undefined);
  assert.equal(
    countAsImported([{ trigger: 'import', tokensBefore: 400_000 }]),
    undefined,
    "the recording's own compactions are part of it as imported",
  );
  const own = [
    { trigger: 'import' as const, tokensBefore: 400_000 },
    { trigger: 'manual' as const, tokensBefore: 292_000 },
    { trigger: 'manual' as const, tokensBefore: 40_000 },
  ];
  assert.equal(countAsImported(own), 292_000);
  assert.equal(
    countAsImported(own.map((c) => ({ ...c, restored: c.trigger !== 'import' }))),
    undefined,
    'all restored: the count is the recording again',
  );
});
