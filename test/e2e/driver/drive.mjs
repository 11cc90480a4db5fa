// End-to-end checks of the ContextKeeper extension in a real VS Code (code-server) workbench.
// Each check is named, runs in order, and is reported as PASS or FAIL; a failed check takes a
// screenshot and the run goes on where later checks do not depend on it. Exit code 1 on any failure.
//
// Environment (set by test/e2e/run.sh):
//   CS_URL          workbench URL with ?folder=
//   OUT_DIR         screenshots and browser console log
//   PLAYWRIGHT_DIR  folder with node_modules/playwright-core
//   TRANSCRIPT      a transcript file to import
//   API_KEY_PROBE   a key to set and clear (run.sh then checks it was never written to disk)
//   MODEL_SERVER    base URL of the scripted model server the extension is configured with
//   MODEL_REQUESTS  the file where that server appends one JSON line per chat request (task, copies)
//   WORKSPACE       the opened folder
//   SHARED_TRANSCRIPT  optional: a recorded session from the shared test data to import
//   WORKSPACE_SETTINGS  the workspace's .vscode/settings.json (some checks change settings)
import fs from 'node:fs';
import path from 'node:path';
import { Abort, checkRunner, expect, launchWorkbench, reportResults } from './workbench.mjs';
import { COMPACTED_TOAST, Sidebar } from './sidebar.mjs';
import {
  configuredCheck,
  dividerDuringTask,
  importChecks,
  longSessionChecks,
  previewApplyCheck,
  refusedSwitchCheck,
  themeShots,
  welcomeChecks,
} from './sidebar-checks.mjs';
import { FIRST_TASK, keptDuringTaskChecks, reattachedDuringTaskCheck } from './compaction-checks.mjs';
import { watchChecks } from './watch-checks.mjs';
import { recallCheck } from './recall-checks.mjs';
import { openWalkthrough, setupChecks, walkthroughChecks } from './setup-checks.mjs';
import { checkpointChecks } from './checkpoint-checks.mjs';
import { compareScrollChecks, reloadChecks, warmUp } from './document-checks.mjs';
import { compactEnabledCheck, retryCheck } from './state-checks.mjs';
import { keybindingChecks, approvalNoticeCheck, ollamaModelToastCheck } from './notice-checks.mjs';
import { checkpointKeyboardChecks, sessionSelectChecks, transcriptKeyboardChecks } from './keyboard-checks.mjs';

const env = (name, required = true) => {
  const value = process.env[name];
  if (!value && required) throw new Error(`missing environment variable ${name}`);
  return value;
};
const outDir = env('OUT_DIR');
fs.mkdirSync(outDir, { recursive: true });
const t0 = Date.now();
const log = (message) => console.log(`[e2e +${((Date.now() - t0) / 1000).toFixed(1)}s] ${message}`);

const { page, wb, close } = await launchWorkbench(env('PLAYWRIGHT_DIR'), outDir, log);
const consoleLines = [];
page.on('console', (m) => consoleLines.push(`[${m.type()}] ${m.text()}`));
page.on('pageerror', (e) => consoleLines.push(`[pageerror] ${e.message}`));
const sidebar = new Sidebar(wb);
const { results, check } = checkRunner(wb, log);

/**
 * Rewrites the workspace's .vscode/settings.json; VS Code watches it and applies changes live
 * (code-server does not watch the user settings file for outside edits).
 */
function updateSettings(patch) {
  const file = env('WORKSPACE_SETTINGS');
  const current = JSON.parse(fs.readFileSync(file, 'utf8'));
  fs.writeFileSync(file, `${JSON.stringify({ ...current, ...patch }, null, 2)}\n`);
}

