// What an automatic compaction during an agent task keeps, as the user sees it: the requests typed
// before it (the summary's "Requests, verbatim" section) and the files re-attached after the summary
// (current contents of the files touched last), in the sidebar's compaction divider and in the
// checkpoint document.
// Each function takes the driver's context: { check, expect, wb, sidebar, page, updateSettings, env, log }.

/** The first task of drive.mjs, typed before this check runs: a later compaction must keep it verbatim. */
export const FIRST_TASK = 'Task: read the five design notes in docs/ and write notes.md';

/** Searches the active editor with the find widget; returns its match count text ("1 of 3", "No results"). */
async function findInEditor(page, text) {
  await page.locator('.editor-instance .view-lines').first().click();
  await page.keyboard.press('Control+F');
  const input = page
    .locator('.editor-instance .find-widget.visible textarea, .editor-instance .find-widget.visible input')
    .first();
  await input.waitFor({ timeout: 10_000 });
  await input.fill(text);
  await page.keyboard.press('Enter');
  const count = page.locator('.editor-instance .find-widget.visible .matchesCount').first();
  await page.waitForTimeout(500);
  return (await count.innerText()).trim();
}

export async function keptDuringTaskChecks({ check, expect, wb, sidebar, page, updateSettings }) {
  let divider;
  await check(
    'compaction during an agent task keeps the earlier requests verbatim (sidebar and checkpoint document)',
    async () => {
      const frame = sidebar.frame;
      const autos = frame.locator('[data-test="compaction-divider"][data-trigger="auto"]');
      const before = await autos.count();
      // A smaller window for this task, so its compaction summarizes the earlier tasks instead of
      // only collapsing tool results (at 8k the collapse tier alone reaches the target).
      updateSettings({ 'contextKeeper.contextWindow': 5000 });
      await sidebar.waitBudget((b) => b.text.includes('5.0k window'), 'gauge did not follow contextWindow = 5000');
      await frame.locator('#task').fill('Task: read only, go through the design notes in docs/ again for the review');
      await frame.locator('[data-test="run-task"]').click();
      const deadline = Date.now() + 90_000;
      while ((await autos.count()) <= before) {
        expect(Date.now() < deadline, `no automatic compaction during the task (${before} before)`);
        await page.waitForTimeout(250);
      }
      await frame.locator('.turn.assistant', { hasText: 'nothing was written' }).waitFor({ timeout: 60_000 });
      await frame.locator('[data-test="state"]', { hasText: 'idle' }).waitFor({ timeout: 30_000 });
      updateSettings({ 'contextKeeper.contextWindow': 8000 });
      // The sidebar redraws on the change: the dividers are opened after it, not during it.
      // The session is opened anew with the setting: until it is, the sidebar shows no message (0 tokens).
      await sidebar.waitBudget(
        (b) => b.text.includes('8.0k window') && b.used > 0,
        'gauge did not follow contextWindow = 8000',
        60_000,
      );
      await frame
        .locator('[data-test="compaction-divider"][data-trigger="auto"]')
        .nth(before)
        .waitFor({ timeout: 30_000 });
      // The newest automatic compaction whose summary has the requests section (a collapse-only one has none).
      let text = '';
      const count = await autos.count();
      for (let i = count - 1; i >= before && !/requests, verbatim/i.test(text); i--) {
        divider = autos.nth(i);
        const body = divider.locator('[data-test="divider-summary"]');
        // Opened when closed (a click on an open one would close it); again if a redraw closed it.
        for (let attempt = 0; attempt < 3 && !(await body.isVisible()); attempt++) {
          if (
            !(await divider
              .locator('details')
              .first()
              .evaluate((el) => el.open))
          )
            await divider.locator('summary').first().click();
          await body.waitFor({ timeout: 5_000 }).catch(() => undefined);
        }
        await body.waitFor({ timeout: 5_000 });
        text = await body.innerText();
      }
      const summary = divider.locator('[data-test="divider-summary"]');
      expect(
        /requests, verbatim/i.test(text),
        `no compaction during the task has a "Requests, verbatim" section; the newest summary: ${text.slice(0, 300)}`,
      );
      expect(
        text.includes(FIRST_TASK),
        `the first task's request is not in the summary verbatim: ${text.slice(0, 600)}`,
      );
      await summary.evaluate((el) => el.scrollIntoView({ block: 'start' }));
      await wb.screenshot('05b-divider-requests-verbatim');
      // One Open a checkpoint of the run (collapse, then summary): the summary's is the last.
      await divider.locator('[data-test="divider-open"]').last().click();
      await page.locator('.tabs-container .tab', { hasText: /auto/ }).first().waitFor({ timeout: 15_000 });
      const heading = await findInEditor(page, 'Requests, verbatim');
      expect(!/no results/i.test(heading), `the checkpoint document has no "Requests, verbatim" section (${heading})`);
      const request = await findInEditor(page, FIRST_TASK);
      expect(!/no results/i.test(request), `the checkpoint document does not quote the first task (${request})`);
      await wb.screenshot('05c-checkpoint-requests-verbatim');
      await page.keyboard.press('Escape');
      return `sidebar divider and checkpoint document quote "${FIRST_TASK}" (${request})`;
    },
  );

  await wb.runCommand('View: Close All Editors').catch(() => {});
}

