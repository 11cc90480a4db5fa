/**
 * The question before a compaction over the summary call limit (`contextKeeper.maxSummaryCalls`),
 * over the running extension (typed `vscode` fake, a loopback model server that counts the summary
 * model's calls): a manual compaction, and continuing a recording many times larger than the model's
 * window. The modal states the estimated calls, the choices and the setting; each choice does what it
 * says: the model with the calls it needs, no model at all, or nothing.
 */
import '../support/vscode-fake/register';
import { afterEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { start } from '../../src/demo/modelserver/wire';
import { text } from '../../src/demo/modelserver/replies';
import { commands, host, Uri } from '../support/vscode-fake';
import type { ShownMessage } from '../support/vscode-fake/host';
import { activateWithModel, type ExtensionWithModel } from '../support/vscode-fake/extension-with-model';
import { openaiChat, type Step } from '../support/recordings';
import { until } from '../support/until';
import type { CompactOutcome } from '../../src/service/compaction/outcome';
import { timesWindow } from '../../src/views/commands/call-limit';

test('the size of a recording against the window: one decimal below ten windows, whole above', () => {
  assert.equal(timesWindow(26_000, 16_000), '1.6×');
  assert.equal(timesWindow(4_000, 16_000), '0.3×');
  assert.equal(timesWindow(366_000, 12_000), '31×');
  assert.equal(timesWindow(5, 0), '5.0×', 'a window of 0 does not divide by zero');
});

const SUMMARY_MODEL = 'summary-model';
const NOTES = '## Objective\nRead the modules.\n## Work completed\n- The agent read every module.';
/** The model's window, in tokens: the recording below is many times larger. */
const WINDOW = 8_000;

/** A recording of `reads` file reads of about 4,000 characters each (about 1,000 tokens). */
function recording(reads: number): Step[] {
  const steps: Step[] = [{ user: 'Read every module and tell me what each one does.' }];
  for (let i = 1; i <= reads; i++)
    steps.push({ tool: 'read', path: `src/module${i}.ts`, output: `export const value${i} = ${i};\n`.repeat(130) });
  steps.push({ say: 'I read every module.' });
  return steps;
}

let running: { extension: ExtensionWithModel; dir: string } | undefined;
afterEach(async () => {
  await running?.extension.close();
  if (running) rmSync(running.dir, { recursive: true, force: true });
  running = undefined;
});

/**
 * The extension at a small window with a summary model on a small window of its own (so the
 * recording needs many summary calls), the recording imported; `calls()` counts the summary calls.
 */
async function setUp() {
  const server = await start({ responder: () => text(NOTES) });
  const extension = activateWithModel(server, 'ck-call-limit-');
  const dir = mkdtempSync(path.join(tmpdir(), 'ck-call-limit-rec-'));
  running = { extension, dir };
  host.setSetting('contextKeeper.contextWindow', WINDOW);
  host.setSetting('contextKeeper.summary.model', SUMMARY_MODEL);
  host.setSetting('contextKeeper.summary.baseUrl', server.url);
  host.setSetting('contextKeeper.summary.contextWindow', 4_096);
  const file = path.join(dir, 'chat.json');
  writeFileSync(file, openaiChat(recording(60)));
  await commands.executeCommand('contextKeeper.importTranscript', Uri.file(file));
  const api = extension.api;
  await until(() => api.getViewState().budget.counting !== true, 'the exact count');
  const calls = () => server.requests.filter((r) => r.model === SUMMARY_MODEL).length;
  return { api, calls };
}

/** The question, checked for what every variant of it states; returns the estimated calls. */
function checkQuestion(shown: ShownMessage | undefined, what: RegExp): number {
  assert.ok(shown, 'a question was asked');
  assert.equal(shown.severity, 'warning');
  assert.equal(shown.modal, true, 'modal: it is seen even with notifications silenced');
  const match = /needs about (\d+) summarizer calls; the limit is 4 per compaction\.$/.exec(shown.message);
  assert.ok(match, shown.message);
  assert.match(shown.message, what);
  const needed = Number(match[1]);
  assert.ok(needed > 4, `${needed} calls are over the limit`);
  // The first button is the modal's default (Enter): the bounded choice, never the billed run.
  assert.deepEqual(shown.items, [
    'Keep the Limit (4 Calls)',
    'Summarize Without a Model',
    `Use the Model (${needed} Calls)`,
  ]);
  assert.match(
    shown.detail ?? '',
    /^Keep the limit: the model makes 4 calls and the oldest messages beyond them are summarized without a model/,
  );
  assert.match(
    shown.detail ?? '',
    /summarize everything without a model \(no calls\), use the model for all \d+ calls .*, or cancel/,
  );
  assert.match(shown.detail ?? '', /the setting contextKeeper\.maxSummaryCalls\.$/);
  return needed;
}

const question = () => host.messages.find((m) => m.modal && /summarizer calls/.test(m.message));

test('manual compaction over the call limit: the question first; dismissed (Cancel), nothing is compacted and no call made', async () => {
  const { api, calls } = await setUp();
  const before = api.getViewState().budget.used;
  host.user.message = () => undefined;
  const outcome = await commands.executeCommand('contextKeeper.compactConversation', {});
  assert.equal(outcome, undefined);
  checkQuestion(question(), /^Compacting this conversation needs/);
  assert.equal(calls(), 0);
  assert.equal(api.getViewState().checkpoints.length, 0);
  assert.equal(api.getViewState().budget.used, before);
});

test('manual compaction, "Use the Model (N Calls)": the model reads every message, in at most the calls estimated', async () => {
  const { api, calls } = await setUp();
  let needed = 0;
  host.user.message = (shown) => (shown.modal ? shown.items[2] : undefined);
  const outcome = await commands.executeCommand<CompactOutcome>('contextKeeper.compactConversation', {});
  needed = checkQuestion(question(), /^Compacting this conversation needs/);
  assert.equal(outcome.status.kind, 'applied');
  assert.ok(calls() > 4, `${calls()} calls: more than the limit, as chosen`);
  assert.ok(calls() <= needed, `${calls()} calls, at most the ${needed} estimated`);
  const summaries = api.getViewState().checkpoints.filter((c) => c.strategy === 'summary');
  assert.ok(summaries.length > 0);
  assert.ok(
    summaries.every((c) => c.withoutModel === 0 && c.summarizerModel === SUMMARY_MODEL),
    'no message went without the model',
  );
});

test('manual compaction, "Keep the Limit": the model makes the calls of the limit, the oldest part is written without it', async () => {
  const { api, calls } = await setUp();
  host.user.message = (shown) => (shown.modal ? shown.items[0] : undefined);
  const outcome = await commands.executeCommand<CompactOutcome>('contextKeeper.compactConversation', {});
  checkQuestion(question(), /^Compacting this conversation needs/);
  assert.equal(outcome.status.kind, 'applied');
  assert.ok(calls() > 0 && calls() <= 4, `${calls()} calls, within the limit of 4`);
  const checkpoints = api.getViewState().checkpoints.filter((c) => c.strategy !== 'collapse');
  assert.ok(
    checkpoints.some((c) => (c.withoutModel ?? 0) > 0 || c.strategy === 'extractive'),
    'the part beyond the limit went without the model',
  );
});

test('manual compaction, "Summarize Without a Model": compacted with no model call', async () => {
  const { api, calls } = await setUp();
  host.user.message = (shown) => (shown.modal ? 'Summarize Without a Model' : undefined);
  const outcome = await commands.executeCommand<CompactOutcome>('contextKeeper.compactConversation', {});
  checkQuestion(question(), /^Compacting this conversation needs/);
  assert.equal(outcome.status.kind, 'applied');
  assert.equal(calls(), 0);
  const summaries = api.getViewState().checkpoints.filter((c) => c.strategy !== 'collapse');
  assert.ok(summaries.length > 0);
  assert.ok(summaries.every((c) => c.strategy === 'extractive' && c.summarizerModel === 'extractive'));
});

test('continuing a recording many times the window: the question names the size; dismissed, the recording stays as it was', async () => {
  const { api, calls } = await setUp();
  assert.equal(api.getViewState().readOnly, true, 'an imported recording is read-only');
  const { used, window } = api.getViewState().budget;
  const times = used / window;
  assert.ok(times >= 5 && times < 10, `${times} times the window`);
  host.user.message = () => undefined;
  await commands.executeCommand('contextKeeper.continueInNewTask');
  checkQuestion(
    question(),
    new RegExp(
      `^Continuing this recording \\(${times.toFixed(1).replace('.', '\\.')}× the model's window\\) needs about`,
    ),
  );
  assert.equal(api.getViewState().readOnly, true, 'not continued');
  assert.equal(calls(), 0);
});

test('continuing a recording, "Use the Model (N Calls)": the new session is compacted by the model, every message read', async () => {
  const { api, calls } = await setUp();
  host.user.message = (shown) => (shown.modal ? shown.items[2] : undefined);
  await commands.executeCommand('contextKeeper.continueInNewTask');
  const needed = checkQuestion(question(), /^Continuing this recording/);
  assert.equal(api.getViewState().readOnly, false, 'continued in a working session');
  await until(() => api.getViewState().checkpoints.some((c) => c.strategy === 'summary'), 'the summary');
  // Estimated on the recording; the new session also counts the agent's system prompt and tools, so
  // reaching the same target may take a few calls more, which the choice of the model covers too.
  assert.ok(calls() > 4 && calls() <= Math.ceil(needed * 1.05), `${calls()} calls of ${needed}`);
  const summaries = api.getViewState().checkpoints.filter((c) => c.strategy === 'summary');
  assert.ok(summaries.every((c) => c.withoutModel === 0));
});

test('continuing a recording over the window within the call limit: nothing is asked and the new session is compacted at once, within budget', async () => {
  const { api } = await setUp();
  host.setSetting('contextKeeper.maxSummaryCalls', 64);
  host.setSetting('contextKeeper.summary.contextWindow', 32_768);
  await until(
    () => api.getViewState().budget.counting !== true && api.getViewState().budget.used > WINDOW,
    'the recording, counted over the window',
  );
  await commands.executeCommand('contextKeeper.continueInNewTask');
  assert.equal(question(), undefined, 'within the limit, nothing is asked');
  assert.equal(api.getViewState().readOnly, false, 'continued in a working session');
  await until(() => api.getViewState().checkpoints.some((c) => c.strategy !== 'collapse'), 'the compaction');
  assert.ok(api.getViewState().budget.used < WINDOW, `${api.getViewState().budget.used} tokens, within the window`);
  const made = api.getViewState().checkpoints.filter((c) => !c.restored);
  assert.ok(
    made.every((c) => c.trigger === 'continue' || c.trigger === 'import'),
    'its checkpoints say they were made on continuing the recording, not on request',
  );
  assert.ok(made.some((c) => c.trigger === 'continue'));
});

test('continuing a recording, "Summarize Without a Model": the new session is compacted with no model call', async () => {
  const { api, calls } = await setUp();
  host.user.message = (shown) => (shown.modal ? 'Summarize Without a Model' : undefined);
  await commands.executeCommand('contextKeeper.continueInNewTask');
  checkQuestion(question(), /^Continuing this recording/);
  assert.equal(api.getViewState().readOnly, false);
  await until(() => api.getViewState().checkpoints.some((c) => c.strategy === 'extractive'), 'the summary');
  assert.equal(calls(), 0);
  assert.ok(api.getViewState().checkpoints.every((c) => c.strategy !== 'summary'));
});
