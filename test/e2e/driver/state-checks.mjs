// Checks of the Context view's states and the actions they offer: Compact is disabled with its reason
// while nothing can be compacted (the sidebar button, the view's title button and the command, all
// following the contextKeeper.canCompact key) and enabled once something can; a model call that fails
// shows the error state with Retry, and Retry sends the task once more, not twice, and it completes.
// Each function takes the driver's context: { check, expect, wb, sidebar, page, env, log }.
import fs from 'node:fs';

/** The Context view's title-bar Compact action (contributed when contextKeeper.canCompact holds). */
function titleCompact(page) {
  return page.locator('.part.sidebar .pane-header .actions [aria-label^="Compact Conversation"]');
}

/** On the empty session: the button is disabled and says why, the title action is absent, the command says why at once. */
export async function compactBlockedCheck({ check, expect, wb, sidebar, page }) {
  await check('Compact is disabled on an empty session, with the reason (button, title action, command)', async () => {
    const button = sidebar.frame.locator('[data-test="compact"]');
    await button.waitFor({ timeout: 15_000 });
    expect(await button.isDisabled(), 'Compact is enabled on an empty session');
    const title = (await button.getAttribute('title')) ?? '';
    const reason = (await sidebar.frame.locator('[data-test="compact-blocked"]').innerText()).trim();
    expect(/^Nothing to compact: .+/.test(reason), `no reason shown under the button: "${reason}"`);
    expect(title.startsWith('Nothing to compact:'), `the button's title gives no reason: "${title}"`);
    expect((await titleCompact(page).count()) === 0, 'the view title offers Compact on an empty session');
    await wb.runCommand('ContextKeeper: Compact Conversation');
    const toast = await wb.waitToast('nothing to compact', 15_000);
    const asked = await page
      .locator('.quick-input-widget .quick-input-title', { hasText: 'Compact Conversation' })
      .isVisible();
    expect(!asked, 'the command asked for a focus on an empty session');
    await wb.screenshot('03b-compact-disabled');
    await wb.clearToasts();
    return `"${reason}"; command: "${toast}"`;
  });
}

/** With history to compact: the button is enabled, no reason shown, the title action is there, the command asks for a focus. */
export async function compactEnabledCheck({ check, expect, wb, sidebar, page }) {
  await check('Compact is enabled once the session has something to compact', async () => {
    const button = sidebar.frame.locator('[data-test="compact"]');
    for (let i = 0; i < 50 && (await button.isDisabled()); i++) await page.waitForTimeout(200);
    expect(!(await button.isDisabled()), `Compact is still disabled: "${await button.getAttribute('title')}"`);
    expect(
      (await sidebar.frame.locator('[data-test="compact-blocked"]').count()) === 0,
      'a reason not to compact is still shown',
    );
    await titleCompact(page).first().waitFor({ state: 'attached', timeout: 10_000 });
    const checkpoints = await sidebar.checkpointCount();
    await wb.runCommand('ContextKeeper: Compact Conversation');
    // The command asks for a focus first; Escape leaves the session as it is.
    await page
      .locator('.quick-input-widget .quick-input-title', { hasText: 'Compact Conversation' })
      .waitFor({ timeout: 15_000 });
    await wb.closeQuickInput();
    expect((await sidebar.checkpointCount()) === checkpoints, 'a compaction ran although the prompt was dismissed');
    return `enabled: "${await button.getAttribute('title')}"; title action shown; the command asks for a focus`;
  });
}

/** The scripted model's log of chat requests for `task` (one JSON line each: task, copies). */
function requestsFor(env, task) {
  const file = env('MODEL_REQUESTS');
  const lines = fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
  return lines.map((line) => JSON.parse(line)).filter((r) => r.task === task);
}

/** A task whose first model call fails: the error state with Retry; Retry sends it once more and it completes. */
export async function retryCheck({ check, expect, wb, sidebar, page, env }) {
  await check(
    'after a model error the view offers Retry; Retry sends the task once more and it completes',
    async () => {
      const frame = sidebar.frame;
      const task = 'Task: flaky model, answer after one error';
      await frame.locator('#task').fill(task);
      await frame.locator('[data-test="run-task"]').click();
      // The card of this task's failure (an earlier check leaves one for another task until this one starts).
      const card = frame.locator('.card.error[data-test="error"]', {
        has: frame.locator('[data-test="error-task"]', { hasText: 'flaky model' }),
      });
      await card.waitFor({ timeout: 30_000 });
      await frame.locator('[data-test="state"]', { hasText: 'error' }).waitFor({ timeout: 10_000 });
      const box = frame.locator('#task');
      for (let i = 0; i < 50 && (await box.inputValue()) !== task; i++) await page.waitForTimeout(100);
      expect((await box.inputValue()) === task, 'the failed task is not back in the task box');
      expect(
        requestsFor(env, task).length === 1,
        `the model saw ${requestsFor(env, task).length} requests before Retry`,
      );
      await wb.screenshot('05f-error-retry');
      await wb.clearToasts();
      await card.locator('[data-test="retry"]').click();
      await frame.locator('.turn.assistant', { hasText: 'Retried: the task completed' }).waitFor({ timeout: 30_000 });
      await frame.locator('[data-test="state"]', { hasText: 'idle' }).waitFor({ timeout: 30_000 });
      await card.waitFor({ state: 'detached', timeout: 10_000 });
      const requests = requestsFor(env, task);
      expect(requests.length === 2, `the model saw ${requests.length} requests for the task (2 expected)`);
      expect(requests[1].copies === 1, `the retried request carries the task ${requests[1].copies} times`);
      const lines = await frame.locator('.turn.user', { hasText: 'flaky model, answer after one error' }).count();
      expect(lines === 1, `the transcript shows the task ${lines} times`);
      expect((await frame.locator('#task').inputValue()) === '', 'Retry left the task in the task box');
      await wb.clearToasts();
      return `2 requests for the task, the second with it once; 1 line in the transcript`;
    },
  );
}
