// End-to-end checks of Restricted Mode: an untrusted folder whose .vscode/settings.json points the
// endpoints at a hostile server and turns on auto-approve. The limited features work (the sidebar,
// import, extractive compaction), the agent does not run, New Agent Task is not offered, and the
// hostile endpoint is never called (run.sh checks its request log afterwards).
//
// Environment (set by test/e2e/run.sh): CS_URL, OUT_DIR, PLAYWRIGHT_DIR, TRANSCRIPT (a transcript
// inside the untrusted folder). Appends its results to OUT_DIR/results.json.
import path from 'node:path';
import { checkRunner, expect, launchWorkbench, reportResults } from './workbench.mjs';
import { Sidebar } from './sidebar.mjs';

const env = (name) => {
  const value = process.env[name];
  if (!value) throw new Error(`missing environment variable ${name}`);
  return value;
};
const outDir = env('OUT_DIR');
const t0 = Date.now();
const log = (message) => console.log(`[e2e untrusted +${((Date.now() - t0) / 1000).toFixed(1)}s] ${message}`);
const { page, wb, close } = await launchWorkbench(env('PLAYWRIGHT_DIR'), outDir, log);
const sidebar = new Sidebar(wb);
const { results, check } = checkRunner(wb, log, 'fail-untrusted-');

try {
  await check('untrusted folder opens in Restricted Mode', async () => {
    await wb.open(env('CS_URL'));
    await page.locator('.part.statusbar', { hasText: 'Restricted Mode' }).first().waitFor({ timeout: 60_000 });
    await wb.activityItem('ContextKeeper').waitFor({ timeout: 60_000 });
    return 'status bar shows Restricted Mode; ContextKeeper is active';
  });

  await check('Restricted Mode: New Agent Task is not offered, inspection and import are', async () => {
    await wb.palette('ContextKeeper: Import Transcript', 'ContextKeeper: Import Transcript');
    await wb.palette('ContextKeeper: Compact Conversation', 'ContextKeeper: Compact Conversation');
    await wb.palette('ContextKeeper: New Agent Task');
    const agent = await wb
      .paletteRow('ContextKeeper: New Agent Task')
      .waitFor({ timeout: 3_000 })
      .then(
        () => true,
        () => false,
      );
    await wb.closeQuickInput();
    expect(!agent, 'New Agent Task is listed in Restricted Mode');
  });

  await check('Restricted Mode: a task from the sidebar does not run the agent', async () => {
    await wb.activityItem('ContextKeeper').click();
    await sidebar.budget();
    const frame = sidebar.frame;
    await frame.locator('#task').fill('Task: quick question, what is in notes.md?');
    await frame.locator('[data-test="run-task"]').click();
    const toast = await wb.waitToast('Restricted Mode', 20_000);
    await page.waitForTimeout(1_000);
    const turns = await frame.locator('.turn.assistant').count();
    expect(turns === 0, `the agent answered (${turns} assistant turns)`);
    await wb.screenshot('20-restricted-mode-agent-off');
    await wb.clearToasts();
    return toast;
  });

  await check('Restricted Mode: import and extractive compaction work', async () => {
    await wb.runCommand('ContextKeeper: Import Transcript');
    await wb.answerFileDialog(env('TRANSCRIPT'));
    await wb.waitToast('imported', 60_000);
    const select = sidebar.frame.locator('[data-test="session-select"]');
    const option = select.locator('option', { hasText: path.basename(env('TRANSCRIPT')) }).first();
    if (await option.count()) await select.selectOption(await option.getAttribute('value'));
    const imported = await sidebar.waitBudget((b) => b.used > 0, 'no gauge for the import', 60_000);
    await sidebar.frame.locator('[data-test="compact"]').click();
    // The checkpoint row is the proof; the toast can come and go before it is looked for.
    const row = sidebar.frame.locator('[data-test="checkpoint"][data-trigger="manual"]').first();
    const toast = await wb
      .waitToast(/compacted [\d.]+[kM]? → [\d.]+[kM]? tokens/, 20_000)
      .catch(() => 'toast not seen');
    await row.waitFor({ timeout: 60_000 });
    const text = await row.innerText();
    expect(
      /extractive/.test(text),
      `the checkpoint does not name the extractive summarizer (the workspace's summary model must not be used): ${text}`,
    );
    await wb.screenshot('21-restricted-mode-import-compact');
    await wb.clearToasts();
    return `${toast}; gauge ${imported.used} tokens before`;
  });
} catch (error) {
  results.push({ name: 'untrusted driver', ok: false, error: error?.message ?? String(error) });
  log(`driver error: ${error?.stack ?? error}`);
} finally {
  await close();
}

process.exit(reportResults(outDir, results, 'e2e untrusted', { append: true }));
