// End-to-end checks of the ContextKeeper extension in a real VS Code (code-server) workbench.
// Each check is named, runs in order, and is reported as PASS or FAIL; a failed check takes a
// screenshot and the run goes on where later checks do not depend on it. Exit code 1 on any failure.
//
// Environment (set by test/e2e/run.sh):
//   CS_URL          workbench URL with ?folder=
//   OUT_DIR         screenshots and browser console log
//   PLAYWRIGHT_DIR  folder with node_modules/playwright-core
//   USER_SETTINGS   path of the user settings.json (the theme checks edit it)
//   TRANSCRIPT      a transcript file to import
//   API_KEY_PROBE   a key to set and clear (run.sh then checks it was never written to disk)
//   MODEL_SERVER    base URL of the scripted model server, when one runs (agent task checks)
import fs from 'node:fs';
import path from 'node:path';
import { loadPlaywright, Workbench } from './workbench.mjs';
import { EXPECTED_COMMANDS, Sidebar } from './sidebar.mjs';

const env = (name) => {
  const value = process.env[name];
  if (!value) throw new Error(`missing environment variable ${name}`);
  return value;
};
const outDir = env('OUT_DIR');
fs.mkdirSync(outDir, { recursive: true });
const t0 = Date.now();
const log = (message) => console.log(`[e2e +${((Date.now() - t0) / 1000).toFixed(1)}s] ${message}`);

const { chromium } = loadPlaywright(env('PLAYWRIGHT_DIR'));
const profile = fs.mkdtempSync(path.join(outDir, '..', 'chrome-profile-'));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  viewport: { width: 1400, height: 900 },
});
const page = context.pages()[0] ?? (await context.newPage());
const consoleLines = [];
page.on('console', (m) => consoleLines.push(`[${m.type()}] ${m.text()}`));
page.on('pageerror', (e) => consoleLines.push(`[pageerror] ${e.message}`));
const wb = new Workbench(page, outDir, log);
const sidebar = new Sidebar(wb);

const results = [];
class Abort extends Error {}
/** Runs one named check; `critical` stops the run when it fails. */
async function check(name, fn, { critical = false } = {}) {
  const started = Date.now();
  try {
    const detail = await fn();
    results.push({ name, ok: true });
    log(`PASS ${name}${detail ? ` — ${detail}` : ''} (${((Date.now() - started) / 1000).toFixed(1)}s)`);
    return true;
  } catch (error) {
    results.push({ name, ok: false, error: error?.message ?? String(error) });
    log(`FAIL ${name}: ${error?.stack ?? error}`);
    await wb.screenshot(`fail-${name.replace(/[^a-z0-9]+/gi, '-').toLowerCase()}`).catch(() => {});
    await wb.closeQuickInput().catch(() => {});
    if (critical) throw new Abort(name);
    return false;
  }
}
const expect = (condition, message) => {
  if (!condition) throw new Error(message);
};

/** Rewrites user settings (VS Code applies them live). */
function updateSettings(patch) {
  const file = env('USER_SETTINGS');
  const current = JSON.parse(fs.readFileSync(file, 'utf8'));
  fs.writeFileSync(file, JSON.stringify({ ...current, ...patch }, null, 2));
}

