// End-to-end checks of the extension's set-up surface in a fresh workspace: every command in the
// palette (and the ones hidden while idle), the empty session's gauge and its disabled Compact, the status bar meter, settings
// applied live, and the API key stored in and cleared from secret storage.
import { EXPECTED_COMMANDS, HIDDEN_WHEN_IDLE } from './sidebar.mjs';
import { compactBlockedCheck } from './state-checks.mjs';

export async function setupChecks({ check, expect, wb, sidebar, page, updateSettings, env, log }) {
  await check('palette lists every command', async () => {
    const missing = [];
    await wb.palette('ContextKeeper: ', EXPECTED_COMMANDS[0]);
    const listed = new Set(await wb.paletteLabels());
    for (const title of EXPECTED_COMMANDS) {
      if (listed.has(title)) continue;
      await wb.palette(title);
      const row = wb.paletteRow(title);
      if (
        !(await row.waitFor({ timeout: 3_000 }).then(
          () => true,
          () => false,
        ))
      )
        missing.push(title);
    }
    await wb.screenshot('02-palette');
    const shown = [];
    for (const title of HIDDEN_WHEN_IDLE) {
      await wb.palette(title);
      if (
        await wb
          .paletteRow(title)
          .waitFor({ timeout: 1_500 })
          .then(
            () => true,
            () => false,
          )
      )
        shown.push(title);
    }
    await wb.closeQuickInput();
    expect(missing.length === 0, `not in the palette: ${missing.join(', ')}`);
    expect(shown.length === 0, `listed although they cannot act now: ${shown.join(', ')}`);
    return `${EXPECTED_COMMANDS.length} commands; ${HIDDEN_WHEN_IDLE.length} hidden by when clauses`;
  });

  await check(
    'sidebar shows the gauge of an empty session',
    async () => {
      await wb.activityItem('ContextKeeper').click();
      const budget = await sidebar.budget().catch(async (error) => {
        // A view left on "Loading…": what each webview shows, for the run's log beside the extension's.
        for (const line of await wb.webviewDiagnostics()) log(line);
        throw error;
      });
      // An empty session carries only the system prompt and the tool schemas.
      const messages = await Promise.all(
        ['history', 'summaries', 'currentTask'].map((k) =>
          sidebar.frame.locator(`[data-test="breakdown-${k}"]`).innerText(),
        ),
      );
      expect(
        messages.every((m) => m === '0'),
        `an empty session shows message tokens: ${messages.join(', ')}`,
      );
      expect(budget.model.length > 0, 'no model name on the gauge');
      await wb.screenshot('03-sidebar-empty');
      return `${budget.used} (system and tools) / ${budget.text} (${budget.accuracy}, ${budget.model})`;
    },
    { critical: true },
  );

  await compactBlockedCheck({ check, expect, wb, sidebar, page });

  await check('status bar meter', async () => {
    const item = page.locator('.part.statusbar [aria-label^="ContextKeeper:"]').first();
    await item.waitFor({ timeout: 10_000 });
    return (await item.getAttribute('aria-label')) ?? '';
  });

  await check('settings change applies without reload; a user value a workspace value overrides is told', async () => {
    // The user settings hold 8000: the workspace's 16000 applies first, and a warning says the user value has no effect.
    updateSettings({ 'contextKeeper.contextWindow': 16000 });
    await sidebar.waitBudget(
      (b) => b.text.includes('16k window (settings)'),
      'gauge did not follow contextWindow = 16000',
    );
    const warning = (await wb.toast('has no effect here').innerText({ timeout: 15_000 })).replace(/\s+/g, ' ');
    expect(
      /your user setting contextKeeper\.contextWindow \(8,000\) has no effect here: this workspace's settings set 16,000/.test(
        warning,
      ),
      `the warning: ${warning}`,
    );
    await wb.clearToasts();
    updateSettings({ 'contextKeeper.contextWindow': 8000 });
    const budget = await sidebar.waitBudget(
      (b) => b.text.includes('8.0k window'),
      'gauge did not follow contextWindow = 8000',
    );
    return `${budget.text}; ${warning.slice(0, 120)}`;
  });

  const probe = env('API_KEY_PROBE');
  await check('set API key (password input, secret storage)', async () => {
    await wb.runCommand('ContextKeeper: Set API Key');
    await wb.quickInputBox.waitFor({ state: 'visible' });
    expect((await wb.quickInputBox.getAttribute('type')) === 'password', 'the key input is not a password box');
    await wb.answerInput(probe);
    await wb.waitToast('API key stored');
    await sidebar.frame.locator('.header .key').waitFor({ timeout: 10_000 });
  });

  await check('Test Connection reaches the scripted model and says it works', async () => {
    await wb.clearToasts();
    await wb.runCommand('ContextKeeper: Test Connection');
    const toast = wb.toast('works.');
    await toast.waitFor({ timeout: 30_000 });
    const verdict = (await toast.innerText()).replace(/\s+/g, ' ');
    expect(/connection to http:\/\/127\.0\.0\.1:\d+\/v1 works/.test(verdict), `the verdict: ${verdict}`);
    await wb.clearToasts();
    return verdict.slice(0, 160);
  });

  await check('clear API key', async () => {
    await wb.runCommand('ContextKeeper: Clear API Key');
    await wb.waitToast('API key cleared');
    await sidebar.frame.locator('[data-test="set-key"]').waitFor({ timeout: 10_000 });
  });
}

/**
 * Opens the walkthrough once early: VS Code creates its walkthrough service only when something
 * needs it, and events from before that are not counted.
 */
export async function openWalkthrough({ wb }) {
  await wb.runCommand('Welcome: Open Walkthrough...');
  const row = wb.paletteRow('Get Started with ContextKeeper');
  await row.waitFor({ timeout: 15_000 });
  await row.click();
  await wb.page.waitForTimeout(1_000);
  await wb.runCommand('View: Close All Editors').catch(() => {});
}

/**
 * The walkthrough ticks what the run did: the endpoint chosen, the key set, a working Test Connection,
 * a task run from the sidebar (its buttons run the extension's own code, which VS Code's command
 * events do not see). `required`: the steps the run has done by then.
 */
export async function walkthroughChecks({ check, expect, wb, page }, required = ['endpoint', 'key', 'test', 'task']) {
  await check('the walkthrough ticks the steps the run did', async () => {
    await wb.runCommand('Welcome: Open Walkthrough...');
    const row = wb.paletteRow('Get Started with ContextKeeper');
    await row.waitFor({ timeout: 15_000 });
    await row.click();
    const prefix = 'contextkeeper.context-keeper#contextKeeper.gettingStarted#';
    await page.locator(`[data-done-step-id="${prefix}endpoint"]`).first().waitFor({ timeout: 15_000 });
    const states = {};
    for (const step of ['endpoint', 'key', 'test', 'task']) {
      states[step] =
        (await page.locator(`[data-done-step-id="${prefix}${step}"]`).first().getAttribute('aria-checked')) === 'true';
    }
    await wb.screenshot('09-walkthrough');
    await wb.runCommand('View: Close All Editors').catch(() => {});
    for (const step of required) expect(states[step], `the "${step}" step is not ticked: ${JSON.stringify(states)}`);
    return `ticked: ${Object.entries(states)
      .filter(([, done]) => done)
      .map(([step]) => step)
      .join(', ')}`;
  });
}
