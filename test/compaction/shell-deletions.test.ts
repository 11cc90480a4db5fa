/**
 * Deletions by shell commands are read from the commands the shell runs, not from their words: a
 * cmd.exe line chained with a lone `&` (`rmdir /s /q .terraform 2>nul & del /f /q x & terraform
 * init`) deletes its two paths, never its switches, its separators or the next command's words; and
 * a command that got no result (interrupted; the recording goes on without it) deleted nothing. In
 * the summary's Files changed section and its scorecard alike.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WRITERS, compactExtractive, type Step, sectionOf } from '../support/recordings';
import { importTranscriptTextSync } from '../../src/transcripts';
import { itemsFromEntries } from '../../src/compaction/context';
import { textWithPlaceholders } from '../../src/compaction/content-text';

const filler = (n: number) => 'lorem ipsum dolor sit amet '.repeat(n);
const CHAIN = 'rmdir /s /q .terraform 2>nul & del /f /q .terraform.lock.hcl 2>nul & terraform init';

async function filesOf(format: keyof typeof WRITERS, text: string) {
  const t = importTranscriptTextSync(text, WRITERS[format].file);
  const r = await compactExtractive(itemsFromEntries(t.entries));
  const item = r.context.find((i) => i.kind === 'summary');
  assert.ok(item, 'a summary was written');
  const summary = textWithPlaceholders(item.message.content);
  const section = sectionOf(summary, 'Files changed');
  const card = r.checkpoints.find((c) => c.retention)?.retention;
  assert.ok(card, 'the checkpoint has a scorecard');
  return { summary, section, card };
}

for (const format of ['claude-code', 'cline', 'openai-chat'] as const) {
  test(`${format}: a cmd.exe chain joined by & deletes its paths, not its switches or the next command's words`, async () => {
    const steps: Step[] = [
      { user: 'reinitialise terraform from scratch' },
      { tool: 'bash', command: CHAIN, output: 'Terraform has been successfully initialized!', exit: 0 },
      { say: `Done. ${filler(2500)}` },
      { user: 'thanks' },
      { say: 'ok' },
    ];
    const { summary, section, card } = await filesOf(format, WRITERS[format].write(steps));
    assert.match(section, /\.terraform\.lock\.hcl[^\n]*deleted/, summary);
    assert.match(section, /(^|\n)- \.terraform \(deleted/, summary);
    for (const word of ['/s', '/q', '/f', '&', 'del', 'terraform', 'init'])
      assert.ok(!section.split('\n').some((l) => l.startsWith(`- ${word} `)), `${word} is no file:\n${section}`);
    assert.equal(card.filesChanged.total, 2, JSON.stringify(card.filesChanged));
  });
}

/** The recording of `steps` with the result of the first `del` command taken out (an interrupted call). */
function interrupted(format: 'cline' | 'openai-chat', steps: Step[]): string {
  const text = WRITERS[format].write(steps);
  if (format === 'openai-chat') {
    const v = JSON.parse(text) as { messages: Array<{ role: string; content?: unknown }> };
    const at = v.messages.findIndex((m) => m.role === 'tool' && String(m.content).includes('deleted file'));
    v.messages.splice(at, 1);
    return JSON.stringify(v);
  }
  const msgs = JSON.parse(text) as Array<{ role: string; content: Array<{ type: string; text?: string }> }>;
  const at = msgs.findIndex((m) => m.role === 'user' && m.content.some((b) => b.text?.includes('deleted file')));
  msgs[at].content = [
    {
      type: 'text',
      text: '[TASK RESUMPTION] This task was interrupted just now. The tool use was not completed; assume it was not successful.',
    },
  ];
  return JSON.stringify(msgs);
}

for (const format of ['cline', 'openai-chat'] as const) {
  test(`${format}: a command that got no result deleted nothing`, async () => {
    const steps: Step[] = [
      { user: 'clean the old terraform state out' },
      { tool: 'bash', command: 'del terraform.tfstate.backup', output: 'deleted file', exit: 0 },
      { tool: 'bash', command: 'del old-plan.out', output: 'removed', exit: 0 },
      { say: `Done. ${filler(2500)}` },
      { user: 'thanks' },
      { say: 'ok' },
    ];
    const { summary, section, card } = await filesOf(format, interrupted(format, steps));
    assert.doesNotMatch(section, /terraform\.tfstate\.backup/, summary);
    assert.match(section, /old-plan\.out[^\n]*deleted/, summary);
    assert.equal(card.filesChanged.total, 1, JSON.stringify(card.filesChanged));
  });
}
