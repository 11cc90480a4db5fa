// Checks of what a user reads in notifications and reaches by keyboard: an error toast about a model
// whose id holds a colon (Ollama's `name:tag`) shows the id whole and keeps the server's reason; the
// default keybindings for New Agent Task, Compact Conversation and Cancel reach their commands from
// the workbench (none is taken by a VS Code binding).
// Each function takes the driver's context: { check, expect, wb, sidebar, page, updateSettings }.

const OLLAMA_MODEL = 'qwen2.5-coder:7b';

/** Puts the keyboard focus on the workbench (not inside a webview or an input), as a user clicking the editor area does. */
async function focusWorkbench(page) {
  await page.locator('.part.editor').click({ position: { x: 40, y: 40 } });
}

/** A model call refused for an Ollama model id: the toast names the model whole and says why. */
export async function ollamaModelToastCheck({ check, expect, wb, sidebar, page, updateSettings }) {
  await check(`an error toast about the Ollama model ${OLLAMA_MODEL} shows the id whole and the reason`, async () => {
    updateSettings({ 'contextKeeper.model': OLLAMA_MODEL });
    try {
      const frame = sidebar.frame;
      // The settings change is applied live; the gauge names the model once it is.
      for (let i = 0; i < 50 && !(await sidebar.budget()).model.includes('qwen2.5-coder'); i++)
        await page.waitForTimeout(200);
      await frame.locator('#task').fill('Task: missing model, the server has not pulled it');
      await frame.locator('[data-test="run-task"]').click();
      const toast = wb.toast('the agent stopped');
      await toast.waitFor({ timeout: 30_000 });
      const text = (await toast.locator('.notification-list-item-message').innerText()).trim();
      await wb.screenshot('05g-ollama-model-toast');
      expect(text.includes(OLLAMA_MODEL), `the toast does not show "${OLLAMA_MODEL}" whole: "${text}"`);
      expect(/not found/.test(text), `the toast lost the server's reason: "${text}"`);
      expect(!/qwen2\.5-coder[.…]?$/.test(text), `the toast ends inside the model id: "${text}"`);
      await wb.clearToasts();
      return text;
    } finally {
      updateSettings({ 'contextKeeper.model': undefined });
    }
  });
}

/** The three default keybindings, pressed with the focus on the workbench, run their commands. */
export async function keybindingChecks({ check, expect, wb, sidebar, page }) {
  const title = (text) => page.locator('.quick-input-widget .quick-input-title', { hasText: text });
  /**
   * Presses Ctrl+K then `key` on the workbench until the quick input titled `expected` opens (at most
   * three tries: a chord pressed while the palette of the step before is still closing is lost).
   */
  const chord = async (key, expected) => {
    for (let attempt = 1; ; attempt++) {
      await wb.closeQuickInput();
      await focusWorkbench(page);
      await page.keyboard.press('Control+K');
      await page.waitForTimeout(150);
      await page.keyboard.press(key);
      const opened = await title(expected)
        .waitFor({ timeout: 4_000 })
        .then(() => true)
        .catch(() => false);
      if (opened) return attempt;
      if (attempt === 3) throw new Error(`Ctrl+K ${key} did not open "${expected}" in 3 tries`);
    }
  };

  await check('Ctrl+K A opens New Agent Task; Ctrl+K J opens Compact Conversation', async () => {
    await wb.clearToasts();
    const tries = await chord('A', 'New Agent Task');
    await wb.closeQuickInput();
    const compact = sidebar.frame.locator('[data-test="compact"]');
    for (let i = 0; i < 50 && (await compact.isDisabled()); i++) await page.waitForTimeout(200);
    expect(!(await compact.isDisabled()), 'nothing to compact: the session should have history here');
    const compactTries = await chord('J', 'Compact Conversation');
    await wb.screenshot('05h-keybinding-compact');
    await wb.closeQuickInput();
    return `both asked for their input (tries: ${tries}, ${compactTries})`;
  });

  await check('Ctrl+K X cancels a streaming task', async () => {
    const frame = sidebar.frame;
    await frame.locator('#task').fill('Task: slow answer to cancel by keyboard');
    await frame.locator('[data-test="run-task"]').click();
    await frame.locator('.turn.assistant.streaming', { hasText: 'word3' }).waitFor({ timeout: 30_000 });
    await focusWorkbench(page);
    await page.keyboard.press('Control+K');
    await page.keyboard.press('X');
    await frame.locator('[data-test="state"]', { hasText: 'idle' }).waitFor({ timeout: 15_000 });
    const last = await frame.locator('.turn.assistant').last().innerText();
    expect(!last.includes('word59'), 'the answer streamed to its end: the keybinding did not cancel it');
    await wb.clearToasts();
    return 'cancelled before the end of the answer';
  });
}

/**
 * An approval's notification: it offers Allow and Deny links, its Allow answers the request (the
 * sidebar's card goes, the edit is written), and once answered it is gone, from the toasts and from
 * the notification centre.
 */
export async function approvalNoticeCheck({ check, expect, wb, sidebar, page, env }) {
  await check(
    "an approval's notification: its Allow link answers it, then it closes, also in the notification centre",
    async () => {
      await wb.clearToasts();
      const frame = sidebar.frame;
      await frame.locator('#task').fill('Task: gather the design notes into notes.md for the approval notice');
      await frame.locator('[data-test="run-task"]').click();
      const card = frame.locator('[data-test="approval"]').first();
      await card.waitFor({ timeout: 90_000 });
      const toast = wb.toast('the agent asks to');
      await toast.waitFor({ timeout: 10_000 });
      const text = (await toast.innerText()).replace(/\s+/g, ' ');
      const links = toast.locator('.notification-list-item-message a');
      expect((await links.allInnerTexts()).join(',') === 'Allow,Deny', `the links: ${await links.allInnerTexts()}`);
      await wb.screenshot('05i-approval-notice');
      await links.first().click();
      await card.waitFor({ state: 'detached', timeout: 10_000 });
      await toast.waitFor({ state: 'hidden', timeout: 10_000 });
      await frame.locator('[data-test="state"]', { hasText: 'idle' }).waitFor({ timeout: 60_000 });
      const fs = await import('node:fs');
      const path = await import('node:path');
      expect(fs.existsSync(path.join(env('WORKSPACE'), 'notes.md')), 'notes.md was not written after Allow');
      await wb.runCommand('Notifications: Show Notifications');
      await page.waitForTimeout(500);
      const left = await page
        .locator('.notifications-center .notification-list-item', { hasText: 'the agent asks to' })
        .count();
      await wb.runCommand('Notifications: Hide Notifications').catch(() => {});
      expect(left === 0, `${left} approval notification(s) left in the notification centre`);
      return text.slice(0, 160);
    },
  );
}
