// End-to-end checks of checkpoint documents in the editor: the compare of the replaced messages with
// the summary opens at the start of the replaced messages (also on a second open), the tabs are titled by what
// they show, and the checkpoint and compare tabs come back after Developer: Reload Window, showing the
// same checkpoint, with the status bar on the session the sidebar shows.

/**
 * A checkpoint tab's title: "Checkpoint", local time, trigger and the run's tokens, e.g.
 * "Checkpoint 2:02 PM · manual · 5.1k → 2.0k" (no file extension).
 */
export const CHECKPOINT_TAB =
  /Checkpoint \d{1,2}[:.]\d\d(\s?[AP]M)? · (auto|manual|continue) · [\d.,]+[kM]? → [\d.,]+[kM]?/;

/** Expects `title` to be a checkpoint tab's title, with no file extension. */
export function expectCheckpointTitle(expect, title, what) {
  expect(CHECKPOINT_TAB.test(title), `${what} is titled "${title}"`);
  expect(title.trim().startsWith('Checkpoint '), `${what} does not start with "Checkpoint": "${title}"`);
  expect(!/\.md\b/.test(title), `${what} names a file extension: "${title}"`);
}

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

/**
 * Waits for the workbench as the whole run does before its first palette use: the ContextKeeper
 * container open with the Context view's page loaded (the extension active, its views resolved),
 * then the palette listing one of its commands.
 */
export async function warmUp({ wb, sidebar }) {
  await wb.activityItem('ContextKeeper').click();
  await wb.waitSidebarWebview({ timeout: 30_000 });
  await sidebar.frame.locator('[data-test="run-task"]').waitFor({ timeout: 30_000 });
  await wb.palette('ContextKeeper: Import Transcript', 'ContextKeeper: Import Transcript');
  await wb.closeQuickInput();
}

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

/** The status bar item's accessible label (the watched agent's or the session's). */
async function statusBarLabel(page) {
  return (
    (await page.locator('.part.statusbar [aria-label^="ContextKeeper:"]').first().getAttribute('aria-label')) ?? ''
  );
}

/**
 * The checkpoint and compare tabs across Developer: Reload Window, then the status bar on the session
 * the sidebar shows. With `session` ({ id, file }: a session of the list, its recording's file name),
 * that session is shown first (the whole run ends on another one).
 */
