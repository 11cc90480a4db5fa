/**
 * How transcript lines look: a user-role line a harness wrote (Cline's environment details, its to-do
 * reminder) looks like the harness's, as its label says (its own icon and class, never the user's bold
 * text, folded when long), in every recording format that carries one; the user's own request keeps
 * the user's look. Lines of messages a compaction replaced carry the dimmed class, and the style sheet
 * dims that class with the theme's colours.
 */
import '../support/vscode-fake/register';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Entry } from '../../src/compaction/types';
import { text } from '../../src/demo/modelserver/replies';
import { importTranscriptTextSync } from '../../src/transcripts';
import { itemsForEntry, type ToolNames } from '../../src/views/sidebar/transcript-items';
import { SidebarModel } from '../../src/views/sidebar/view-model';
import type { BudgetView, HostMessage, TranscriptItemView } from '../../src/webview/shared/protocol';
import { foldTitle, lineLook } from '../../src/webview/shared/line-look';
import { WRITERS } from '../support/recordings';
import { filler, serviceFixture } from '../service/fixtures';

const css = readFileSync(path.join(__dirname, '../../../media/main.css'), 'utf8');

/** The declarations of the rule whose selector list holds exactly `selector`. */
function declarationsOf(selector: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const [, prelude, body] of css.matchAll(/([^{}]+)\{([^}]*)\}/g)) {
    const selectors = prelude
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .split(',')
      .map((s) => s.trim());
    if (!selectors.includes(selector)) continue;
    for (const [, name, value] of body.matchAll(/([\w-]+)\s*:\s*([^;]+);/g)) out.set(name, value.trim());
  }
  return out;
}

const ENVIRONMENT = [
  '<environment_details>',
  '# Visual Studio Code Visible Files',
  'src/parser.ts',
  '',
  '# Visual Studio Code Open Tabs',
  'src/parser.ts, src/lexer.ts, test/parser.test.ts',
  '',
  '# Current Time',
  '12/3/2026, 9:00:00 AM (UTC)',
  '</environment_details>',
].join('\n');

const TODO = [
  '# TODO LIST UPDATE REQUIRED - You MUST include the task_progress parameter in your NEXT tool call.',
  '',
  '**Current Progress: 1/3 items completed (33%)**',
  '',
  ENVIRONMENT,
].join('\n');

const REQUEST = 'Fix the parser so that it accepts trailing commas in argument lists, then run the tests.';

for (const format of ['cline', 'openai-chat'] as const) {
  test(`${format}: harness text in the user role looks like the harness's, the user's request like the user's`, () => {
    const { write, file } = WRITERS[format];
    const recording = write([{ user: REQUEST }, { say: 'Looking.' }, { user: TODO }, { say: 'Noted.' }]);
    const raw =
      format === 'cline' ? recording.replaceAll('<feedback>\\n', '').replaceAll('\\n</feedback>', '') : recording;
    const { entries } = importTranscriptTextSync(raw, file);
    const names: ToolNames = new Map();
    const lines = entries.flatMap((entry) =>
      itemsForEntry(entry, names, { running: new Set(), outcomes: new Map() }).filter((l) => l.kind === 'user'),
    );
    const request = lines.find((l) => l.text.includes('trailing commas'));
    const reminder = lines.find((l) => l.text.includes('TODO LIST UPDATE REQUIRED'));
    assert.ok(request && reminder, 'both lines are shown');
    assert.ok(
      reminder.kind === 'user' && reminder.speaker?.startsWith('Cline ('),
      `labelled ${String(reminder.kind === 'user' && reminder.speaker)}`,
    );

    const own = lineLook(request);
    assert.deepEqual(own.classes, ['user']);
    assert.equal(own.icon, 'account');
    assert.equal(own.folded, false);

    const harness = lineLook(reminder);
    assert.ok(harness.classes.includes('harness') && !harness.classes.includes('user'), harness.classes.join(' '));
    assert.notEqual(harness.icon, 'account', 'not the person icon');
    assert.equal(harness.folded, true, 'a long harness text starts folded');
    assert.equal(foldTitle(reminder.text), reminder.text.trimStart().split('\n')[0].slice(0, 79) + '…');
  });
}

test('a short harness line stays open; a harness text around the user words is never folded', () => {
  const common = { entryId: 'e', id: 'e' };
  const short: TranscriptItemView = {
    kind: 'user',
    ...common,
    text: '<environment_details>\n</environment_details>',
    speaker: 'Cline (environment)',
  };
  assert.equal(lineLook(short).folded, false);
  const mixed: TranscriptItemView = {
    kind: 'user',
    ...common,
    text: `${TODO}\n${TODO}`,
    speaker: 'Cline (harness), with your words',
  };
  assert.equal(lineLook(mixed).folded, false);
  assert.ok(lineLook(mixed).classes.includes('harness'));
});

test('the style sheet shows harness lines muted and not bold, and dims replaced lines with theme colours', () => {
  assert.equal(declarationsOf('.turn.harness .text').get('font-weight'), 'normal');
  assert.match(declarationsOf('.turn.harness').get('color') ?? '', /^var\(--vscode-[\w-]+\)$/);
  const dimmed = declarationsOf('.turn.compacted');
  assert.ok(Number(dimmed.get('opacity') ?? '1') < 1, 'faded');
  assert.equal(dimmed.get('color'), 'var(--vscode-disabledForeground)');
});

/** `steps` turns of a user request, a read_file call, its result and an answer. */
function recording(steps: number): Entry[] {
  const out: Entry['message'][] = [{ role: 'system', content: 'You are a recorded agent.' }];
  for (let i = 0; i < steps; i++) {
    out.push({ role: 'user', content: `Step ${i}: ${filler(5, `u${i}`)}` });
    out.push({
      role: 'assistant',
      content: '',
      tool_calls: [
        { id: `c${i}`, type: 'function', function: { name: 'read_file', arguments: `{"path":"f${i}.txt"}` } },
      ],
    });
    out.push({ role: 'tool', tool_call_id: `c${i}`, content: filler(20, `t${i}`) });
    out.push({ role: 'assistant', content: `Done ${i}: ${filler(5, `a${i}`)}` });
  }
  return out.map((message, i) => ({ id: `m${i}`, message }));
}

test('every line of a message a compaction replaced is dimmed, and no live line is', async (t) => {
  const fx = await serviceFixture(() => text('ok'), { window: 200_000 });
  t.after(fx.cleanup);
  await fx.service.importTranscript({ source: 'test', entries: recording(40) });
  const model = new SidebarModel(
    fx.service,
    { source: 'test', hasApiKey: true, sessions: [], readOnly: false },
    () => ({ autoCompact: true, emptyBudget: { used: 0 } as BudgetView }),
  );
  model.snapshot();
  assert.equal((await fx.service.compactNow()).status.kind, 'applied');
  model.checkpointsChanged();
  const state = (model.snapshot() as Extract<HostMessage, { type: 'snapshot' }>).state;
  const replaced = new Set(fx.service.getCheckpoints().flatMap((c) => c.replacedIds));
  const held = state.transcript.filter((l) => replaced.has(l.entryId));
  const live = state.transcript.filter((l) => !replaced.has(l.entryId));
  assert.ok(held.length > 0 && live.length > 0, `${held.length} replaced lines, ${live.length} live ones`);
  for (const line of held) assert.ok(lineLook(line).classes.includes('compacted'), `${line.id} is dimmed`);
  for (const line of live) assert.ok(!lineLook(line).classes.includes('compacted'), `${line.id} is not`);
});
