/** The model table: every row well formed, lookups by the ids people use. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import data from '../../src/models/known-models.json';
import { lookupModel, normalizeModelId, validateTable } from '../../src/models/table';

test('every row has a window, a source URL and a check date; output limits fit the window', () => {
  assert.doesNotThrow(() => validateTable(data.models));
  assert.ok(data.models.length >= 20);
});

test('a bad row is named by index and field', () => {
  const rows = [
    { match: '^a', window: 1000, source: 'https://x', checked: '2025-01-01' },
    { match: '^b', window: 1000, maxOutput: 5000, source: 'https://x', checked: '2025-01-01' },
  ];
  assert.throws(() => validateTable(rows), /models\[1\]\.maxOutput/);
  assert.throws(
    () => validateTable([{ match: '(', window: 1, source: 'https://x', checked: '2025-01-01' }]),
    /models\[0\]\.match is not a regular expression/,
  );
  assert.throws(
    () => validateTable([{ match: 'a', window: 1, source: 'from memory', checked: '2025-01-01' }]),
    /models\[0\]\.source/,
  );
});

test('ids as endpoints spell them: vendor paths, Ollama tags, Azure spellings', () => {
  assert.equal(normalizeModelId('openai/GPT-4o'), 'gpt-4o');
  assert.equal(normalizeModelId('qwen2.5-coder:7b'), 'qwen2.5-coder');
  assert.deepEqual([lookupModel('gpt-4o-mini')?.window, lookupModel('gpt-4o-mini')?.maxOutput], [128000, 16384]);
  assert.equal(lookupModel('gpt-4o-2024-08-06')?.maxOutput, 16384);
  assert.equal(lookupModel('gpt-4.1-mini')?.window, 1047576);
  assert.equal(lookupModel('gpt-5-mini')?.window, 400000);
  assert.equal(lookupModel('o3-mini')?.window, 200000);
  assert.equal(lookupModel('gpt-35-turbo')?.window, 16385);
  assert.equal(lookupModel('gpt-3.5-turbo')?.window, 16385);
  assert.equal(lookupModel('gpt-4')?.window, 8192);
  assert.equal(lookupModel('qwen2.5-coder:7b')?.window, 32768);
  assert.equal(lookupModel('meta-llama/llama-3.1-8b-instruct')?.window, 131072);
  assert.equal(lookupModel('llama3.1:8b')?.window, 131072);
  assert.equal(lookupModel('llama3:8b')?.window, 8192);
  assert.equal(lookupModel('house-model-v2'), undefined);
  assert.equal(lookupModel(''), undefined);
});
