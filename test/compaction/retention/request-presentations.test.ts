/**
 * How the scorecard finds the items of a summary that present typed requests shortened: an item that
 * keeps a request's start, its end, both or only its middle is given to the request it fits, each
 * item to one request, in text order, with the same answers however the items are looked up. And a
 * request is looked for masked with the span's secret values as they are at each compaction: a value
 * first seen as a secret in a later message masks the earlier request from then on, also where the
 * request's message was read by an earlier compaction.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { importTranscriptTextSync } from '../../../src/transcripts';
import { itemsFromEntries } from '../../../src/compaction/context';
import { retentionScorecard } from '../../../src/compaction/retention/scorecard';
import { summaryItem } from '../../support/conversation';
import { WRITERS, type Step } from '../../support/recordings';

const FORMATS = ['claude-code', 'codex', 'cline'] as const;

function span(format: (typeof FORMATS)[number], steps: Step[]) {
  const { write, file } = WRITERS[format];
  return itemsFromEntries(importTranscriptTextSync(write(steps), file).entries);
}

const cut = (n: number) => `[… ${n} characters of this request left out …]`;

const INSTALL = 'Please update the README with the install steps for Windows and macOS users';
const UPGRADE = 'Please update the README with the upgrade notes from version two to three';
const RENAME = 'rename the config loader and keep the old export as an alias for one release';
const RETRY = 'ok then add a retry to the upload client, three attempts with backoff';
const FLAGS = 'document the flags of the export command in the CLI reference page';
const PARSER = 'Fix it: the parser drops the last line when the file has no trailing newline';
const BUILD = 'make the build faster on the CI machines';

const REQUESTS = [INSTALL, UPGRADE, RENAME, RETRY, FLAGS, PARSER, BUILD];

for (const format of FORMATS) {
  test(`${format}: items that keep a request's start, end, both or its middle alone are each given to the request they fit`, () => {
    const steps: Step[] = REQUESTS.flatMap((user) => [{ user }, { say: 'Done.' }]);
    const summary = [
      '## Requests, verbatim',
      // Listed out of order: the upgrade item comes first, and both fit the start of either request.
      `- Please update the README with the upgrade ${cut(30)}`,
      `- Please update the README with the install ${cut(40)}`,
      `- rename the config loader ${cut(30)} for one release`,
      `- ${cut(20)} three attempts with backoff`,
      `- ${cut(10)} flags of the export command ${cut(25)}`,
      // A kept start shorter than eight characters, and the end.
      `- Fix it: ${cut(50)} no trailing newline`,
      // Fits no request: its end is not the build request's end.
      `- make the build ${cut(12)} on every machine`,
    ].join('\n');
    const card = retentionScorecard({ replaced: span(format, steps), inserted: [summaryItem(summary)] });
    assert.ok(card);
    assert.deepEqual(card.requests, { total: 7, whole: 0, shortened: 6, leftOut: 1 }, summary);
    assert.deepEqual(
      card.missing.requests.map((n) => n.slice(0, 30)),
      REQUESTS.map((r, i) => `${i === 6 ? 'left out' : 'shortened'}: ${r}`.slice(0, 30)),
    );
  });

  test(`${format}: one item that fits two requests keeps only the first of them`, () => {
    const steps: Step[] = [{ user: INSTALL }, { say: 'Done.' }, { user: UPGRADE }, { say: 'Done.' }];
    const summary = ['## Requests, verbatim', `- Please update the README with ${cut(45)}`].join('\n');
    const card = retentionScorecard({ replaced: span(format, steps), inserted: [summaryItem(summary)] });
    assert.ok(card);
    assert.deepEqual(card.requests, { total: 2, whole: 0, shortened: 1, leftOut: 1 });
    assert.ok(card.missing.requests[1].startsWith('left out: Please update the README with the upgrade'));
  });

  test(`${format}: a request is looked for masked with the secret values its span holds at each compaction`, () => {
    const request = 'use the key k7Zq81xLmP0vR7tY2w for the staging API and list the buckets';
    const all = span(format, [
      { user: request },
      { say: 'Listing them.' },
      // The key given in an assignment: a secret value of the span from here on.
      { tool: 'bash', command: 'export API_KEY=k7Zq81xLmP0vR7tY2w && ./list-buckets.sh', output: 'a b' },
      { user: 'now delete the empty buckets' },
      { say: 'Deleted.' },
    ]);
    const before = all.slice(
      0,
      all.findIndex((it) => JSON.stringify(it.message).includes('API_KEY')),
    );
    assert.ok(before.length >= 1 && before.length < all.length);
    const inserted = [
      summaryItem(['## Requests, verbatim', `- ${request}`, '- now delete the empty buckets'].join('\n')),
    ];

    const first = retentionScorecard({ replaced: before, inserted });
    assert.ok(first);
    assert.deepEqual(first.requests, { total: 1, whole: 1, shortened: 0, leftOut: 0 });

    // The grown span shows the value as a secret: the request is now looked for masked, as the
    // summary would show it, so the item with the raw value does not keep it.
    const grown = retentionScorecard({ replaced: all, inserted });
    assert.ok(grown);
    assert.deepEqual(grown.requests, { total: 2, whole: 1, shortened: 0, leftOut: 1 });
    assert.deepEqual(grown.missing.requests, [
      'left out: use the key [masked secret] for the staging API and list the buckets',
    ]);
    assert.deepEqual(grown, retentionScorecard({ replaced: structuredClone(all), inserted }));

    // The shorter span again: the value is no secret of it.
    assert.deepEqual(retentionScorecard({ replaced: before, inserted }), first);
  });
}
