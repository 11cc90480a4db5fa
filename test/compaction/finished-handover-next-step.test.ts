/**
 * Messages kept after a summary that end with a finishing action (SWE-agent `submit`, OpenHands
 * `finish`, Cline `attempt_completion`) end with the task handed in: the summary's next step says
 * the task was finished, never that the kept messages end waiting for the user's answer, even when
 * the words before the action announce it ("let's submit them"). Recordings written in
 * test/support/recordings.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WRITERS, summaryOf, type Step } from '../support/recordings';

const filler = (n: number) => 'lorem ipsum dolor sit amet '.repeat(n);
const work: Step[] = [
  { user: 'make set_output keep the input dtypes of a DataFrame' },
  { say: `The dtypes are lost in _wrap_in_pandas_container. ${filler(200)}` },
  { tool: 'read', path: 'sklearn/utils/_set_output.py', output: filler(200) },
  { say: `The container is built without the dtypes. ${filler(200)}` },
  { tool: 'edit', path: 'sklearn/utils/_set_output.py', old: 'dtypes=None', new: 'dtypes=original.dtypes' },
  { tool: 'bash', command: 'python reproduce.py', output: `${filler(150)}\nOutput dtypes: float16`, exit: 0 },
  {
    done: 'The dtypes are kept.',
    lead: "Since we have successfully implemented and tested the changes, let's submit them:",
  },
];

for (const [format, action] of [
  ['swe-agent', 'submit'],
  ['openhands', 'finish'],
  ['cline', 'attempt_completion'],
] as const) {
  test(`${format}: kept messages ending with \`${action}\` end with the task finished, not waiting for the user`, async () => {
    const { write, file } = WRITERS[format];
    const { summary, context } = await summaryOf(write(work), file, 2000);
    const next = /- Next step: .*/.exec(summary)?.[0] ?? '';
    assert.ok(
      context.slice(context.findIndex((c) => c === summary) + 1).length > 0,
      'messages are kept after the summary',
    );
    assert.doesNotMatch(next, /waiting for the user's answer or approval/, summary);
    assert.match(
      next,
      new RegExp(`which end with the task finished: the agent handed it in with \`${action}\``),
      summary,
    );
  });
}
