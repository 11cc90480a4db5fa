/**
 * The figures of a summary preview follow the summaries as edited: the tokens after Apply are counted
 * on the edited texts (exactly, as Apply counts them), so the figure shown before Apply is the one
 * the applied checkpoint records; the review document's first line and the sidebar's card show it.
 */
import '../support/vscode-fake/register';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { text, toolCalls } from '../../src/demo/modelserver/replies';
import type { Responder } from '../../src/demo/modelserver/wire';
import { describeOutcome } from '../../src/service/compaction/outcome';
import { countPreviewEdits, keepPreviewEdits, shownPreview } from '../../src/views/preview-edits';
import { previewDocument } from '../../src/views/documents/preview-text';
import { showPreviewEdits } from '../../src/views/documents/preview-review';
import { formatTokensFull } from '../../src/format/tokens';
import { filler, serviceFixture, StubSummarizer } from '../service/fixtures';
import { SidebarModel } from '../../src/views/sidebar/view-model';
import { toPreviewView } from '../../src/views/sidebar/view-mappers';
import { Store } from '../../src/webview/shared/view-store';
import type { BudgetView, HostMessage, ViewState } from '../../src/webview/shared/protocol';

const chrome = { source: 'test', hasApiKey: true, sessions: [], readOnly: false };

function snapshotState(model: SidebarModel): ViewState {
  return (model.snapshot() as Extract<HostMessage, { type: 'snapshot' }>).state;
}

/** Three tasks, each reading one file, then a short answer. */
const responder: Responder = (_body, n) =>
  n <= 6
    ? n % 2 === 1
      ? toolCalls([{ id: `h${n}`, name: 'read_file', arguments: JSON.stringify({ path: `f${(n + 1) / 2}.txt` }) }])
      : text(`Read file ${n / 2}.`)
    : text('ok');

const files = { 'f1.txt': filler(60, 'a'), 'f2.txt': filler(60, 'b'), 'f3.txt': filler(60, 'c') };

const PROPOSED = [
  '## Objective',
  'Read the three files the user named.',
  '',
  '## Work completed',
  `${filler(40, 'w')}`,
  '',
  '## Next step',
  'Report what the files hold.',
].join('\n');

for (const [name, edit] of [
  ['a section removed', (s: string) => s.replace(/## Work completed[\s\S]*?\n\n/, '')],
  ['a section added', (s: string) => `${s}\n\n## Constraints\nKeep the files as they are; ${filler(10, 'c')}`],
  ['emptied', () => ''],
] as const) {
  test(`preview figures follow the summary edited (${name}); Apply records the figure previewed`, async (t) => {
    const fx = await serviceFixture(responder, { files, summarizer: new StubSummarizer(PROPOSED), window: 64_000 });
    t.after(fx.cleanup);
    for (let i = 1; i <= 3; i++) await fx.service.runTask(`Read f${i}.txt`);
    const proposed = await fx.service.compactNow({ preview: true });
    const preview = proposed.preview;
    assert.ok(preview, describeOutcome(proposed.status));
    const edited = edit(preview.summaries[0].summary);
    assert.notEqual(edited, preview.summaries[0].summary);

    // The first summary edited, the others as proposed.
    const texts = preview.summaries.map((s, k) => (k === 0 ? edited : s.summary));
    keepPreviewEdits(fx.service, texts);
    const counted = countPreviewEdits(fx.service);
    assert.ok(counted !== undefined);
    if (name === 'a section added') assert.ok(counted > preview.tokensAfter, `${counted} > ${preview.tokensAfter}`);
    else assert.ok(counted < preview.tokensAfter, `${counted} < ${preview.tokensAfter}`);

    // As the sidebar reports edits: counted once the typing pauses, the figure handed to the card.
    const reported = await new Promise<number>((resolve) => showPreviewEdits(fx.service, texts, resolve));
    assert.equal(reported, counted);

    // The card: the figure message changes the figure only (the boxes keep what is typed in them), and a
    // page that reloads gets the counted figure in its snapshot.
    const model = new SidebarModel(fx.service, chrome, () => ({
      autoCompact: true,
      emptyBudget: { used: 0 } as BudgetView,
    }));
    const store = new Store();
    store.apply({ type: 'snapshot', seq: 0, state: { ...snapshotState(model), preview: toPreviewView(preview) } });
    store.apply({ type: 'previewTokens', tokensAfter: reported });
    assert.equal(store.view?.preview?.tokensAfter, counted);
    assert.equal(store.view?.preview?.summaries[0].summary, preview.summaries[0].summary);
    assert.equal(snapshotState(model).preview?.tokensAfter, counted);

    const shown = shownPreview(fx.service);
    assert.equal(shown?.tokensAfter, counted, 'the sidebar card shows the counted figure');
    const header = previewDocument(shown).split('\n')[0];
    assert.ok(
      header.includes(`${formatTokensFull(preview.tokensBefore)} → ${formatTokensFull(counted)} tokens`),
      header,
    );
    if (name === 'emptied') return; // Apply refuses an empty summary
    const applied = await fx.service.applyPreview(texts);
    assert.equal(applied.status.kind, 'applied', describeOutcome(applied.status));
    assert.equal(applied.tokensAfter, counted, 'Apply records the figure previewed');
  });
}
