/**
 * A checkpoint's scorecard counts what its summary lists: on every checkpoint of a replay of each
 * recording in ../shared/transcripts (extractive summaries, 32k window), the open and resolved
 * errors of the scorecard are the summary's not-fixed lines (`- open:`, or left when an earlier turn
 * ended) and `- fixed:` lines (beside lines an earlier
 * summary carried in, lines left out for room, said so, and failures fixed in the newest steps kept
 * after the summary, which the span alone shows open), and its typed requests are the bullets under
 * "Requests, verbatim" (with those the section says it left out), whole, cut and left out alike.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { sharedTranscriptsDir } from '../support/shared';
import { loadSession } from '../../src/cli/load';
import { ExtractiveSummarizer } from '../../src/compaction/summary/extractive';
import { replay } from '../../src/replay/replay';
import { textWithPlaceholders } from '../../src/compaction/content-text';
import type { Checkpoint } from '../../src/compaction/types';
import { unfixedBody } from '../../src/compaction/summary/ledger/ledger';

const dir = sharedTranscriptsDir();
const files = dir
  ? fs
      .readdirSync(dir, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .flatMap((d) => fs.readdirSync(path.join(dir, d.name)).map((f) => path.join(dir, d.name, f)))
  : [];

if (!dir)
  test('scorecard and summary agree on the shared recordings', (t) =>
    t.skip('../shared/transcripts not found beside the repository; set CONTEXT_KEEPER_SHARED to run these'));

/** The lines of section `heading` (a `## ` line starting with it) of `text`, up to the next heading. */
function section(text: string, heading: string): string[] {
  const lines = text.split('\n');
  const at = lines.findIndex((l) => l.startsWith(`## ${heading}`));
  if (at < 0) return [];
  const end = lines.findIndex((l, i) => i > at && l.startsWith('## '));
  return lines.slice(at + 1, end < 0 ? undefined : end);
}

/** The list items of `lines`: a `- ` line with the continuation lines (indented two spaces) after it. */
function items(lines: string[]): string[] {
  const out: string[] = [];
  for (const l of lines) {
    if (l.startsWith('- ')) out.push(l);
    else if (out.length && l.startsWith('  ')) out[out.length - 1] += `\n${l}`;
  }
  return out;
}

/** What a summary lists: its open and fixed error lines, the lines it says it left out, its request bullets. */
function listed(summary: string) {
  const errors = section(summary, 'Errors and fixes');
  const requests = section(summary, 'Requests, verbatim');
  // "- … 3 older lines not kept", or the requests section's "[3 earlier requests (2,111 characters) left out here …]".
  const leftOut = (lines: string[]) =>
    lines.reduce(
      (n, l) =>
        n +
        Number(
          (/^- … (\d+) (?:older )?(?:lines?|requests?)\b.*not kept/.exec(l) ??
            /^\[(\d+) earlier requests? \([\d,]+ characters\) left out here/.exec(l))?.[1] ?? 0,
        ),
      0,
    );
  return {
    // Open now, or left unresolved when an earlier turn ended (listed apart, not as open work).
    open: errors.filter((l) => unfixedBody(l) !== undefined).length,
    fixed: errors.filter((l) => l.startsWith('- fixed:')).length,
    // Fixed by a run in the newest steps, which stay in the context: the span alone still shows it open.
    fixedLater: errors.filter((l) => l.startsWith('- fixed:') && l.endsWith('(in the steps kept after this summary)'))
      .length,
    errorsLeftOut: leftOut(errors),
    requests: requests.filter((l) => l.startsWith('- ') && !l.startsWith('- … ')).length,
    // Items the section cut in the middle (its mark, on any line of the item, counts what was left out).
    requestsShortened: items(requests).filter((i) =>
      /characters of this request left out …\]|of pasted output left out/.test(i),
    ).length,
    requestsLeftOut: leftOut(requests),
  };
}

for (const file of files) {
  const name = path.relative(dir!, file);
  test(`${name}: every checkpoint's scorecard counts what its summary lists`, async () => {
    const s = await loadSession(file);
    const report = await replay(s.entries, s.meter, new ExtractiveSummarizer((t) => s.meter.countText(t)), {
      budget: { contextWindow: 32_000, reservedOutput: 0, compactAt: 0.8, compactTo: 0.5 },
      tools: s.transcript.tools,
    });
    const checked = report.checkpoints.filter(
      (c): c is Checkpoint & { retention: NonNullable<Checkpoint['retention']> } =>
        c.strategy === 'extractive' && c.retention !== undefined,
    );
    for (const c of checked) {
      const summary = c.inserted.find((i) => i.kind === 'summary');
      if (!summary) continue;
      const text = textWithPlaceholders(summary.message.content);
      const l = listed(text);
      const card = c.retention;
      const where = `${name} ${c.id}\n${text.slice(0, 4000)}`;
      // Unresolved: open work of the latest request and failures an earlier turn left, each listed
      // under its own label (the summary) and counted apart (the scorecard), by one rule.
      const unresolved = card.errors.open + (card.errors.earlierTurn ?? 0);
      // Every error the scorecard counts is a line of the summary, or among the lines it says it left out.
      assert.ok(
        unresolved <= l.open + l.fixedLater + l.errorsLeftOut && card.errors.resolved <= l.fixed + l.errorsLeftOut,
        `${where}\nscorecard ${JSON.stringify(card.errors)} vs listed ${JSON.stringify(l)}`,
      );
      // A failure an earlier summary listed open may be fixed by this span's work: listed fixed here.
      assert.ok(
        l.open <= unresolved + carried(c, 'open') &&
          l.fixed - l.fixedLater <= card.errors.resolved + carried(c, 'fixed') + carried(c, 'open'),
        `${where}\nscorecard ${JSON.stringify(card.errors)} vs listed ${JSON.stringify(l)}`,
      );
      assert.equal(
        card.requests.total,
        l.requests + l.requestsLeftOut,
        `${where}\nscorecard ${JSON.stringify(card.requests)} vs listed ${JSON.stringify(l)}`,
      );
      // Left out as the section states it: one request's sentence repeated in another's item keeps
      // nothing of the first. A request shown cut has a cut mark in its item (a request carried in
      // from an earlier summary or a collapsed result may hold one and still be shown whole).
      assert.equal(
        card.requests.leftOut,
        l.requestsLeftOut,
        `${where}\nscorecard ${JSON.stringify(card.requests)} vs listed ${JSON.stringify(l)}`,
      );
      assert.ok(
        card.requests.shortened <= l.requestsShortened,
        `${where}\nscorecard ${JSON.stringify(card.requests)} vs listed ${JSON.stringify(l)}`,
      );
    }
  });
}

/** Error lines of `kind` in the earlier summaries the checkpoint replaced (carried into its summary). */
function carried(c: Checkpoint, kind: 'open' | 'fixed'): number {
  let n = 0;
  for (const it of c.replaced)
    if (it.kind === 'summary')
      n += section(textWithPlaceholders(it.message.content), 'Errors and fixes').filter((l) =>
        kind === 'open' ? unfixedBody(l) !== undefined : l.startsWith(`- ${kind}:`),
      ).length;
  return n;
}
