/**
 * The log line of an opening context service names the model the counts and the gauge use (an
 * imported recording's own), with the encoding, and the agent's model apart only when it differs.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openingLine } from '../../src/composition/opening-line';

test("an imported recording's model is the one named for the counts; the agent's model is named apart", () => {
  const line = openingLine({
    model: 'claude-opus-4-7',
    encoding: 'o200k_base',
    recorded: true,
    agentModel: 'gpt-4o-mini',
    endpoint: ' at https://api.openai.com/v1',
    summaries: 'extractive',
  });
  assert.equal(
    line,
    "Opening the context service: model claude-opus-4-7 (the recording's), counted with o200k_base; agent model gpt-4o-mini at https://api.openai.com/v1; summaries extractive.",
  );
  assert.ok(line.indexOf('claude-opus-4-7') < line.indexOf('gpt-4o-mini'), 'the counted model comes first');
});

test('a working session names its one model once, with where it is reached', () => {
  assert.equal(
    openingLine({
      model: 'gpt-4o-mini',
      encoding: 'o200k_base',
      recorded: false,
      agentModel: 'gpt-4o-mini',
      endpoint: ' from VS Code',
      summaries: 'gpt-4o-mini',
    }),
    'Opening the context service: model gpt-4o-mini from VS Code, counted with o200k_base; summaries gpt-4o-mini.',
  );
});
