/**
 * The scorecard counts the environment a span's commands found (a program missing, a version
 * printed) and how much of it the summary names, as it counts files and commits: the `kept:` line
 * the command line prints, `compact --json` (`retention`) and the checkpoint document all show it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { importTranscriptTextSync } from '../../../src/transcripts';
import { itemsFromEntries } from '../../../src/compaction/context';
import { scorecardDetails, scorecardLeftOut, scorecardLine } from '../../../src/compaction/retention/scorecard';
import { compactExtractive, WRITERS, type Step } from '../../support/recordings';

const NOTES = Array.from(
  { length: 30 },
  (_, i) => `Step ${i}: the build of module ${i} needs Maven, so the agent checks what is installed first.`,
).join(' ');
const steps: Step[] = [
  { user: 'Build the project and run its tests.' },
  { tool: 'bash', command: 'mvn -v', output: 'bash: mvn: command not found', ok: false, exit: 127 },
  { tool: 'bash', command: 'java -version', output: 'openjdk version "17.0.2" 2022-01-18' },
  { say: NOTES },
  { tool: 'bash', command: 'ls', output: 'pom.xml\nsrc' },
  { say: NOTES },
  { user: 'Use Gradle instead.' },
];

for (const format of ['claude-code', 'codex', 'openai-chat', 'cline'] as const) {
  const { write, file } = WRITERS[format];
  test(`${format}: the scorecard counts the programs found missing or found, and names those left out`, async () => {
    const t = importTranscriptTextSync(write(steps), file);
    const r = await compactExtractive(itemsFromEntries(t.entries));
    const card = r.checkpoints.find((c) => c.retention)?.retention;
    assert.ok(card, 'a scorecard');
    assert.equal(card.environment?.total, 2, JSON.stringify(card.environment));
    const summary = r.context.find((i) => i.kind === 'summary');
    const text = JSON.stringify(summary?.message.content ?? '');
    const named = ['mvn', 'java'].filter((p) => new RegExp(`\\b${p}\\b`).test(text)).length;
    assert.equal(card.environment?.named, named);
    assert.match(scorecardLine(card), new RegExp(`environment ${named}/2 named`));
    assert.ok(scorecardDetails(card).includes(`Environment (programs found missing or found): ${named} of 2 named`));
    // A summary that names neither lists both as left out.
    const bare = {
      ...card,
      environment: { total: 2, named: 0 },
      missing: { ...card.missing, environment: ['mvn', 'java'] },
    };
    assert.ok(scorecardLeftOut(bare).includes('Environment not named: mvn; java'));
  });
}
