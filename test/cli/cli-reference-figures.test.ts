/**
 * The figures the command-line reference (docs/cli.md) quotes from recorded sessions are the ones
 * `meter` prints for them (run over ../shared/transcripts; skipped when absent).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { sharedTranscriptsDir } from '../support/shared';
import { meterCommand } from '../../src/cli/commands';
import { loadSession } from '../../src/cli/load';
import { recordedK } from '../../src/transcripts/reported';

const dir = sharedTranscriptsDir();
const skip = dir
  ? false
  : '../shared/transcripts not found beside the repository; set CONTEXT_KEEPER_SHARED to run this';
const reference = fs.readFileSync(path.resolve(__dirname, '../../../docs/cli.md'), 'utf8');
/** The reference's section on the commands, on one line. */
const section = () => {
  const start = reference.indexOf('## Commands');
  assert.ok(start >= 0, 'docs/cli.md has a "## Commands" section');
  return reference.slice(start, reference.indexOf('\n## ', start + 1)).replace(/\s+/g, ' ');
};
const files = (agent: string) =>
  dir ? fs.readdirSync(path.join(dir, agent)).map((f) => path.join(dir, agent, f)) : [];

async function meterJson(file: string): Promise<{ tokens: number; reportedTokens: number | null }> {
  const lines: string[] = [];
  await meterCommand(
    file,
    { json: true },
    (l) => lines.push(l),
    () => undefined,
  );
  return JSON.parse(lines.join('\n')) as { tokens: number; reportedTokens: number | null };
}

/** The figure as `meter` prints it, with the reference's thousands separators taken out. */
const whole = (text: string) => Number(text.replace(/,/g, ''));

test(
  "docs/cli.md: Cline's and Aider's reported figures against the count are what meter prints",
  { skip },
  async () => {
    const m = /Cline's ([\d.]+k) against ([\d,]+) counted, Aider's ([\d.]+k) against ([\d,]+)\)/.exec(section());
    assert.ok(m, 'the sentence is in the command-line section');
    for (const [agent, k, count] of [
      ['cline', m[1], m[2]],
      ['aider', m[3], m[4]],
    ] as const) {
      const [file] = files(agent);
      const report = await meterJson(file);
      assert.equal(whole(count), report.tokens, `${agent}: docs/cli.md ${count}, meter ${report.tokens}`);
      assert.ok(report.reportedTokens !== null);
      assert.equal(k, recordedK(report.reportedTokens), agent);
    }
  },
);

test(
  'docs/cli.md: the Claude Code figure above the count is the one meter prints, and over twice the count',
  { skip },
  async () => {
    const text = section();
    const m = /twice the count \(([\d.]+k) against ([\d,]+) counted for the Claude Code recording/.exec(text);
    assert.ok(m, 'the figure is in the command-line section');
    assert.ok(
      text.includes(`"recorded by the provider: ${m[1]} prompt tokens`),
      'the quoted line shows the same figure',
    );
    const reports = await Promise.all(files('claude-code').map(meterJson));
    const match = reports.find((r) => r.reportedTokens !== null && recordedK(r.reportedTokens) === m[1]);
    assert.ok(match, `a Claude Code recording whose newest request reported ${m[1]}`);
    assert.equal(match.tokens, whole(m[2]));
    assert.ok(match.reportedTokens! > 2 * match.tokens);
  },
);

test("docs/cli.md: a Claude Code session's first request is within the range it gives", { skip }, async () => {
  const m = /first request alone is typically about (\d+)-(\d+)k tokens/.exec(section());
  assert.ok(m, 'the range is in the command-line section');
  const recordings = files('claude-code');
  assert.ok(recordings.length > 0);
  for (const file of recordings) {
    const s = await loadSession(file);
    const first = s.transcript.entries.find((e) => e.meta?.reportedPromptTokens !== undefined)?.meta
      ?.reportedPromptTokens;
    assert.ok(first !== undefined, file);
    const k = Math.round(first / 1000);
    assert.ok(k >= Number(m[1]) && k <= Number(m[2]), `${path.basename(file)}: ${first}`);
  }
});