/**
 * A compaction asked for while the agent waits for an approval runs at the task's next safe point and
 * re-attaches the file the task just wrote (notes.md) after its summary. Runs after the checkpoint
 * checks, so the context it compacts does not change theirs.
 */
export async function reattachedDuringTaskCheck({ check, expect, wb, sidebar, page }) {
  await check(
    'compaction during an agent task re-attaches the files touched last (sidebar and checkpoint document)',
    async () => {
      await wb.runCommand('View: Close All Editors').catch(() => {});
      const frame = sidebar.frame;
      const manual = frame.locator('[data-test="compaction-divider"][data-trigger="manual"]');
      const before = await manual.count();
      // A task that reads the notes and rewrites notes.md; while its write waits for approval, Compact
      // Conversation is asked for: it runs at the task's next safe point, after the write.
      await frame.locator('#task').fill('Task: review the design notes in docs/ and rewrite notes.md');
      await frame.locator('[data-test="run-task"]').click();
      const approval = frame.locator('[data-test="approval"]').first();
      await approval.waitFor({ timeout: 90_000 });
      await wb.runCommand('ContextKeeper: Compact Conversation');
      await wb.answerInput('', { titleContains: 'Compact Conversation' });
      await page.waitForTimeout(500);
      await approval.locator('[data-test="approve"]').click();
      await frame.locator('[data-test="state"]', { hasText: 'idle' }).waitFor({ timeout: 60_000 });
      const deadline = Date.now() + 30_000;
      while ((await manual.count()) <= before) {
        expect(Date.now() < deadline, 'no compaction ran during the task');
        await page.waitForTimeout(250);
      }
      const divider = manual.nth((await manual.count()) - 1);
      await divider.locator('summary').click();
      const attached = divider.locator('[data-test="divider-attached"]');
      await attached.waitFor({ timeout: 10_000 });
      const list = await attached.innerText();
      expect(list.includes('notes.md'), `the divider lists no notes.md among the re-attached files: ${list}`);
      const headline = await divider.locator('[data-test="divider-text"]').innerText();
      expect(/re-attached/.test(headline), `the divider headline does not count the re-attached files: ${headline}`);
      // The kept requests stand in the summary of the earlier history, which this compaction leaves in
      // place (a summary is not summarised again while there is room); the check 'requests verbatim'
      // above shows them in the divider and the checkpoint document.
      await attached.evaluate((el) => el.scrollIntoView({ block: 'center' }));
      await wb.screenshot('05d-divider-files-reattached');
      // One Open a checkpoint of the run (collapse, then summary): the summary's is the last.
      await divider.locator('[data-test="divider-open"]').last().click();
      await page
        .locator('.tabs-container .tab', { hasText: /manual/ })
        .first()
        .waitFor({ timeout: 15_000 });
      const section = await findInEditor(page, 'Files re-attached after the summary');
      expect(
        !/no results/i.test(section),
        `the checkpoint document has no "Files re-attached after the summary" section (${section})`,
      );
      const file = await findInEditor(page, '`notes.md`');
      expect(!/no results/i.test(file), `the checkpoint document does not list notes.md (${file})`);
      await wb.screenshot('05e-checkpoint-files-reattached');
      await page.keyboard.press('Escape');
      return `divider: ${headline}; files: ${list.replace(/\s+/g, ' ').trim()}`;
    },
  );

  await wb.runCommand('View: Close All Editors').catch(() => {});
}