try {
  await check(
    'workbench loads',
    async () => {
      await wb.open(env('CS_URL'));
      return 'activity bar and status bar rendered';
    },
    { critical: true },
  );

  await check(
    'activity bar shows ContextKeeper',
    async () => {
      await wb.activityItem('ContextKeeper').waitFor({ timeout: 60_000 });
      await wb.screenshot('01-workbench');
    },
    { critical: true },
  );

  const only = process.env.CK_E2E_ONLY;
  const ctx = {
    check,
    expect: (c, m) => expect(c, m),
    wb,
    sidebar,
    page,
    updateSettings: (p) => updateSettings(p),
    env,
    log,
  };
  if (only === 'long') {
    // A short run of the responsiveness check alone (CK_E2E_ONLY=long); the task needs the scripted
    // model, chosen as a user would.
    await configuredCheck(ctx);
    await wb.activityItem('ContextKeeper').click();
    await sidebar.budget();
    await longSessionChecks(ctx);
    throw new Abort('only the long-session check was asked for');
  }
  if (only === 'notices') {
    // Notifications and keybindings alone (CK_E2E_ONLY=notices), on a session given some history first.
    await configuredCheck(ctx);
    await wb.activityItem('ContextKeeper').click();
    await sidebar.budget();
    await sidebar.frame.locator('#task').fill('Task: quick question about the notes');
    await sidebar.frame.locator('[data-test="run-task"]').click();
    await sidebar.frame.locator('[data-test="state"]', { hasText: 'idle' }).waitFor({ timeout: 30_000 });
    await ollamaModelToastCheck(ctx);
    await approvalNoticeCheck(ctx);
    await keybindingChecks(ctx);
    throw new Abort('only the notification and keybinding checks were asked for');
  }
  if (only === 'documents') {
    // Checkpoint documents alone (CK_E2E_ONLY=documents): an imported recording, compacted without a
    // model, its compare opened twice, then both tabs across Reload Window. The workbench is waited
    // for as the whole run waits before its first palette use (its views loaded, the palette ours).
    await check('import and compact a recording for the document checks', async () => {
      await warmUp(ctx);
      await wb.runCommand('ContextKeeper: Import Transcript');
      await wb.answerFileDialog(env('TRANSCRIPT'));
      await wb.waitToast('imported', 60_000);
      await sidebar.waitBudget((b) => b.used > 0, 'no gauge for the import', 60_000);
      await sidebar.frame.locator('[data-test="compact"]').click();
      await sidebar.frame
        .locator('[data-test="checkpoint"][data-trigger="manual"]')
        .first()
        .waitFor({ timeout: 60_000 });
      await wb.clearToasts();
    });
    await compareScrollChecks(ctx);
    await reloadChecks(ctx);
    throw new Abort('only the checkpoint document checks were asked for');
  }
  if (only === 'watch') {
    // The Agent Sessions view alone (CK_E2E_ONLY=watch).
    await watchChecks(ctx);
    throw new Abort('only the agent-session checks were asked for');
  }
  await welcomeChecks(ctx);
  await openWalkthrough(ctx).catch((error) => log(`walkthrough not opened early: ${error.message}`));
  await configuredCheck(ctx);

  await setupChecks(ctx);
  // The set-up checks alone (CK_E2E_ONLY=setup): the fresh profile up to the empty session's gauge.
  if (only === 'setup') {
    await walkthroughChecks(ctx, ['endpoint', 'key', 'test']);
    throw new Abort('only the set-up checks were asked for');
  }

  await check('agent task crosses compactAt: auto checkpoint, approval, gauge drops', async () => {
    const frame = sidebar.frame;
    await frame.locator('#task').fill(FIRST_TASK);
    await frame.locator('[data-test="run-task"]').click();
    // The streamed transcript shows tool calls while the agent works.
    await frame.locator('.turn.tool-call', { hasText: 'read_file' }).first().waitFor({ timeout: 30_000 });
    const approval = frame.locator('[data-test="approval"]').first();
    await approval.waitFor({ timeout: 60_000 });
    const during = await dividerDuringTask(ctx);
    const proposed = page.locator('.tabs-container .tab', { hasText: 'proposed edit' }).first();
    const diffShown = await proposed.waitFor({ timeout: 10_000 }).then(
      () => 'diff opened',
      () => 'no diff tab',
    );
    await wb.screenshot('04-approval');
    // The approval's notification waits beside the card, and goes once the sidebar answers.
    const notice = wb.toast('the agent asks to');
    await notice.waitFor({ timeout: 10_000 });
    await approval.locator('[data-test="approve"]').click();
    await proposed.waitFor({ state: 'detached', timeout: 10_000 });
    await notice.waitFor({ state: 'hidden', timeout: 10_000 });
    const auto = frame.locator('[data-test="checkpoint"][data-trigger="auto"]').first();
    await auto.waitFor({ timeout: 60_000 });
    const before = Number(await auto.getAttribute('data-before'));
    const after = Number(await auto.getAttribute('data-after'));
    expect(after < before, `auto checkpoint did not shrink the context (${before} → ${after})`);
    await frame.locator('.turn.assistant', { hasText: 'All five parts are read' }).waitFor({ timeout: 60_000 });
    await frame.locator('[data-test="state"]', { hasText: 'idle' }).waitFor({ timeout: 30_000 });
    const budget = await sidebar.budget();
    expect(budget.used < before, `gauge ${budget.used} not below the level before compaction ${before}`);
    const written = path.join(env('WORKSPACE'), 'notes.md');
    expect(fs.existsSync(written), 'notes.md was not written after approval');
    await wb.clearToasts();
    await wb.screenshot('05-sidebar-after-task');
    const peak = await frame
      .locator('[data-test="gauge-peak"]')
      .getAttribute('data-tokens')
      .catch(() => null);
    return `${diffShown}; ${during}; auto checkpoint ${before} → ${after}; gauge ${budget.used} (${budget.accuracy}), peak shown: ${peak ?? 'no'}`;
  });

  await check('second task keeps the first as history', async () => {
    const frame = sidebar.frame;
    await frame.locator('#task').fill('Task: quick question, what is in notes.md?');
    await frame.locator('[data-test="run-task"]').click();
    await frame.locator('.turn.assistant', { hasText: 'notes.md lists the five parts' }).waitFor({ timeout: 30_000 });
    await frame.locator('[data-test="state"]', { hasText: 'idle' }).waitFor({ timeout: 30_000 });
  });

  await compactEnabledCheck(ctx);

  await transcriptKeyboardChecks(ctx);

  await check('new agent task from the palette', async () => {
    await wb.runCommand('ContextKeeper: New Agent Task');
    await wb.answerInput('Task: quick check from the palette', { titleContains: 'New Agent Task' });
    await sidebar.frame.locator('.turn.user', { hasText: 'quick check from the palette' }).waitFor({ timeout: 15_000 });
    await sidebar.frame
      .locator('.turn.assistant', { hasText: 'notes.md lists the five parts' })
      .last()
      .waitFor({ timeout: 30_000 });
    await sidebar.frame.locator('[data-test="state"]', { hasText: 'idle' }).waitFor({ timeout: 30_000 });
  });

  await keptDuringTaskChecks(ctx);

  await recallCheck(ctx);

  await check('pin a message from the palette', async () => {
    await wb.runCommand('ContextKeeper: Pin Message');
    const row = page.locator('.quick-input-list .monaco-list-row', { hasText: 'user' }).first();
    await row.waitFor({ timeout: 10_000 });
    await row.click();
    return wb.waitToast('message pinned');
  });

  /** Runs a task the scripted model answers slowly, and waits until its reply streams. */
  const startSlowTask = async (text) => {
    await sidebar.frame.locator('#task').fill(text);
    await sidebar.frame.locator('[data-test="run-task"]').click();
    await sidebar.frame.locator('.turn.assistant.streaming', { hasText: 'word3' }).waitFor({ timeout: 30_000 });
  };

  await check('cancel a streaming task', async () => {
    const frame = sidebar.frame;
    await startSlowTask('Task: slow answer please');
    await frame.locator('[data-test="cancel"]').click();
    await frame.locator('[data-test="state"]', { hasText: 'idle' }).waitFor({ timeout: 15_000 });
    const last = await frame.locator('.turn.assistant').last().innerText();
    expect(!last.includes('word59'), 'the answer streamed to the end despite Cancel');
    await frame
      .locator('.turn.assistant')
      .last()
      .locator('[data-test="interrupted-badge"]')
      .waitFor({ timeout: 10_000 });
    await wb.waitToast('task cancelled', 10_000);
    await wb.clearToasts();
    return `stopped at "…${last.trim().slice(-24)}"`;
  });

  await check('a cancel from the command palette is announced to screen readers as a cancel', async () => {
    const frame = sidebar.frame;
    await startSlowTask('Task: slow answer, cancelled from the palette');
    await wb.runCommand('ContextKeeper: Cancel');
    await frame.locator('[data-test="state"]', { hasText: 'idle' }).waitFor({ timeout: 15_000 });
    await frame.locator('#status', { hasText: /./ }).waitFor({ state: 'attached', timeout: 5_000 });
    await page.waitForTimeout(300);
    const said = (await frame.locator('#status').textContent()) ?? '';
    expect(/cancelled/.test(said), `the status line says "${said}" after a cancel`);
    await wb.clearToasts();
    return said;
  });

  await check('deleting the session while a task runs asks to cancel it first; the state stays true', async () => {
    const frame = sidebar.frame;
    await startSlowTask('Task: slow answer once more');
    await frame.locator('[data-test="delete-session"]').click();
    const dialog = page.locator('.monaco-dialog-box', { hasText: 'The agent is working' });
    await dialog.waitFor({ timeout: 10_000 });
    const question = await dialog.innerText();
    expect(/Cancel Task and Delete/.test(question), `the question offers no Cancel Task and Delete: ${question}`);
    const during = await frame.locator('[data-test="state"]').innerText();
    expect(!/idle/.test(during), `the sidebar says "${during}" while the task runs`);
    await wb.screenshot('05c-delete-during-task');
    // Keep the session (the checks after this use it): dismiss, the task goes on, then cancel it.
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden', timeout: 10_000 });
    const after = await frame.locator('[data-test="state"]').innerText();
    expect(!/idle/.test(after), `the sidebar says "${after}" after the question, with the task running`);
    await frame.locator('[data-test="cancel"]').click();
    await frame.locator('[data-test="state"]', { hasText: 'idle' }).waitFor({ timeout: 15_000 });
    return `asked "${question.split('\n')[0]}"; state ${during.trim()} → ${after.trim()} → idle after Cancel`;
  });

  await check('a failing model call shows the error once and keeps the session', async () => {
    const frame = sidebar.frame;
    const before = await sidebar.budget();
    await frame.locator('#task').fill('Task: fail on purpose');
    await frame.locator('[data-test="run-task"]').click();
    const toast = await wb.waitToast('the agent stopped', 30_000);
    await frame.locator('.card.error').waitFor({ timeout: 15_000 });
    const after = await sidebar.budget();
    expect(after.used >= before.used, 'the session lost messages after a failed call');
    await wb.screenshot('05-error');
    await wb.clearToasts();
    return toast;
  });

  await retryCheck(ctx);

  await ollamaModelToastCheck(ctx);

  await keybindingChecks(ctx);

  await checkpointChecks(ctx);

  await compareScrollChecks(ctx);

  await previewApplyCheck(ctx);

  await reattachedDuringTaskCheck(ctx);

  await checkpointKeyboardChecks(ctx);

  await check('export transcript', async () => {
    await wb.runCommand('ContextKeeper: Export Transcript');
    // The save dialog proposes context-keeper-<session>.json in the home folder, outside the workspace: accept it.
    const proposed = await wb.answerFileDialog(undefined, { accept: true });
    expect(/context-keeper-.+\.json$/.test(proposed), `unexpected proposed file ${proposed}`);
    expect(!proposed.startsWith(env('WORKSPACE')), `the export is proposed inside the workspace: ${proposed}`);
    await wb.waitToast('exported');
    const toast = wb.toast('exported');
    for (const action of ['Open', 'Reveal'])
      expect((await toast.getByRole('button', { name: action }).count()) > 0, `no ${action} on the export toast`);
    const exported = JSON.parse(fs.readFileSync(proposed, 'utf8'));
    expect(exported.format === 'context-keeper/transcript', `unexpected format ${exported.format}`);
    expect(exported.checkpoints.length > 0, 'no checkpoints in the export');
    await wb.clearToasts();
    return `${exported.entries.length} entries, ${exported.checkpoints.length} checkpoints`;
  });

  let imported;
  /** The imported recording's session (shown again for the reload check at the end). */
  let importedSession;
  await importChecks(ctx);
  await check('switch to the imported session', async () => {
    const select = sidebar.frame.locator('[data-test="session-select"]');
    const value = await select
      .locator('option', { hasText: path.basename(env('TRANSCRIPT')) })
      .first()
      .getAttribute('value');
    // A Compact focus typed for this session is not offered for the other one.
    await sidebar.frame.locator('[data-test="compact-focus"]').fill('the parser fix');
    await select.selectOption(value);
    importedSession = { id: value, file: path.basename(env('TRANSCRIPT')) };
    await sidebar.frame.locator('[data-test="read-only"]').waitFor({ timeout: 30_000 });
    // The session shown before may be another import (read-only too): wait for this one's source line.
    await sidebar.frame
      .locator('[data-test="source"]', { hasText: path.basename(env('TRANSCRIPT')) })
      .waitFor({ timeout: 30_000 });
    const focus = await sidebar.frame.locator('[data-test="compact-focus"]').inputValue();
    expect(focus === '', `the focus typed for the working session is offered for the import: "${focus}"`);
    imported = await sidebar.waitBudget(
      (b) => b.used > 0 && b.accuracy === 'estimated',
      'no estimated gauge for the import',
    );
    const source = await sidebar.frame.locator('[data-test="source"]').innerText();
    expect(source.includes(path.basename(env('TRANSCRIPT'))), `source line "${source}" does not name the file`);
    return `gauge ${imported.used} tokens`;
  });

  await sessionSelectChecks(ctx);
  await refusedSwitchCheck(ctx);

  await check('compact the imported transcript with no model', async () => {
    expect(imported, 'needs the imported transcript');
    await sidebar.frame.locator('[data-test="compact"]').click();
    const toast = await wb.waitToast(COMPACTED_TOAST, 60_000);
    const row = sidebar.frame.locator('[data-test="checkpoint"][data-trigger="manual"]').first();
    await row.waitFor({ timeout: 15_000 });
    const text = await row.innerText();
    expect(/extractive/.test(text), `checkpoint does not name the extractive summarizer: ${text}`);
    const budget = await sidebar.waitBudget((b) => b.used < imported.used, 'gauge did not drop');
    // The peak before the compaction is a mark at its place on the bar, not a fill from the level to it.
    const peak = sidebar.frame.locator('[data-test="gauge-peak"]');
    await peak.waitFor({ timeout: 10_000 });
    const [mark, bar] = await Promise.all([peak.boundingBox(), sidebar.frame.locator('.gauge-bar').boundingBox()]);
    expect(mark && bar && mark.width <= 4, `the peak mark is ${mark?.width} px wide`);
    const at = (mark.x - bar.x) / bar.width;
    const expected = Math.min(1, Number(await peak.getAttribute('data-tokens')) / 8000);
    expect(
      Math.abs(at - expected) < 0.05,
      `the peak mark stands at ${at.toFixed(2)} of the bar, not at ${expected.toFixed(2)}`,
    );
    await wb.clearToasts();
    return `${toast}; ${imported.used} → ${budget.used}; peak mark at ${(at * 100).toFixed(0)}% of the bar`;
  });

  await longSessionChecks(ctx);

  await walkthroughChecks(ctx);

  await wb.runCommand('View: Close All Editors').catch(() => {});
  for (const [theme, kind, tag] of [
    ['Light Modern', 'vs', '10-light'],
    ['Dark Modern', 'vs-dark', '11-dark'],
    ['Dark High Contrast', 'hc-black', '11b-high-contrast'],
  ]) {
    await themeShots(ctx, theme, kind, tag);
  }

  const shared = process.env.SHARED_TRANSCRIPT && path.resolve(process.env.SHARED_TRANSCRIPT);
  if (shared && fs.existsSync(shared)) {
    await check('import a recorded session from the shared transcripts', async () => {
      await wb.runCommand('ContextKeeper: Import Transcript');
      await wb.answerFileDialog(shared);
      const toast = await wb.waitToast('imported', 60_000);
      const budget = await sidebar.waitBudget((b) => b.used > imported.used, 'gauge did not show the recorded session');
      // Measured against the recording's own model's window when the model table knows it, so it is
      // over budget only against that window's prompt budget.
      const promptBudget = Number(await sidebar.frame.locator('.gauge-bar').getAttribute('aria-valuemax'));
      if (budget.used > promptBudget)
        await sidebar.frame.locator('[data-test="over-budget"]').waitFor({ timeout: 5_000 });
      const window = await sidebar.frame.locator('[data-test="gauge-window"]').innerText();
      await wb.clearToasts();
      await wb.screenshot('12-sidebar-imported-recorded');
      return `${toast}; gauge ${budget.used} of ${promptBudget} prompt tokens, ${window}, model ${budget.model}`;
    });
  }

  await watchChecks(ctx);

  await check('webview content security policy holds', async () => {
    const violations = consoleLines.filter((line) =>
      /Refused to (load|apply|execute|connect)|Content Security Policy/i.test(line),
    );
    expect(violations.length === 0, `CSP violations:\n${violations.slice(0, 5).join('\n')}`);
  });

  await check('show log', async () => {
    await wb.runCommand('ContextKeeper: Show Log');
    await page.locator('.part.panel .view-lines', { hasText: '[info]' }).first().waitFor({ timeout: 15_000 });
    await wb.screenshot('13-log');
  });

  // Last, since the reload restarts the workbench: the imported recording compacted above shown again
  // (the watched agent was active after it), its checkpoint and compare kept across Reload Window.
  if (importedSession) await reloadChecks(ctx, importedSession);
} catch (error) {
  if (!(error instanceof Abort)) {
    results.push({ name: 'driver', ok: false, error: error?.message ?? String(error) });
    log(`driver error: ${error?.stack ?? error}`);
    await wb.screenshot('fail-driver').catch(() => {});
  }
} finally {
  fs.writeFileSync(path.join(outDir, 'browser-console.log'), `${consoleLines.join('\n')}\n`);
  await close();
}

process.exit(reportResults(outDir, results, 'e2e'));
