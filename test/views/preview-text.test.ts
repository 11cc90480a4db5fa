/** The review document of a preview: every summary under its marker, edits read back summary by summary. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { CompactionPreview } from '../../src/service/records';
import { parsePreviewDocument, previewDocument } from '../../src/views/documents/preview-text';
import { isContextKeeperSummary, summaryHeader } from '../../src/compaction/summary/summary-header';

const preview: CompactionPreview = {
  summaries: [
    { checkpointId: 'c1', summary: 'First summary.\n\n## Work completed\n- parser fixed', messages: 40 },
    {
      checkpointId: 'c2',
      summary: 'Second summary.',
      messages: 11,
      summarizerModel: 'gpt-4o',
      coverage: 'messages 1-11',
    },
  ],
  steps: ['Re-attaches src/a.ts (120 tokens, current contents)'],
  replaced: [],
  replacedIds: [],
  tokensBefore: 3_700,
  tokensAfter: 2_100,
  summarizerModel: 'gpt-4o',
};

test('the review document holds every summary, in order, and reads back unchanged', () => {
  const doc = previewDocument(preview);
  assert.match(doc, /2 summaries, 3,700 → 2,100 tokens/);
  assert.match(doc, /Re-attaches src\/a\.ts/);
  assert.ok(doc.indexOf('First summary.') < doc.indexOf('Second summary.'));
  assert.deepEqual(
    parsePreviewDocument(doc, 2),
    preview.summaries.map((s) => s.summary),
  );
});

test('edits come back per summary; a document whose markers were changed gives nothing', () => {
  const doc = previewDocument(preview).replace('Second summary.', 'Second, edited.');
  assert.deepEqual(parsePreviewDocument(doc, 2), [preview.summaries[0].summary, 'Second, edited.']);
  const noMarker = doc.replace(/<!-- summary 2 of 2[^\n]*\n/, '');
  assert.equal(parsePreviewDocument(noMarker, 2), undefined);
  assert.equal(parsePreviewDocument(doc, 3), undefined);
});

test("each summary's part of the document is the whole message Apply writes: its header line, then the summary", () => {
  const doc = previewDocument(preview);
  const parts = doc.split(/^<!-- summary \d of 2[^\n]*\n/m).slice(1);
  assert.equal(parts.length, 2);
  preview.summaries.forEach((s, k) => {
    assert.equal(parts[k].trim(), `${summaryHeader(s.messages)}\n\n${s.summary}`);
    assert.ok(isContextKeeperSummary(parts[k].trim()), 'read back as a ContextKeeper summary');
  });
});

test('a summary emptied (whitespace only) is shown empty, with the reason Apply refuses it first', () => {
  const emptied = { ...preview, summaries: [{ ...preview.summaries[0], summary: ' \n  ' }, preview.summaries[1]] };
  const doc = previewDocument(emptied);
  assert.match(
    doc.split('\n')[1],
    /^<!-- Apply is refused: summary 1 of 2 is empty, and an empty summary would lose the 40 messages it replaces; .* -->$/,
  );
  assert.deepEqual(parsePreviewDocument(doc, 2), ['', 'Second summary.']);
  assert.doesNotMatch(previewDocument(preview), /Apply is refused/);
});

test('the text under a marker is the summary as Apply writes it: trimmed', () => {
  const padded = { ...preview, summaries: [{ ...preview.summaries[0], summary: '\n  Padded.  \n\n' }] };
  const part = previewDocument(padded).split(/^<!-- summary 1 of 1[^\n]*\n/m)[1];
  assert.equal(part, `\n${summaryHeader(40)}\n\nPadded.\n`);
});
