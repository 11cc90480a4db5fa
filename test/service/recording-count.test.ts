/**
 * An imported recording opened for inspection is counted as the command line's `meter` counts it:
 * its messages (its own compactions applied) and the tool schemas it recorded, never the agent's;
 * the same figure after opening it again. A working session counts the agent's tool schemas.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { text } from '../../src/demo/modelserver/replies';
import { importTranscriptTextSync } from '../../src/transcripts';
import { loadSession } from '../../src/cli/load';
import { TokenMeter } from '../../src/compaction/meter/meter';
import { claudeCode, claudeCodeCompacted, openaiChat, type Step } from '../support/recordings';
import { filler, serviceFixture } from './fixtures';

const steps: Step[] = [
  { user: 'Why is the timeline empty?' },
  { tool: 'read', path: '/w/src/parse.ts', output: filler(20, 'parse') },
  { say: 'parseEvents drops events without a timezone.' },
  { user: 'Fix it.' },
  { tool: 'bash', command: 'npm test', output: filler(5, 'test'), exit: 0 },
  { say: 'Fixed; the tests pass.' },
];
const withTools = () => {
  const { messages } = JSON.parse(openaiChat(steps)) as { messages: unknown[] };
  const tools = [
    {
      type: 'function',
      function: {
        name: 'Bash',
        description: 'Runs a command in the shell.',
        parameters: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] },
      },
    },
  ];
  return JSON.stringify({ model: 'gpt-4o', messages, tools });
};
const RECORDINGS = {
  'claude-code': {
    file: 'session.jsonl',
    text: () => claudeCodeCompacted(claudeCode(steps), 'Summary: the parser bug was found.', 'Now add a test.'),
  },
  'openai-chat with tool schemas': { file: 'trajectory.json', text: withTools },
};

for (const [name, { file, text: recording }] of Object.entries(RECORDINGS)) {
  test(`${name}: the inspected recording's count equals the command line's meter, also after opening it again`, async (t) => {
    const dir = mkdtempSync(path.join(tmpdir(), 'ck-recording-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const written = path.join(dir, file);
    writeFileSync(written, recording());
    const cli = await loadSession(written, 'gpt-4o');
    const metered = cli.meter.measure(cli.items, cli.transcript.tools);

    const fx = await serviceFixture(() => text('ok'), { exactTokens: true, countsRecording: true, window: 200_000 });
    t.after(fx.cleanup);
    await fx.service.importTranscript({ source: name, ...importTranscriptTextSync(recording(), file) });
    const budget = fx.service.getBudget();
    assert.equal(budget.breakdown.tools, metered.breakdown.tools, 'the tool schemas the recording holds, no others');
    assert.equal(budget.used, metered.total);

    await fx.service.whenSaved();
    fx.service.dispose();
    await fx.service.whenClosed();
    const reopened = await fx.reopen({ countsRecording: true });
    assert.equal(reopened.getBudget().used, metered.total, 'the same count after opening it again');
  });
}

test('a working session built from the same recording counts the tool schemas its agent sends', async (t) => {
  const fx = await serviceFixture(() => text('ok'), { exactTokens: true, window: 200_000 });
  t.after(fx.cleanup);
  const imported = importTranscriptTextSync(withTools(), 'trajectory.json');
  await fx.service.importTranscript({ source: 'openai-chat', ...imported });
  const meter = new TokenMeter({ model: 'gpt-4o' });
  const context = fx.service.getTranscript().context;
  const agent = meter.measure(context, fx.service.getToolSchemas()).breakdown.tools;
  const recorded = meter.measure(context, imported.tools).breakdown.tools;
  // The agent's schemas are several times the recording's one: the count is near the former.
  assert.ok(recorded > 0 && agent > 2 * recorded, `agent ${agent}, recorded ${recorded}`);
  const own = fx.service.getBudget().breakdown.tools;
  assert.ok(
    Math.abs(own - agent) < Math.abs(own - recorded),
    `counted ${own}: the agent's schemas, not the recording's`,
  );
});
