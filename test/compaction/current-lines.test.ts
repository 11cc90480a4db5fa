/**
 * The current-work section says what is current: a verification or plan from before the latest typed
 * request is labelled with its age, a plan tool's call is rendered as its items, a multi-line command
 * keeps its line breaks visible, and a call handing the turn to the person is never an error, in
 * several recording formats.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CC_BASE, WRITERS, type Step } from '../support/recordings';
import { importTranscriptTextSync } from '../../src/transcripts';
import { itemsFromEntries } from '../../src/compaction/context';
import { ExtractiveSummarizer } from '../../src/compaction/summary/extractive';
import { errorSignatures } from '../../src/compaction/retention/errors';

const filler = (n: number) => 'lorem ipsum dolor sit amet '.repeat(n);

/** Appends one call and its result in Cline's or Claude Code's own shape. */
function withCall(
  format: 'cline' | 'claude-code',
  text: string,
  name: string,
  input: Record<string, unknown>,
  result: string,
  isError = false,
): string {
  if (format === 'cline') {
    const msgs = JSON.parse(text) as unknown[];
    msgs.push({ role: 'assistant', content: [{ type: 'tool_use', id: `x${msgs.length}`, name, input }] });
    msgs.push({ role: 'user', content: [{ type: 'text', text: `[${name}] Result: ${result}` }] });
    return JSON.stringify(msgs);
  }
  const lines = text.split('\n');
  const last = JSON.parse(lines.at(-1)!) as { uuid: string };
  const base = CC_BASE;
  const id = `x${lines.length}`;
  lines.push(
    JSON.stringify({
      ...base,
      type: 'assistant',
      uuid: `${id}a`,
      parentUuid: last.uuid,
      message: { role: 'assistant', id: `r${id}`, model: 'claude-x', content: [{ type: 'tool_use', id, name, input }] },
    }),
    JSON.stringify({
      ...base,
      type: 'user',
      uuid: `${id}b`,
      parentUuid: `${id}a`,
      message: {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: id, content: result, ...(isError ? { is_error: true } : {}) }],
      },
    }),
  );
  return lines.join('\n');
}

function notesOf(format: keyof typeof WRITERS, text: string) {
  const entries = importTranscriptTextSync(text, WRITERS[format].file).entries;
  const summary = new ExtractiveSummarizer((t) => Math.ceil(t.length / 4)).notes(itemsFromEntries(entries), 6000);
  return { summary, errors: errorSignatures(entries, 0, entries.length) };
}

for (const format of ['cline', 'claude-code'] as const) {
  test(`${format}: a call handing the turn over is never an error, whatever its result carries`, () => {
    const steps: Step[] = [
      { user: 'start the dev server and check the home page' },
      { tool: 'bash', command: 'npm run build', output: 'compiled successfully' },
    ];
    let text = WRITERS[format].write(steps);
    const name = format === 'cline' ? 'attempt_completion' : 'AskUserQuestion';
    text = withCall(
      format,
      text,
      name,
      format === 'cline' ? { result: 'The server is ready.', command: 'npm run dev' } : { question: 'Start it now?' },
      'Command failed with exit code 1.\nOutput:\nError: listen EADDRINUSE: address already in use :::9002',
      true,
    );
    const { summary, errors } = notesOf(format, text);
    assert.deepEqual(
      errors.filter((e) => e.state === 'open').map((e) => e.key),
      [],
      JSON.stringify(errors),
    );
    assert.doesNotMatch(summary, /^- open: .*(attempt_completion|AskUserQuestion|npm run dev)/m, summary);
  });
}

