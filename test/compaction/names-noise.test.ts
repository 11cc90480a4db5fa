/**
 * Code names are tokens used as code (camelCase, snake_case, PascalCase with two humps, or a
 * capitalised word the code declares, calls or quotes), not capitalised English words; the
 * identifier lists hold no Markdown table rows and no failure reports. Recorded in Cline's format.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cline, summaryOf, type Step } from '../support/recordings';

const filler = (n: number) => 'lorem ipsum dolor sit amet '.repeat(n);

const steps: Step[] = [
  { user: 'tidy the orders module' },
  { say: 'Steps: Analyze. Refactor. Identify. Then see what loadOrders returns and call `OrderStore`.' },
  {
    tool: 'write',
    path: 'docs/levels.md',
    content: '# Levels\n\n| level | meaning |\n|---|---|\n| ERROR | failed runs of load_orders |\n',
  },
  { tool: 'bash', command: 'terraform plan', output: 'Error: Missing required argument in main.tf', ok: false },
  { say: `Looking at it. ${filler(1500)}` },
  { user: 'go on' },
  { say: 'ok' },
];

/** The body of the section under `heading` (up to the next heading). */
function section(summary: string, heading: RegExp): string {
  const at = summary.search(heading);
  if (at < 0) return '';
  const rest = summary.slice(at).split('\n').slice(1);
  const end = rest.findIndex((l) => l.startsWith('#'));
  return (end < 0 ? rest : rest.slice(0, end)).join('\n');
}

test('cline: code names are code, not capitalised English words', async () => {
  const { summary } = await summaryOf(cline(steps), 'api_conversation_history.json');
  const names = section(summary, /^## Code names/m);
  assert.match(names, /\bloadOrders\b/, summary);
  assert.match(names, /\bOrderStore\b/, summary);
  for (const word of ['Refactor', 'Analyze', 'Identify', 'Missing', 'Levels'])
    assert.doesNotMatch(names, new RegExp(`\\b${word}\\b`), `${word}: ${names}`);
});

test('cline: identifier lists hold no table rows and no failure reports', async () => {
  const { summary } = await summaryOf(cline(steps), 'api_conversation_history.json');
  const ids = summary
    .split(/^(?=## )/m)
    .filter((s) => s.startsWith('## Identifiers'))
    .join('\n');
  assert.doesNotMatch(ids, /^- \|/m, ids);
  assert.doesNotMatch(ids, /^- (?:Error|ERROR)\b/m, ids);
});
