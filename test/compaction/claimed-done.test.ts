/**
 * The agent's own word is not the state of the work: a message that says "Done" while failures stay
 * open is shown as the agent's claim with the failures beside it, never as work completed; a reply
 * that answers a question is an answer, not work in progress. Recorded in Cline's format.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cline, summaryOf, type Step } from '../support/recordings';

const filler = (n: number) => 'lorem ipsum dolor sit amet '.repeat(n);
const FILE = 'api_conversation_history.json';

test('cline: "Done" beside an open failure is the agent’s claim with the failure named, not work completed', async () => {
  const steps: Step[] = [
    { user: 'add DEFAULT_TIMEOUT_MS to src/models/http.ts' },
    { tool: 'read', path: 'src/models/http.ts', output: `const a = 1;\nconst b = 2;\n${filler(60)}` },
    {
      tool: 'bash',
      command: 'npm run typecheck',
      output: "src/models/http.ts(3,1): error TS2304: Cannot find name 'DEFAULT_TIMEOUT_MS'.",
      ok: false,
    },
    { say: `Done. I added DEFAULT_TIMEOUT_MS to src/models/http.ts. ${filler(1500)}` },
    { user: 'thanks' },
    { say: 'ok' },
  ];
  const { summary } = await summaryOf(cline(steps), FILE);
  assert.doesNotMatch(summary, /Work completed/, summary);
  assert.match(summary, /- The agent reported done, but these failed and were not fixed: `npm run typecheck`/, summary);
  assert.match(summary, /^- open: `npm run typecheck`/m, summary);
});

test('cline: "Done" with nothing open is work completed', async () => {
  const steps: Step[] = [
    { user: 'add DEFAULT_TIMEOUT_MS to src/models/http.ts' },
    { tool: 'edit', path: 'src/models/http.ts', old: 'const a = 1;', new: 'export const DEFAULT_TIMEOUT_MS = 30000;' },
    { tool: 'bash', command: 'npm run typecheck', output: 'Found 0 errors.' },
    { say: `Done. I added DEFAULT_TIMEOUT_MS to src/models/http.ts. ${filler(300)}` },
    { user: 'thanks' },
    { say: 'ok' },
  ];
  const { summary } = await summaryOf(cline(steps), FILE);
  assert.match(summary, /- Work completed \(the agent's last message here reports it done\): "Done\./, summary);
  assert.doesNotMatch(summary, /reported done, but/, summary);
});

test('cline: the reply to a question is an answer, not work in progress', async () => {
  const steps: Step[] = [
    { user: 'quick question - where are the model helpers?' },
    { tool: 'read', path: 'src/models/index.ts', output: `export * from './helpers';\n${filler(60)}` },
    { say: `Quick answer: the model helpers are in src/models/helpers.ts. ${filler(300)}` },
    { user: 'thanks' },
    { say: 'ok' },
  ];
  const { summary } = await summaryOf(cline(steps), FILE);
  assert.doesNotMatch(summary, /In progress/, summary);
  assert.match(
    summary,
    /- Answered \(the agent's last message here, its reply to the latest request\): "Quick answer/,
    summary,
  );
});
