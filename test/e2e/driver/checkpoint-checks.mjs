// End-to-end checks of checkpoints: a manual compaction with focus text from the palette, the
// checkpoint document and its diff, and restoring the checkpoint (with the confirmation).

export async function checkpointChecks({ check, expect, wb, sidebar, page, log }) {
  let compacted;
  await check('compact conversation from the palette with focus text', async () => {
    const before = await sidebar.checkpointCount();
    const start = await sidebar.budget();
    await wb.runCommand('ContextKeeper: Compact Conversation');
    await wb.answerInput('the design notes and notes.md', { titleContains: 'Compact Conversation' });
    const progress = await wb.toast('compacting').waitFor({ timeout: 3_000 }).then(() => 'progress shown', () => 'progress too quick to see');
    const toast = await wb.waitToast('tokens)', 60_000);
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
    // The tab is titled by local time, trigger and tokens ("14.02 manual 5.1k → 2.0k.md").
    const tab = page.locator('.tabs-container .tab', { hasText: /\d\d\.\d\d (auto|manual) [\d.]+k? → [\d.]+k?/ }).first();
    await tab.waitFor({ timeout: 15_000 });
    const title = await tab.innerText();
    await page.locator('.editor-instance .view-lines', { hasText: 'Checkpoint' }).first().waitFor({ timeout: 15_000 });
    await wb.screenshot('07-checkpoint-document');
    await sidebar.frame.locator('[data-test="checkpoint"] [data-test="diff-checkpoint"]').first().click();
    await page.locator('.tabs-container .tab', { hasText: 'replaced ↔ summary' }).first().waitFor({ timeout: 15_000 });
    await page.locator('.editor-instance .view-lines', { hasText: 'read_file' }).first().waitFor({ timeout: 15_000 });
    await wb.screenshot('07-checkpoint-diff');
    return `tab "${title.trim()}"`;
  });

  await check('restore checkpoint raises the gauge', async () => {
    expect(compacted, 'needs a checkpoint');
    await sidebar.frame.locator('[data-test="checkpoint"] [data-test="restore-checkpoint"]').first().click();
    // Restore asks first, with the size the context will have.
    const dialog = page.locator('.monaco-dialog-box', { hasText: 'Restore the checkpoint' });
    await dialog.waitFor({ timeout: 10_000 });
    const question = await dialog.innerText();
    expect(/grows from [\d,]+ to about [\d,]+ tokens/.test(question), `the confirmation does not give the resulting size: ${question}`);
    await wb.screenshot('07b-restore-confirm');
    await dialog.locator('.monaco-button', { hasText: 'Restore' }).first().click();
    await wb.waitToast('restored');
    log('restore toast seen');
    const restored = await sidebar.waitBudget((b) => b.used > compacted.used, 'gauge did not rise after restore');
    log('gauge rose');
    await sidebar.frame.locator('[data-test="checkpoint"].restored').first().waitFor({ timeout: 10_000 });
    await wb.clearToasts();
    return `${compacted.used} → ${restored.used} tokens; asked: "${question.split('\n').find((l) => l.includes('grows')) ?? ''}"`;
  });
}
