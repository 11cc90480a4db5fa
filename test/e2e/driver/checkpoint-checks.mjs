// End-to-end checks of checkpoints: a manual compaction with focus text from the palette, the
// checkpoint document and its diff, restoring the checkpoint (with the confirmation) and undoing
// the restore from the palette and from the sidebar.
import { COMPACTED_TOAST } from './sidebar.mjs';
import { CHECKPOINT_TAB, expectCheckpointTitle } from './document-checks.mjs';

export async function checkpointChecks({ check, expect, wb, sidebar, page, log }) {
  let compacted;
  await check('compact conversation from the palette with focus text', async () => {
    const before = await sidebar.checkpointCount();
    const start = await sidebar.budget();
    await wb.runCommand('ContextKeeper: Compact Conversation');
    await wb.answerInput('the design notes and notes.md', { titleContains: 'Compact Conversation' });
    const progress = await wb
      .toast('compacting')
      .waitFor({ timeout: 3_000 })
      .then(
        () => 'progress shown',
        () => 'progress too quick to see',
      );
    const toast = await wb.waitToast(COMPACTED_TOAST, 60_000);
    expect((toast.match(/→/g) ?? []).length === 1, `the compaction notice repeats its figures: ${toast}`);
    compacted = await sidebar.waitBudget((b) => b.used < start.used, `gauge did not drop after compaction (${toast})`);
    const after = await sidebar.checkpointCount();
    expect(after === before + 1, `expected ${before + 1} checkpoints, found ${after}`);
    const newest = await sidebar.frame.locator('[data-test="checkpoint"]').first().innerText();
    expect(newest.includes('the design notes'), 'the newest checkpoint does not show the focus text');
    await wb.clearToasts();
    await wb.screenshot('06-sidebar-compacted');
    return `${progress}; ${toast}; ${start.used} → ${compacted.used} tokens`;
  });

  await check('open checkpoint document', async () => {
    expect(compacted, 'needs a checkpoint');
    await sidebar.frame.locator('[data-test="checkpoint"] [data-test="open-checkpoint"]').first().click();
    // The tab says what it shows: "Checkpoint", local time (the sidebar's clock format), trigger and
    // tokens ("Checkpoint 2:02 PM · manual · 5.1k → 2.0k"), no file extension.
    const tab = page.locator('.tabs-container .tab', { hasText: CHECKPOINT_TAB }).first();
    await tab.waitFor({ timeout: 15_000 });
    const title = await tab.innerText();
    expectCheckpointTitle(expect, title, 'the checkpoint tab');
    await page.locator('.editor-instance .view-lines', { hasText: 'Checkpoint' }).first().waitFor({ timeout: 15_000 });
    await wb.screenshot('07-checkpoint-document');
    await sidebar.frame.locator('[data-test="checkpoint"] [data-test="diff-checkpoint"]').first().click();
    await page.locator('.tabs-container .tab', { hasText: 'replaced ↔ summary' }).first().waitFor({ timeout: 15_000 });
    // The compare opens at its first line (the same on both sides), above the first replaced message.
    await page
      .locator('.editor-instance .view-lines', { hasText: 'The replaced messages (left)' })
      .first()
      .waitFor({ timeout: 15_000 });
    await page.locator('.editor-instance .view-lines', { hasText: '### user' }).first().waitFor({ timeout: 15_000 });
    await wb.screenshot('07-checkpoint-diff');
    return `tab "${title.trim()}"`;
  });

  await restoreChecks({ check, expect, wb, sidebar, page, log }, compacted);
}

/** Restores the newest checkpoint from its row in the sidebar, confirming the dialog. */
async function restoreFromSidebar({ wb, sidebar, page }) {
  await sidebar.frame.locator('[data-test="checkpoint"] [data-test="restore-checkpoint"]').first().click();
  const dialog = page.locator('.monaco-dialog-box', { hasText: 'Restore the context to before' });
  await dialog.waitFor({ timeout: 10_000 });
  await dialog.locator('.monaco-button', { hasText: 'Restore' }).first().click();
  await wb.waitToast('restored');
  await wb.clearToasts();
}

