import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { importTranscriptText } from '../../src/transcripts';
import { text } from '../../src/demo/modelserver/replies';
import { serviceFixture } from './fixtures';

/** Messages of the generated recording: past the ~100k arguments a spread into one call can take. */
const MESSAGES = 300_000;

/** A recording of `n` chat messages (system prompt, then user/assistant turns with a tool call every tenth). */
function recording(n: number): string {
  const parts: string[] = [JSON.stringify({ role: 'system', content: 'Recorded system prompt.' })];
  for (let i = 1; parts.length < n; i++) {
    parts.push(JSON.stringify({ role: 'user', content: `Step ${i}: check src/module${i % 97}.ts` }));
    if (i % 10 === 0) {
      parts.push(
        JSON.stringify({
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: `c${i}`, type: 'function', function: { name: 'read_file', arguments: `{"path":"m${i}.ts"}` } },
          ],
        }),
      );
      parts.push(JSON.stringify({ role: 'tool', tool_call_id: `c${i}`, content: `export const v${i} = ${i};` }));
    }
    parts.push(JSON.stringify({ role: 'assistant', content: `Checked module ${i % 97}; nothing to change.` }));
  }
  return `[${parts.slice(0, n).join(',\n')}]`;
}

test('a 300k-message recording imports into a session and is saved whole', async (t) => {
  // The editor's import path: the file's bytes are read into memory and imported from there.
  const imported = await importTranscriptText(Buffer.from(recording(MESSAGES)), 'recording.json');
  assert.equal(imported.entries.length, MESSAGES);

  const fx = await serviceFixture(() => text('continuing'), { window: 64_000 });
  t.after(fx.cleanup);
  await fx.service.importTranscript({
    source: `${imported.format}: recording.json`,
    entries: imported.entries,
    compactions: imported.compactions,
  });
  const { entries } = fx.service.getTranscript();
  assert.equal(entries.length, MESSAGES);
  assert.equal(entries.at(-1)?.id, imported.entries.at(-1)?.id);

  // Every entry is on disk, one JSON line each (reopening would double the test's time).
  const saved = readFileSync(path.join(fx.service.sessionDir!, 'transcript.jsonl'), 'utf8');
  let lines = 0;
  for (let at = saved.indexOf('\n'); at >= 0; at = saved.indexOf('\n', at + 1)) lines++;
  assert.equal(lines, MESSAGES);
  assert.ok(saved.endsWith(`${JSON.stringify(entries.at(-1))}\n`));
});
