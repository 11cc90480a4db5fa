/**
 * The code names a summary lists are names that occur as code: a capitalised word or a product name
 * met only in sentences (the agent's message, a thought, a Markdown file it wrote, the text of a
 * markup element, a string) is no code name, while the same kind of word used as code (called,
 * imported, a component, quoted alone in backticks) is.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ALL_WRITERS, type Step } from '../support/recordings';
import { importTranscriptTextSync } from '../../src/transcripts';
import { itemsFromEntries } from '../../src/compaction/context';
import { ExtractiveSummarizer } from '../../src/compaction/summary/extractive';

const CODE = [
  'import { Calendar } from "./calendar";',
  'const USAGE = `Usage: run <file>`;',
  'export function parseArgs(argv: string[]) {',
  '  return new ArgParser(argv);',
  '}',
  'export const View = () => <section><h2>Environment</h2><Calendar /></section>;',
].join('\n');

const steps: Step[] = [
  { user: 'Add the argument parser to src/cli.tsx and note the plan in ROADMAP.md.' },
  {
    say: 'The user asked me to look at the OpenHands bug. Crypto.com and Linear.app stay out, renumbered from Phase 4.',
  },
  { tool: 'write', path: 'src/cli.tsx', content: CODE },
  {
    tool: 'write',
    path: 'ROADMAP.md',
    content: '## Phase 5 - FundWise bot\n\nShips a bot from Telegram with OpenRouter behind it.',
  },
  { say: 'Done: the parser is in, and the roadmap has a Phase 5 for the FundWise bot.' },
  { user: 'Now add tests.' },
];

/** The code names section of the notes of `steps` written by `format`'s writer. */
function codeNames(format: keyof typeof ALL_WRITERS): { names: string[]; summary: string } {
  const { write, file } = ALL_WRITERS[format];
  const entries = importTranscriptTextSync(write(steps), file).entries;
  const summary = new ExtractiveSummarizer((t) => Math.ceil(t.length / 4)).notes(itemsFromEntries(entries), 6000);
  const section = /## Code names[^\n]*\n([\s\S]*?)(\n\n|$)/.exec(summary)?.[1] ?? '';
  return {
    names: section
      .replace(/^- /gm, '')
      .split(/,\s*|\n/)
      .filter(Boolean),
    summary,
  };
}

for (const format of ['claude-code', 'codex', 'cline', 'openhands', 'aider'] as const) {
  test(`${format}: words of sentences are no code names; names used as code are`, () => {
    const { names, summary } = codeNames(format);
    // (`parseArgs` is named with the file that defines it.)
    for (const n of ['ArgParser', 'Calendar']) assert.ok(names.includes(n), `${n}:\n${summary}`);
    for (const n of [
      'OpenHands',
      'Crypto',
      'Linear',
      'Phase',
      'Telegram',
      'Usage',
      'Environment',
      'FundWise',
      'OpenRouter',
    ])
      assert.ok(!names.includes(n), `${n}:\n${summary}`);
  });
}
