/**
 * A summary names one latest error: an error quoted from an earlier run's output (a user-role
 * observation, a command's error line) never stands beside the newest open failure that replaced it,
 * so "Latest state", the error lines of the current work, "Errors and fixes" and the next step agree.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sectionOf, WRITERS, type Step } from '../support/recordings';
import { importTranscriptTextSync } from '../../src/transcripts';
import { itemsFromEntries } from '../../src/compaction/context';
import { ExtractiveSummarizer } from '../../src/compaction/summary/extractive';

const filler = (n: number) => 'lorem ipsum dolor sit amet '.repeat(n);

const KEY_ERROR =
  'Traceback (most recent call last):\n  File "/testbed/reproduce.py", line 9, in <module>\nKeyError: "Only a column name can be used for the key in a dtype mappings argument."';
const NOT_FITTED =
  'Traceback (most recent call last):\n  File "/testbed/reproduce.py", line 7, in <module>\nsklearn.exceptions.NotFittedError: This SelectKBest instance is not fitted yet.';

for (const format of ['swe-agent', 'cline', 'openai-chat'] as const) {
  test(`${format}: the latest error is the newest open failure's, in every section`, () => {
    const steps: Step[] = [
      { user: 'preserve dtypes in the pandas output of transformers' },
      { tool: 'write', path: '/testbed/reproduce.py', content: `import sklearn\n${filler(10)}` },
      { tool: 'bash', command: 'python /testbed/reproduce.py', output: KEY_ERROR, ok: false },
      {
        tool: 'edit',
        path: '/testbed/reproduce.py',
        old: 'X_out = selector.transform(X)',
        new: 'X_out = selector.fit_transform(X, y)',
      },
      { tool: 'bash', command: 'python /testbed/reproduce.py', output: NOT_FITTED, ok: false },
      {
        tool: 'read',
        path: '/testbed/sklearn/utils/_set_output.py',
        output: `def _wrap_in_pandas_container():\n${filler(20)}`,
      },
    ];
    const { write, file } = WRITERS[format];
    const entries = importTranscriptTextSync(write(steps), file).entries;
    const summary = new ExtractiveSummarizer((t) => Math.ceil(t.length / 4)).notes(itemsFromEntries(entries), 6000);
    assert.match(
      sectionOf(summary, 'Errors and fixes'),
      /open: `python \/testbed\/reproduce\.py` → [^\n]*NotFittedError/,
      summary,
    );
    assert.match(summary, /Next step: resolve `python \/testbed\/reproduce\.py` → [^\n]*NotFittedError/, summary);
    // The earlier run's KeyError is no current state anywhere.
    for (const heading of ['Latest state', 'Current work and next step', 'Errors and fixes'])
      assert.doesNotMatch(sectionOf(summary, heading), /KeyError/, `${heading}\n${summary}`);
  });
}