/**
 * After a restore (the context at `restored` tokens, `compacted` before it): undo it from the
 * palette, restore again, undo from the sidebar, and restore once more for the checks after this.
 */
async function undoRestoreChecks(ctx, compacted, restored) {
  const { check, expect, wb, sidebar } = ctx;
  const near = (b, target) => Math.abs(b.used - target) <= Math.max(50, target * 0.02);
  await check('undo a restore from the palette and from the sidebar: the compacted context comes back', async () => {
    await wb.runCommand('ContextKeeper: Undo Last Restore');
    const notice = await wb.waitToast('restore undone');
    const first = await sidebar.waitBudget(
      (b) => near(b, compacted),
      `gauge did not return to ${compacted} after Undo Last Restore (palette)`,
    );
    expect(
      await sidebar.frame
        .locator('[data-test="checkpoint"]')
        .first()
        .evaluate((el) => !el.classList.contains('restored')),
      'the checkpoint still shows as restored',
    );
    await wb.clearToasts();
    await restoreFromSidebar(ctx);
    await sidebar.waitBudget((b) => b.used > compacted, 'gauge did not rise after the second restore');
    await sidebar.frame.locator('[data-test="undo-restore"]').first().click();
    await wb.waitToast('restore undone');
    const second = await sidebar.waitBudget(
      (b) => near(b, compacted),
      `gauge did not return to ${compacted} after the sidebar's undo`,
    );
    await wb.clearToasts();
    // Leave the session restored, as the checks after this expect.
    await restoreFromSidebar(ctx);
    await sidebar.waitBudget((b) => b.used > compacted, 'gauge did not rise after the last restore');
    return `${notice}; palette ${restored} → ${first.used}, sidebar → ${second.used} (compacted: ${compacted})`;
  });
}

/** Restore from the sidebar (confirmation with the resulting size, notice in the gauge's formatting), then its undo. */
async function restoreChecks(ctx, compacted) {
  const { check, expect, wb, sidebar, page, log } = ctx;
  let restoredTo;
  await check('restore checkpoint raises the gauge', async () => {
    expect(compacted, 'needs a checkpoint');
    await sidebar.frame.locator('[data-test="checkpoint"] [data-test="restore-checkpoint"]').first().click();
    // Restore asks first, with the size the context will have.
    const dialog = page.locator('.monaco-dialog-box', { hasText: 'Restore the context to before' });
    await dialog.waitFor({ timeout: 10_000 });
    const question = await dialog.innerText();
    expect(
      /grows from [\d,]+ to about [\d,]+ tokens/.test(question),
      `the confirmation does not give the resulting size: ${question}`,
    );
    // It names the run as the history shows it: trigger, time, tokens before → after.
    expect(
      /before the \w+ compaction of .+ \([\d.]+[kM]? → [\d.]+[kM]? tokens\)\?/.test(question),
      `the confirmation does not name the compaction run: ${question}`,
    );
    await wb.screenshot('07b-restore-confirm');
    await dialog.locator('.monaco-button', { hasText: 'Restore' }).first().click();
    const toast = wb.toast('restored');
    await toast.waitFor({ timeout: 30_000 });
    const notice = await toast.innerText();
    // The same figures as the gauge: "context 2.0k → 5.1k tokens", never raw "5123".
    expect(
      /context [\d.]+[kM]? → [\d.]+[kM]? tokens/.test(notice) && !/\d{4}/.test(notice),
      `the restore notice is not in the gauge's formatting: ${notice}`,
    );
    log('restore toast seen');
    const restored = await sidebar.waitBudget((b) => b.used > compacted.used, 'gauge did not rise after restore');
    await sidebar.frame.locator('[data-test="checkpoint"].restored').first().waitFor({ timeout: 10_000 });
    await wb.clearToasts();
    restoredTo = restored.used;
    return `${compacted.used} → ${restored.used} tokens; asked: "${question.split('\n').find((l) => l.includes('grows')) ?? ''}"; "${notice.split('\n').find((l) => l.includes('restored')) ?? notice}"`;
  });
  if (restoredTo) await undoRestoreChecks(ctx, compacted.used, restoredTo);
}