try {
  await check('workbench loads', async () => {
    await wb.open(env('CS_URL'));
    return 'activity bar and status bar rendered';
  }, { critical: true });

  await check('activity bar shows ContextKeeper', async () => {
    await wb.activityItem('ContextKeeper').waitFor({ timeout: 60_000 });
    await wb.screenshot('01-workbench');
  }, { critical: true });

  await check('palette lists every command', async () => {
    const missing = [];
    await wb.palette('ContextKeeper: ', EXPECTED_COMMANDS[0]);
    const listed = new Set(await wb.paletteLabels());
    for (const title of EXPECTED_COMMANDS) {
      if (listed.has(title)) continue;
      await wb.palette(title);
      const row = wb.paletteRow(title);
      if (!(await row.waitFor({ timeout: 3_000 }).then(() => true, () => false))) missing.push(title);
    }
    await wb.screenshot('02-palette');
    await wb.closeQuickInput();
    expect(missing.length === 0, `not in the palette: ${missing.join(', ')}`);
    return `${EXPECTED_COMMANDS.length} commands`;
  });

  await check('sidebar shows the gauge of an empty session', async () => {
    await wb.activityItem('ContextKeeper').click();
    const budget = await sidebar.budget();
    expect(budget.used === 0, `expected 0 tokens used, got ${budget.used}`);
    expect(budget.model.length > 0, 'no model name on the gauge');
    await wb.screenshot('03-sidebar-empty');
    return `0 / ${budget.text} (${budget.accuracy}, ${budget.model})`;
  }, { critical: true });

  await check('status bar meter', async () => {
    const item = page.locator('.part.statusbar [aria-label^="ContextKeeper:"]').first();
    await item.waitFor({ timeout: 10_000 });
    return (await item.getAttribute('aria-label')) ?? '';
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

  await check('clear API key', async () => {
    await wb.runCommand('ContextKeeper: Clear API Key');
    await wb.waitToast('API key cleared');
    await sidebar.frame.locator('[data-test="set-key"]').waitFor({ timeout: 10_000 });
  });

  let imported;
  await check('import transcript shows its gauge', async () => {
    const file = env('TRANSCRIPT');
    await wb.runCommand('ContextKeeper: Import Transcript');
    // code-server uses VS Code's simple file dialog: a quick input that takes a path.
    await wb.quickInputBox.waitFor({ state: 'visible', timeout: 15_000 });
    await wb.quickInputBox.fill(file);
    await page.waitForTimeout(300);
    await page.keyboard.press('Enter');
    const toast = await wb.waitToast('imported');
    imported = await sidebar.waitBudget((b) => b.used > 0, 'gauge still at 0 after the import');
    const source = await sidebar.frame.locator('[data-test="source"]').innerText();
    expect(source.includes(path.basename(file)), `source line "${source}" does not name the file`);
    await wb.clearToasts();
    await wb.screenshot('04-sidebar-imported');
    return `${toast}; gauge ${imported.used} tokens`;
  });

  let compacted;
  await check('compact conversation from the palette with focus text', async () => {
    expect(imported, 'needs the imported transcript');
    const before = await sidebar.checkpointCount();
    await wb.runCommand('ContextKeeper: Compact Conversation');
    await wb.answerInput('the failing test and its fix', { titleContains: 'Compact Conversation' });
    const progress = await wb.toast('compacting').waitFor({ timeout: 3_000 }).then(() => 'progress shown', () => 'progress too quick to see');
    const toast = await wb.waitToast('tokens)', 60_000);
    compacted = await sidebar.waitBudget((b) => b.used < imported.used, 'gauge did not drop after compaction');
    const after = await sidebar.checkpointCount();
    expect(after === before + 1, `expected ${before + 1} checkpoints, found ${after}`);
    const focus = await sidebar.frame.locator('[data-test="checkpoint"]').first().innerText();
    expect(focus.includes('the failing test'), 'the newest checkpoint does not show the focus text');
    await wb.clearToasts();
    await wb.screenshot('05-sidebar-compacted');
    return `${progress}; ${toast}; ${imported.used} → ${compacted.used} tokens`;
  });

  await check('open checkpoint document', async () => {
    expect(compacted, 'needs a checkpoint');
    await sidebar.frame.locator('[data-test="checkpoint"] [data-test="open-checkpoint"]').first().click();
    const tab = page.locator('.tabs-container .tab', { hasText: 'checkpoint.md' }).first();
    await tab.waitFor({ timeout: 15_000 });
    await page.locator('.editor-instance .view-lines', { hasText: 'Checkpoint' }).first().waitFor({ timeout: 15_000 });
    await wb.screenshot('06-checkpoint-document');
  });

  await check('restore checkpoint raises the gauge', async () => {
    expect(compacted, 'needs a checkpoint');
    await sidebar.frame.locator('[data-test="checkpoint"] [data-test="restore-checkpoint"]').first().click();
    await wb.waitToast('restored');
    const restored = await sidebar.waitBudget((b) => b.used > compacted.used, 'gauge did not rise after restore');
    await sidebar.frame.locator('[data-test="checkpoint"].restored').first().waitFor({ timeout: 10_000 });
    await wb.clearToasts();
    return `${compacted.used} → ${restored.used} tokens`;
  });

  for (const [theme, kind, shot] of [
    ['Default Light Modern', 'vs', '07-sidebar-light'],
    ['Default Dark Modern', 'vs-dark', '08-sidebar-dark'],
  ]) {
    await check(`sidebar in ${theme}`, async () => {
      updateSettings({ 'workbench.colorTheme': theme });
      await page.waitForFunction((k) => document.querySelector('.monaco-workbench')?.classList.contains(k), kind, { timeout: 20_000 });
      await wb.activityItem('ContextKeeper').waitFor();
      await sidebar.budget();
      await page.waitForTimeout(500);
      await wb.screenshot(shot);
      return kind;
    });
  }

  await check('show log', async () => {
    await wb.runCommand('ContextKeeper: Show Log');
    await page.locator('.part.panel .view-lines', { hasText: 'activated' }).first().waitFor({ timeout: 15_000 });
    await wb.screenshot('09-log');
  });
} catch (error) {
  if (!(error instanceof Abort)) {
    results.push({ name: 'driver', ok: false, error: error?.message ?? String(error) });
    log(`driver error: ${error?.stack ?? error}`);
    await wb.screenshot('fail-driver').catch(() => {});
  }
} finally {
  fs.writeFileSync(path.join(outDir, 'browser-console.log'), `${consoleLines.join('\n')}\n`);
  await context.close();
  fs.rmSync(profile, { recursive: true, force: true });
}

const failed = results.filter((r) => !r.ok);
fs.writeFileSync(path.join(outDir, 'results.json'), `${JSON.stringify(results, null, 2)}\n`);
for (const r of failed) console.log(`  failed: ${r.name}: ${r.error}`);
console.log(`e2e: ${results.length - failed.length} passed, ${failed.length} failed`);
process.exit(failed.length ? 1 : 0);
