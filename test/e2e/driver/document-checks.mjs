// End-to-end checks of checkpoint documents in the editor: the compare of the replaced messages with
// the summary opens at the start of the replaced messages (also on a second open), and the checkpoint
// and compare tabs come back after Developer: Reload Window, showing the same checkpoint.

/** The compare editor's left pane. */
const leftPane = (page) => page.locator('.monaco-diff-editor .editor.original').first();

/**
 * Expects the compare's left pane scrolled to its top: its first line (shared by both sides) is
 * rendered at the top of the pane, and the first replaced message right below it.
 */
async function expectCompareAtTop({ page, expect }, when) {
  const pane = leftPane(page);
  await pane.locator('.view-line', { hasText: '###' }).first().waitFor({ timeout: 20_000 });
  // Let the diff settle (its filler zones arrive after the text).
  await page.waitForTimeout(1_000);
  const paneBox = await pane.boundingBox();
  const first = pane.locator('.view-line', { hasText: 'The replaced messages (left)' }).first();
  const count = await first.count();
  expect(count > 0, `${when}: the compare's first line is not on screen (scrolled down)`);
  const box = await first.boundingBox();
  expect(
    box && paneBox && box.y - paneBox.y < 40,
    `${when}: the first line is ${box && paneBox ? Math.round(box.y - paneBox.y) : '?'} px below the pane's top`,
  );
  return `${when}: first line at ${Math.round(box.y - paneBox.y)} px`;
}

const compareTab = (page) => page.locator('.tabs-container .tab', { hasText: 'replaced ↔ summary' }).first();

/** The compare opens at its top, twice (a second open finds the diff already computed). */
export async function compareScrollChecks(ctx) {
  const { check, wb, sidebar, page } = ctx;

  await check('the compare opens at the start of the replaced messages, also on a second open', async () => {
    await sidebar.frame.locator('[data-test="checkpoint"] [data-test="diff-checkpoint"]').first().click();
    await compareTab(page).waitFor({ timeout: 15_000 });
    const first = await expectCompareAtTop(ctx, 'first open');
    await wb.screenshot('30-compare-first-open');
    await wb.runCommand('View: Close Editor');
    await compareTab(page).waitFor({ state: 'detached', timeout: 10_000 });
    await sidebar.frame.locator('[data-test="checkpoint"] [data-test="diff-checkpoint"]').first().click();
    await compareTab(page).waitFor({ timeout: 15_000 });
    const second = await expectCompareAtTop(ctx, 'second open');
    await wb.screenshot('30-compare-second-open');
    return `${first}; ${second}`;
  });
}

/** The checkpoint and compare tabs across Developer: Reload Window. */
export async function reloadChecks(ctx) {
  const { check, expect, wb, sidebar, page, updateSettings, log } = ctx;
  const settingsTab = () => page.locator('.tabs-container .tab', { hasText: 'Settings' }).first();
  const recordTab = () =>
    page
      .locator('.tabs-container .tab', { hasText: /\d{1,2}[:.]\d\d(\s?[AP]M)? (auto|manual) [\d.]+k? → [\d.]+k?/ })
      .first();
  await check('checkpoint and compare tabs come back after Reload Window, on the same checkpoint', async () => {
    // As a user finds the window: the Settings editor open first and a setting changed from its default.
    updateSettings({ 'contextKeeper.contextWindow': 200_000 });
    await wb.runCommand('Preferences: Open Settings (UI)');
    await settingsTab().waitFor({ timeout: 30_000 });
    // Both tabs kept (not preview tabs, which replace each other), as a user keeps what they read.
    await sidebar.frame.locator('[data-test="checkpoint"] [data-test="open-checkpoint"]').first().click();
    await recordTab().waitFor({ timeout: 15_000 });
    await wb.runCommand('View: Keep Editor');
    const title = (await recordTab().innerText()).trim();
    const record = page.locator('.editor-instance .view-lines', { hasText: /Checkpoint\s+ck-/ }).first();
    await record.waitFor({ timeout: 15_000 });
    const heading = /Checkpoint\s+(ck-\S+)/.exec(await record.innerText())?.[1];
    expect(heading, 'the checkpoint document shows no "# Checkpoint <id>" line');
    await sidebar.frame.locator('[data-test="checkpoint"] [data-test="diff-checkpoint"]').first().click();
    await compareTab(page).waitFor({ timeout: 15_000 });
    await wb.runCommand('View: Keep Editor');
    await expectCompareAtTop(ctx, 'before the reload');
    await wb.runCommand('Developer: Reload Window');
    await page.waitForTimeout(3_000);
    await page.locator('.monaco-workbench .part.statusbar').waitFor({ timeout: 90_000 });
    await settingsTab().waitFor({ timeout: 60_000 });
    // Give a lost tab time to be missed: the workbench restores what it persisted at once.
    await page.waitForTimeout(5_000);
    const tabs = await page.locator('.tabs-container .tab').allInnerTexts();
    log?.(`tabs after the reload: ${tabs.map((t) => t.trim()).join(' | ')}`);
    await recordTab().waitFor({ timeout: 30_000 });
    await compareTab(page).waitFor({ timeout: 30_000 });
    await recordTab().click();
    const restored = page.locator('.editor-instance .view-lines', { hasText: heading }).first();
    await restored.waitFor({ timeout: 60_000 });
    await wb.screenshot('31-checkpoint-restored');
    await compareTab(page).click();
    const top = await expectCompareAtTop(ctx, 'restored compare');
    await wb.screenshot('31-compare-restored');
    const failed = await page.locator('.notifications-toasts', { hasText: 'Unable to resolve' }).count();
    expect(failed === 0, 'a restored tab could not be resolved');
    return `tab "${title}", checkpoint ${heading}; ${top}`;
  });
}
