/**
 * Tool-call arguments that are not valid JSON (a reply cut off mid-call) are the model's text: import
 * keeps them as recorded with a warning naming the file, the line or message, and the call, in every
 * format that records arguments as text; `compact --out` writes them as they are and says on standard
 * error where they are in the file it wrote (docs/cli.md).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { importTranscriptTextSync } from '../../src/transcripts';
import { compactCommand } from '../../src/cli/commands';
import { WRITERS, type Step } from '../support/recordings';
import { calls, rewriteRecords } from './helpers';

const steps: Step[] = [
  { user: 'List the files.' },
  { tool: 'bash', command: 'ls -la src', output: 'error: invalid arguments', ok: false },
  { say: 'Retrying.' },
  { user: 'Thanks.' },
];

/** The recording with the arguments of the `ls` call cut three characters short (no longer JSON). */
function cut(text: string): string {
  return rewriteRecords(text, (o) => {
    if (typeof o.arguments === 'string' && o.arguments.includes('ls -la')) o.arguments = o.arguments.slice(0, -3);
  });
}

/** The arguments of the recording's first call as imported. */
function firstArguments(text: string, file: string): string | undefined {
  const t = importTranscriptTextSync(text, file);
  return t.entries.flatMap((e) => calls(e.message))[0]?.[2];
}

for (const format of ['codex', 'openhands', 'openai-chat'] as const) {
  const { write, file } = WRITERS[format];
  test(`${format}: arguments that are not JSON are kept as recorded, with a warning naming the call`, () => {
    const whole = write(steps);
    const text = cut(whole);
    const recorded = firstArguments(whole, file)!;
    assert.equal(firstArguments(text, file), recorded.slice(0, -3), 'kept as recorded');
    const t = importTranscriptTextSync(text, file);
    const warnings = t.warnings.filter((w) => w.includes('arguments are not valid JSON'));
    assert.equal(warnings.length, 1, t.warnings.join('\n'));
    assert.match(
      warnings[0],
      new RegExp(
        `^${file.replace(/\./g, '\\.')}(:\\d+)?: .*tool call \\S+ \\(\\w+\\): arguments are not valid JSON; kept as recorded$`,
      ),
    );
    if (file.endsWith('.jsonl')) {
      const line = text.split('\n').findIndex((l) => l.includes('ls -la')) + 1;
      assert.ok(warnings[0].startsWith(`${file}:${line}: `), warnings[0]);
    }
  });
}

for (const format of ['codex', 'openai-chat'] as const) {
  const { write, file } = WRITERS[format];
  test(`${format}: compact --out writes such arguments as recorded and names their place in the file`, async () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ck-invalid-args-'));
    try {
      const input = path.join(tmp, file);
      const out = path.join(tmp, 'out.json');
      fs.writeFileSync(input, cut(write(steps)));
      const notes: string[] = [];
      const exitCode = process.exitCode;
      try {
        await compactCommand(
          input,
          { window: 8000, at: 0.8, to: 0.5, keepSteps: 1, summarizer: 'extractive', out },
          () => undefined,
          (l) => notes.push(l),
        );
      } finally {
        process.exitCode = exitCode;
      }
      const doc = JSON.parse(fs.readFileSync(out, 'utf8')) as {
        messages: Array<{ tool_calls?: Array<{ function: { name: string; arguments: string } }> }>;
      };
      const at = doc.messages.findIndex((m) => m.tool_calls?.some((c) => c.function.arguments.includes('ls -la')));
      assert.ok(at >= 0, 'the call is in the file');
      const call = doc.messages[at].tool_calls![0];
      assert.throws(() => JSON.parse(call.function.arguments) as unknown, 'written as recorded, not rewritten');
      assert.ok(
        notes.includes(
          `note: ${out} keeps 1 tool call whose arguments are not valid JSON, as the recording has them: messages[${at}].tool_calls[0] (${call.function.name})`,
        ),
        notes.join('\n'),
      );
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });
}