// SWE-agent records one task and its observations in the user role: no second typed request to be before.
for (const format of ['claude-code', 'codex', 'cline', 'openai-chat', 'openhands'] as const) {
  test(`${format}: a verification from before the latest typed request is labelled with its age, never the latest`, () => {
    const steps: Step[] = [
      { user: 'add the incident form and check the types' },
      {
        tool: 'bash',
        command: 'npm run typecheck',
        output: "src/lib/db.ts(13,15): error TS2345: Argument of type 'string' is not assignable",
        ok: false,
      },
      { say: `Those type errors are pre-existing and unrelated to the form. ${filler(20)}` },
      { user: 'revert to executing Terraform locally and write the README section' },
      { tool: 'write', path: 'README.md', content: `# Infra\nRun terraform locally.\n${filler(20)}` },
    ];
    const { summary } = notesOf(format, WRITERS[format].write(steps));
    assert.doesNotMatch(summary, /^- Latest verification/m, summary);
    assert.match(summary, /^- Verification from an earlier request \(before: «revert to executing Terraform/m, summary);
    // The same run after the latest request is the latest verification.
    const fresh = notesOf(format, WRITERS[format].write([steps[0], steps[1]])).summary;
    // A check run through a launcher as the call's whole command is a verification too.
    const launched = notesOf(
      format,
      WRITERS[format].write([steps[0], { tool: 'bash', command: 'npx tsc --noEmit', output: 'Found 0 errors.' }]),
    ).summary;
    assert.match(launched, /^- Latest verification: [^\n]*npx tsc --noEmit/m, launched);
    assert.match(fresh, /^- Latest verification: [^\n]*npm run typecheck/m, fresh);
  });
}

for (const format of ['cline', 'claude-code'] as const) {
  test(`${format}: a plan tool's call is rendered as its items with their status; an older plan is labelled with its age`, () => {
    const steps: Step[] = [{ user: 'build the incident report flow' }];
    const name = format === 'cline' ? 'update_plan' : 'TodoWrite';
    const input =
      format === 'cline'
        ? {
            explanation: 'schema first',
            plan: [
              { step: 'Add the incidents table', status: 'completed' },
              { step: 'Write the report endpoint', status: 'in_progress' },
            ],
          }
        : {
            todos: [
              { content: 'Add the incidents table', status: 'completed', activeForm: 'Adding' },
              { content: 'Write the report endpoint', status: 'in_progress', activeForm: 'Writing' },
            ],
          };
    const text = withCall(format, WRITERS[format].write(steps), name, input, 'Plan updated');
    const { summary } = notesOf(format, text);
    assert.match(
      summary,
      /^- Latest plan or to-do list: \((?:update_plan|TodoWrite)\) 1\. \[completed\] Add the incidents table \| 2\. \[in_progress\] Write the report endpoint/m,
      summary,
    );
    assert.doesNotMatch(summary, /"status"|\{"/, summary);
    // A request typed after the plan: the plan is an earlier request's.
    const later = WRITERS[format].write([{ user: 'stop the report work and fix the login page instead' }]);
    const merged =
      format === 'cline'
        ? JSON.stringify([...(JSON.parse(text) as unknown[]), ...(JSON.parse(later) as unknown[])])
        : [
            text,
            ...later.split('\n').map((l) => {
              const o = JSON.parse(l) as Record<string, unknown>;
              return JSON.stringify({
                ...o,
                uuid: 'late',
                parentUuid: (JSON.parse(text.split('\n').at(-1)!) as { uuid: string }).uuid,
              });
            }),
          ].join('\n');
    const stale = notesOf(format, merged).summary;
    assert.doesNotMatch(stale, /^- Latest plan/m, stale);
    assert.match(stale, /^- Plan or to-do list from an earlier request \(before: «stop the report work/m, stale);
  });
}

for (const format of ['claude-code', 'codex', 'cline', 'openai-chat', 'openhands'] as const) {
  test(`${format}: a multi-line command keeps its line breaks visible wherever it is quoted`, () => {
    const steps: Step[] = [
      { user: 'look at the frontend layout and build it' },
      { tool: 'bash', command: 'ls /w/frontend/src/ 2>/dev/null\nls /w/frontend/ 2>/dev/null', output: 'app\nsrc' },
      {
        tool: 'bash',
        command: 'cd /w/frontend\nnpm run build',
        output: 'Error: Cannot find module vite',
        ok: false,
      },
    ];
    const { summary, errors } = notesOf(format, WRITERS[format].write(steps));
    assert.doesNotMatch(summary, /2>\/dev\/null ls|frontend npm run build/, summary);
    assert.match(summary, /`ls \/w\/frontend\/src\/ 2>\/dev\/null ⏎ ls \/w\/frontend\/ 2>\/dev\/null`/, summary);
    assert.match(summary, /^- open: `cd \/w\/frontend ⏎ npm run build`/m, summary);
    assert.match(summary, /^- Last tool call: [^\n]*cd \/w\/frontend ⏎ npm run build/m, summary);
    // The scorecard names the open failure in the summary by the same command.
    assert.ok(
      errors.some((e) => e.state === 'open' && summary.includes(e.key)),
      JSON.stringify(errors),
    );
  });
}