export async function reloadChecks(ctx, session) {
  const { check, expect, wb, sidebar, page, updateSettings, log } = ctx;
  const settingsTab = () => page.locator('.tabs-container .tab', { hasText: 'Settings' }).first();
  const recordTab = () => page.locator('.tabs-container .tab', { hasText: CHECKPOINT_TAB }).first();
  let reloaded = false;
  await check(
    'checkpoint and compare tabs come back after Reload Window, on the same checkpoint, titled as before',
    async () => {
      if (session) {
        // Clicking the activity item of an open container closes it: open it only when the view is not shown.
        if (
          !(await page
            .locator('.pane-header', { hasText: /^\s*context/i })
            .first()
            .isVisible())
        )
          await wb.activityItem('ContextKeeper').click();
        await wb.waitSidebarWebview();
        await sidebar.frame.locator('[data-test="session-select"]').selectOption(session.id);
        await sidebar.frame.locator('[data-test="source"]', { hasText: session.file }).waitFor({ timeout: 30_000 });
        await wb.runCommand('View: Close All Editors').catch(() => {});
      }
      // As a user finds the window: the Settings editor open first and a setting changed from its default.
      updateSettings({ 'contextKeeper.contextWindow': 200_000 });
      await wb.runCommand('Preferences: Open Settings (UI)');
      await settingsTab().waitFor({ timeout: 30_000 });
      // Both tabs kept (not preview tabs, which replace each other), as a user keeps what they read.
      await sidebar.frame.locator('[data-test="checkpoint"] [data-test="open-checkpoint"]').first().click();
      await recordTab().waitFor({ timeout: 15_000 });
      await wb.runCommand('View: Keep Editor');
      const title = (await recordTab().innerText()).trim();
      expectCheckpointTitle(expect, title, 'the checkpoint tab');
      const record = page.locator('.editor-instance .view-lines', { hasText: /Checkpoint\s+ck-/ }).first();
      await record.waitFor({ timeout: 15_000 });
      const heading = /Checkpoint\s+(ck-\S+)/.exec(await record.innerText())?.[1];
      expect(heading, 'the checkpoint document shows no "# Checkpoint <id>" line');
      const modeItem = page.locator('.statusbar-item[id="status.editor.mode"]').first();
      const mode = (await modeItem.count()) > 0 ? (await modeItem.innerText()).trim() : undefined;
      if (mode === undefined) log?.('the language mode item was not found in the status bar');
      else expect(/markdown/i.test(mode), `the checkpoint document's language mode is ${mode}, not Markdown`);
      await sidebar.frame.locator('[data-test="checkpoint"] [data-test="diff-checkpoint"]').first().click();
      await compareTab(page).waitFor({ timeout: 15_000 });
      await wb.runCommand('View: Keep Editor');
      const compareTitle = (await compareTab(page).innerText()).trim();
      expect(
        compareTitle.startsWith(`${title}: replaced ↔ summary`),
        `the compare of the same checkpoint is titled "${compareTitle}", the record "${title}"`,
      );
      await expectCompareAtTop(ctx, 'before the reload');
      await wb.runCommand('Developer: Reload Window');
      reloaded = true;
      // The frames of the page before the reload are gone: find the Context view's webview anew.
      wb.sidebarIndex = undefined;
      await page.waitForTimeout(3_000);
      await page.locator('.monaco-workbench .part.statusbar').waitFor({ timeout: 90_000 });
      await settingsTab().waitFor({ timeout: 60_000 });
      // Give a lost tab time to be missed: the workbench restores what it persisted at once.
      await page.waitForTimeout(5_000);
      const tabs = await page.locator('.tabs-container .tab').allInnerTexts();
      log?.(`tabs after the reload: ${tabs.map((t) => t.trim()).join(' | ')}`);
      await recordTab().waitFor({ timeout: 30_000 });
      await compareTab(page).waitFor({ timeout: 30_000 });
      const titleAfter = (await recordTab().innerText()).trim();
      expect(titleAfter === title, `the checkpoint tab is titled "${titleAfter}" after the reload, "${title}" before`);
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
    },
  );
  if (!reloaded) return;

  await check('after the reload the status bar shows the session the sidebar shows', async () => {
    // The side bar comes back as it was; the Context view's page loads anew.
    if (
      !(await page
        .locator('.pane-header', { hasText: /^\s*context/i })
        .first()
        .isVisible())
    )
      await wb.activityItem('ContextKeeper').click();
    await wb.waitSidebarWebview({ timeout: 30_000 });
    if (session)
      await sidebar.frame.locator('[data-test="source"]', { hasText: session.file }).waitFor({ timeout: 60_000 });
    // The session opens some seconds after the window: wait until both show its figure.
    const deadline = Date.now() + 60_000;
    let budget;
    let label = '';
    for (;;) {
      budget = await sidebar.budget().catch(() => undefined);
      label = await statusBarLabel(page).catch(() => '');
      if (budget && budget.used > 0 && label.includes(`, ${budget.used} of `)) break;
      if (Date.now() > deadline) break;
      await page.waitForTimeout(500);
    }
    await wb.screenshot('32-status-bar-after-reload');
    expect(!/Claude Code|watched/.test(label), `the status bar shows the watched agent: "${label}"`);
    expect(
      budget && label.includes(`, ${budget.used} of `),
      `the status bar says "${label}", the sidebar's gauge ${budget?.used ?? 'nothing'} tokens`,
    );
    return `sidebar ${budget.used} tokens; status bar "${label}"`;
  });
}
