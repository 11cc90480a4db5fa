/**
 * `compact` is a compaction on request: its checkpoints are labelled `manual`, and it applies where
 * an automatic compaction of the same context refuses (the result stays above the trigger); its help
 * says so. The help of every command describes every option and marks the required ones.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Command } from 'commander';
import { program } from '../../src/cli';
import { compactCommand } from '../../src/cli/commands';
import { loadSession } from '../../src/cli/load';
import { compact } from '../../src/compaction/rewrite/compactor';
import { thresholds } from '../../src/compaction/plan/budget';
import { summarizerFromFlags } from '../../src/summarizers/from-options';
import { describeCompaction } from '../../src/compaction/outcome-text';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ck-cli-help-'));
test.after(() => fs.rmSync(tmp, { recursive: true, force: true }));

const log = (lines: number) =>
  Array.from({ length: lines }, (_, i) => `line ${i} of the build log: compiling module m${i}`).join('\n');
const call = (id: string, command: string) => ({
  id,
  type: 'function',
  function: { name: 'run_command', arguments: JSON.stringify({ command }) },
});
/** Three small old steps, then a newest step whose tool result alone holds more than the trigger of an 8,000-token window. */
function anchoredChat(): unknown {
  const messages: unknown[] = [
    { role: 'system', content: 'You are a coding agent.' },
    { role: 'user', content: 'Build the project and fix what fails.' },
  ];
  for (let k = 0; k < 3; k++)
    messages.push(
      { role: 'assistant', content: `Running step ${k}.`, tool_calls: [call(`c${k}`, `make step${k}`)] },
      { role: 'tool', tool_call_id: `c${k}`, content: log(25) },
    );
  messages.push(
    { role: 'assistant', content: 'Reading the full log.', tool_calls: [call('big', 'cat build.log')] },
    { role: 'tool', tool_call_id: 'big', content: log(500) },
  );
  return { model: 'gpt-4o', messages };
}

test('compact applies, labelled manual, where an automatic compaction of the same context refuses', async () => {
  const file = path.join(tmp, 'anchored.json');
  fs.writeFileSync(file, JSON.stringify(anchoredChat()));
  const budget = { contextWindow: 8000, reservedOutput: 0, compactAt: 0.8, compactTo: 0.5 };
  const trigger = thresholds(budget).triggerTokens;

  const lines: string[] = [];
  const exitCode = process.exitCode;
  await compactCommand(
    file,
    { window: 8000, at: 0.8, to: 0.5, keepSteps: 1, summarizer: 'extractive', json: true },
    (l) => lines.push(l),
    () => undefined,
  );
  process.exitCode = exitCode;
  const report = JSON.parse(lines.join('\n')) as {
    applied: boolean;
    tokensBefore: number;
    tokensAfter: number;
    checkpoints: Array<{ trigger: string }>;
  };
  assert.equal(report.applied, true);
  assert.ok(report.tokensBefore <= 8000, `the context fits before: ${report.tokensBefore}`);
  assert.ok(
    report.tokensAfter >= trigger && report.tokensAfter < report.tokensBefore,
    `shrunk but still above the trigger ${trigger}: ${report.tokensAfter}`,
  );
  assert.ok(report.checkpoints.length > 0);
  for (const c of report.checkpoints) assert.equal(c.trigger, 'manual');

  // The same context compacted as an automatic compaction would be is refused: it would fire again.
  const s = await loadSession(file);
  const summarizer = summarizerFromFlags({ summarizer: 'extractive' }, (t) => s.meter.countText(t));
  const auto = await compact({
    items: s.items,
    tools: s.transcript.tools,
    meter: s.meter,
    summarizer,
    options: { budget, trigger: 'auto', force: true, keepRecentSteps: 1 },
  });
  assert.notEqual(auto.status.kind, 'applied');
  assert.equal(auto.status.kind, 'does-not-fit');
  assert.match(describeCompaction(auto.status), /^cannot get below [\d,]+ tokens: at best [\d,]+/);
});

const commands = (): Command[] => program().commands as Command[];
const byName = (name: string) => commands().find((c) => c.name() === name);

/** The help as `--help` prints it, with the text added after the options. */
function helpOf(name: string): string {
  const cmd = byName(name);
  assert.ok(cmd, name);
  let help = '';
  cmd.configureOutput({ writeOut: (s) => (help += s) });
  cmd.outputHelp();
  return help;
}

test('compact --help says its checkpoints are labelled manual and why it applies above --at', () => {
  const help = helpOf('compact');
  assert.match(help.replace(/\s+/g, ' '), /checkpoints are labelled "manual"/);
  assert.match(
    help.replace(/\s+/g, ' '),
    /also applies when the result stays above --at \(an automatic compaction refuses then/,
  );
  assert.doesNotMatch(help.replace(/\s+/g, ' '), /as an automatic compaction does/);
  assert.match(help, /Exit codes: 0 done; 1 /);
});

test('every option of every command has a description; required options say so; --model says what an unknown name does', () => {
  for (const cmd of commands()) {
    for (const o of cmd.options) {
      assert.ok(o.description.length > 10, `${cmd.name()} ${o.flags}: "${o.description}"`);
      if (o.mandatory) assert.match(o.description, /required/, `${cmd.name()} ${o.flags}`);
    }
  }
  for (const name of ['meter', 'compact', 'replay']) {
    const model = byName(name)?.options.find((o) => o.long === '--model');
    assert.match(model?.description ?? '', /no known encoding is counted with o200k_base, with a warning/, name);
  }
});
