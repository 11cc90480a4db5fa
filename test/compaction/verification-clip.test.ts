/**
 * The verification line under "Current work and next step" keeps the end of the run's output (its
 * verdict) and cuts its start at a line or word boundary with a marker, never mid-word, in several
 * recording formats.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WRITERS, type Step } from '../support/recordings';
import { importTranscriptTextSync } from '../../src/transcripts';
import { itemsFromEntries } from '../../src/compaction/context';
import { ExtractiveSummarizer } from '../../src/compaction/summary/extractive';
import { clipStart } from '../../src/compaction/summary/message-facts';

const LONG =
  "src/map.tsx(12,5): error TS2322: Type '{ position: LatLng; title: string; }' is not assignable to type " +
  'IntrinsicAttributes & AdvancedMarkerElementOptions & AdvancedMarkerEventProps & RefAttributes<AdvancedMarkerRef>.';

for (const format of ['claude-code', 'codex', 'openai-chat'] as const) {
  test(`${format}: a long verification output is cut at a word boundary with a marker`, () => {
    const steps: Step[] = [
      { user: 'check the types of the map component' },
      { tool: 'bash', command: 'npx tsc --noEmit', output: LONG, ok: false },
      { say: 'One type error remains in src/map.tsx.' },
    ];
    const { write, file } = WRITERS[format];
    const entries = importTranscriptTextSync(write(steps), file).entries;
    const summary = new ExtractiveSummarizer((t) => Math.ceil(t.length / 4)).notes(itemsFromEntries(entries), 6000);
    const line = /^- Latest verification: [^\n]*? → ([^\n]*)$/m.exec(summary)?.[1];
    assert.ok(line, summary);
    assert.ok(line.length <= 160, line);
    assert.ok(line.startsWith('… '), line);
    // What follows the marker starts a word of the output (the character before it there is a
    // space) and runs to the output's end (a format may print its exit status as a line after it).
    const kept = line.slice(2).split(' | ')[0];
    const at = LONG.indexOf(kept);
    assert.ok(at > 0 && LONG[at - 1] === ' ', `${line}\n${LONG}`);
    assert.ok(LONG.endsWith(kept), line);
  });
}

test('clipStart keeps the end, cut where a line or word begins', () => {
  assert.equal(clipStart('short text', 40), 'short text');
  const lines = `${'x'.repeat(30)} first line | second line ends here | verdict: 3 failed`;
  assert.equal(clipStart(lines, 44), '… second line ends here | verdict: 3 failed');
  const words = 'alpha beta gamma delta epsilon zeta eta theta iota kappa';
  const cut = clipStart(words, 30);
  assert.ok(cut.startsWith('… ') && cut.length <= 30, cut);
  assert.ok(words.endsWith(cut.slice(2)) && words[words.indexOf(cut.slice(2)) - 1] === ' ', cut);
});
