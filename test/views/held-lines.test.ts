/**
 * Lines of messages a compaction replaced offer no pin button (pinning them fails until their
 * checkpoint is restored) and show their state instead; live lines keep the button, and pinning
 * from it works. Over a real context service and the sidebar model.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Entry } from '../../src/compaction/types';
import { text } from '../../src/demo/modelserver/replies';
import type { BudgetView, HostMessage, ViewState } from '../../src/webview/shared/protocol';
import { heldLabel, pinOffered } from '../../src/webview/shared/item-labels';
import { SidebarModel } from '../../src/views/sidebar/view-model';
import { filler, serviceFixture } from '../service/fixtures';

const chrome = { source: 'test', hasApiKey: true, sessions: [], readOnly: false };
const settings = () => ({ autoCompact: true, emptyBudget: { used: 0 } as BudgetView });

/** `steps` turns of a user request, a read_file call, its result and an answer. */
function recording(steps: number): Entry[] {
  const out: Entry['message'][] = [{ role: 'system', content: 'You are a recorded agent.' }];
  for (let i = 0; i < steps; i++) {
    out.push({ role: 'user', content: `Step ${i}: ${filler(5, `u${i}`)}` });
    out.push({
      role: 'assistant',
      content: '',
      tool_calls: [
        {
          id: `c${i}`,
          type: 'function',
          function: { name: 'read_file', arguments: JSON.stringify({ path: `f${i}.txt` }) },
        },
      ],
    });
    out.push({ role: 'tool', tool_call_id: `c${i}`, content: filler(20, `t${i}`) });
    out.push({ role: 'assistant', content: `Done ${i}: ${filler(5, `a${i}`)}` });
  }
  return out.map((message, i) => ({ id: `m${i}`, message }));
}

function lines(model: SidebarModel): ViewState['transcript'] {
  return (model.snapshot() as Extract<HostMessage, { type: 'snapshot' }>).state.transcript;
}

test('summarized lines show their state and offer no pin; live lines offer one that works', async (t) => {
  const fx = await serviceFixture(() => text('ok'), { window: 200_000 });
  t.after(fx.cleanup);
  await fx.service.importTranscript({ source: 'test', entries: recording(40) });
  assert.equal((await fx.service.compactNow()).status.kind, 'applied');
  const model = new SidebarModel(fx.service, chrome, settings);
  const live = new Set(
    fx.service
      .getTranscript()
      .context.filter((i) => i.kind === 'raw')
      .map((i) => i.id),
  );
  const shown = lines(model).filter((l) => l.kind !== 'tool-call');
  const held = shown.filter((l) => !live.has(l.entryId));
  const kept = shown.filter((l) => live.has(l.entryId));
  assert.ok(held.length > 0 && kept.length > 0, `${held.length} summarized lines, ${kept.length} live ones`);
  for (const line of held) {
    assert.equal(pinOffered(line, false), false, `no pin on summarized ${line.entryId}`);
    assert.equal(line.compactedAs, 'summarized', `${line.entryId} says it is summarized`);
    assert.equal(heldLabel(line.compactedAs).text, 'summarized');
  }
  for (const line of kept) {
    assert.equal(pinOffered(line, false), true, `a pin on live ${line.entryId}`);
    assert.equal(line.compactedAs, undefined);
  }
  assert.equal(
    shown.some((l) => pinOffered(l, true)),
    false,
    'a read-only recording offers no pin',
  );
  await fx.service.pin(kept[0].entryId, true);
  assert.deepEqual(fx.service.getTranscript().pinned, [kept[0].entryId], 'the offered pin works');
  await assert.rejects(
    fx.service.pin(held[0].entryId, true),
    /restore it first/,
    'the service refuses what is not offered',
  );

  // A restore makes the lines live again: pins come back, the state goes.
  await fx.service.restoreCheckpoint(fx.service.getCheckpoints()[0].id);
  model.checkpointsChanged();
  const back = lines(model).find((l) => l.entryId === held[0].entryId)!;
  assert.equal(back.compactedAs, undefined);
  assert.equal(pinOffered(back, false), true);
});
