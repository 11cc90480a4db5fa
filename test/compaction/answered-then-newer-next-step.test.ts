/**
 * A summary written before the model call that answers a newer request (as a replay or a live session
 * compacts): its span ends with the agent's answer to the span's latest request, and the newer request
 * is the only message kept after it. The next step is that newer request's, never "continue with the
 * latest request" beside the pointer to the request the span answered.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WRITERS, type Step } from '../support/recordings';
import { importTranscriptTextSync } from '../../src/transcripts';
import { itemsFromEntries } from '../../src/compaction/context';
import { textWithPlaceholders } from '../../src/compaction/content-text';
import { ExtractiveSummarizer } from '../../src/compaction/summary/extractive';

const filler = (n: number, word: string) => `${word} lorem ipsum dolor sit amet `.repeat(n);

const steps: Step[] = [
  { user: 'add the changelog entry for the ADR index' },
  { tool: 'write', path: '/w/CHANGELOG.md', content: `# Changelog\n- ADR index\n${filler(10, 'entry')}` },
  { say: `Done: the changelog has the ADR index entry. ${filler(10, 'done')}` },
  { user: 'now index every ADR in the docs folder' },
];

for (const format of ['claude-code', 'codex', 'openai-chat', 'openhands'] as const) {
  test(`${format}: an answered request with a newer one kept after the summary: the next step is the newer one's`, () => {
    const { write, file } = WRITERS[format];
    const items = itemsFromEntries(importTranscriptTextSync(write(steps), file).entries);
    const at = items.findIndex((i) => textWithPlaceholders(i.message.content).includes('now index every ADR'));
    assert.ok(at > 0, 'the newer request is a message of its own');
    const summary = new ExtractiveSummarizer((t) => Math.ceil(t.length / 4)).notes(
      items.slice(0, at),
      6000,
      undefined,
      items.slice(at),
    );
    assert.doesNotMatch(summary, /Next step: continue with the latest request/, summary);
    assert.match(
      summary,
      /^- Next step: the newer request in the messages kept after this summary: this part's latest request was answered here$/m,
      summary,
    );
    assert.match(summary, /^- Latest request in this part: [^\n]*add the changelog entry/m, summary);
  });

  test(`${format}: the agent's work on the newer request kept after the summary: the next step goes on with it`, () => {
    const { write, file } = WRITERS[format];
    const more: Step[] = [...steps, { tool: 'bash', command: 'ls /w/docs/adr', output: '0001-record.md' }];
    const items = itemsFromEntries(importTranscriptTextSync(write(more), file).entries);
    const at = items.findIndex((i) => textWithPlaceholders(i.message.content).includes('now index every ADR'));
    const summary = new ExtractiveSummarizer((t) => Math.ceil(t.length / 4)).notes(
      items.slice(0, at),
      6000,
      undefined,
      items.slice(at),
    );
    assert.match(
      summary,
      /^- Next step: the newer request in the messages kept after this summary \(the agent's work on it goes on there\): this part's latest request was answered here$/m,
      summary,
    );
  });
}
