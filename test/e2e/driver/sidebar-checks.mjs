// Checks of the sidebar as people use it all day: onboarding on a fresh profile, the compaction
// divider during an automatic compaction, sessions (import beside the working session), the summary
// preview applied exactly as edited, and responsiveness on a long imported session while a reply
// streams (clicks before the next delta, focus and an opened tool result surviving 100 deltas).
// Each function takes the driver's context: { check, expect, wb, sidebar, page, updateSettings, env, log }.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * The Context view's inner frame as a playwright Frame (for evaluate). The Watched Agent view is a second
 * webview, so the frame is the one holding the task box's Run button; the first one when none does yet.
 */
export async function webviewFrame(page) {
  const frames = [];
  for (const outerHandle of await page.locator('iframe.webview.ready').elementHandles()) {
    const outer = await outerHandle.contentFrame();
    const inner = await outer
      ?.locator('#active-frame')
      .elementHandle()
      .catch(() => null);
    const frame = await inner?.contentFrame();
    if (!frame) continue;
    if (await frame.locator('[data-test="run-task"]').count()) return frame;
    frames.push(frame);
  }
  if (frames.length) return frames[0];
  throw new Error('no webview is ready');
}

/** The webview's timing figures (see `stats` in src/webview/main.ts). */
export async function webviewStats(page) {
  const frame = await webviewFrame(page);
  return frame.evaluate(() => JSON.parse(document.getElementById('ck-stats')?.dataset.json ?? '{}'));
}

const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(s.length * q))] : NaN;
};

/** The "Get Started" view with its welcome content. */
function welcomeView(page) {
  return page
    .locator('.pane', { has: page.locator('.pane-header', { hasText: 'Get Started' }) })
    .locator('.welcome-view-content')
    .first();
}

// The endpoint is a user-only setting (a repository cannot choose where the key goes): run.sh starts
// without one, and the endpoint is chosen through the extension's own picker, as a user would.
export async function welcomeChecks({ check, expect, wb, page, sidebar }) {
  await check('welcome view on a fresh profile (no endpoint, no key)', async () => {
    await wb.activityItem('ContextKeeper').click();
    const welcome = welcomeView(page);
    await welcome.waitFor({ timeout: 30_000 });
    const text = await welcome.innerText();
    for (const action of ['Choose Endpoint', 'Set API Key', 'Test Connection'])
      expect(text.includes(action), `welcome view lacks "${action}": ${text}`);
    await wb.screenshot('00-welcome');
    return text.split('\n')[0];
  });
  // The endpoint is a user-only setting (a workspace cannot set it), so once chosen the welcome view
  // cannot come back in this host: it is shot in each theme now, on the fresh profile.
  await check('welcome view in light, dark and high-contrast themes', async () => {
    const shots = [];
    for (const [theme, kind, tag] of THEMES) {
      await setTheme({ wb, page }, theme, kind);
      await welcomeView(page).waitFor({ timeout: 10_000 });
      await page.waitForTimeout(300);
      await wb.screenshot(`00-welcome-${tag}`);
      shots.push(kind);
    }
    await setTheme({ wb, page }, 'Dark Modern', 'vs-dark');
    return shots.join(', ');
  });
  await check(
    'without an endpoint, New Agent Task says so before taking a task (palette and sidebar Run)',
    async () => {
      const lead = 'no endpoint is set up yet';
      await wb.runCommand('ContextKeeper: New Agent Task');
      const shown = await wb.waitToast(lead, 15_000);
      for (const action of ['Choose Endpoint', 'Set API Key']) {
        expect(
          (await wb.toast(lead).locator('.monaco-button', { hasText: action }).count()) > 0,
          `the notice offers no "${action}"`,
        );
      }
      expect(
        !(await page.locator('.quick-input-widget .quick-input-title', { hasText: 'New Agent Task' }).isVisible()),
        'the task prompt opened although no endpoint is set up',
      );
      await wb.clearToasts();
      const task = 'Task: sent before any endpoint';
      const box = sidebar.frame.locator('#task');
      await box.fill(task);
      await sidebar.frame.locator('[data-test="run-task"]').click();
      await wb.waitToast(lead, 15_000);
      // The box Run cleared gets the task back; the transcript gets no request.
      for (let i = 0; i < 50 && (await box.inputValue()) !== task; i++) await page.waitForTimeout(100);
      expect((await box.inputValue()) === task, 'the refused task is not back in the task box');
      expect((await sidebar.frame.locator('.turn.user').count()) === 0, 'the refused task reached the transcript');
      await box.fill('');
      await wb.clearToasts();
      return shown;
    },
  );
}

/** Theme name, workbench class and screenshot tag of the three themes every view is shot in. */
export const THEMES = [
  ['Light Modern', 'vs', 'light'],
  ['Dark Modern', 'vs-dark', 'dark'],
  ['Dark High Contrast', 'hc-black', 'high-contrast'],
];

/** Switches the colour theme through the palette and waits for the workbench to take it. */
export async function setTheme({ wb, page }, theme, kind) {
  await wb.runCommand('Preferences: Color Theme');
  await wb.quickInputBox.fill(theme);
  await wb.paletteRow(theme).waitFor({ timeout: 10_000 });
  await page.keyboard.press('Enter');
  await page.waitForFunction((k) => document.querySelector('.monaco-workbench')?.classList.contains(k), kind, {
    timeout: 20_000,
  });
  await page.keyboard.press('Escape');
}

/** Chooses the scripted model server with Choose Endpoint (written to user settings); the welcome view goes away. */
export async function configuredCheck({ check, wb, page, env }) {
  await check('welcome view hides once an endpoint is chosen', async () => {
    await wb.runCommand('ContextKeeper: Choose Endpoint');
    await wb.paletteRow('Other OpenAI-compatible URL').waitFor({ timeout: 15_000 });
    await wb.paletteRow('Other OpenAI-compatible URL').click();
    await wb.answerInput(env('MODEL_SERVER'), { titleContains: 'Base URL' });
    // The server lists its models: keep the configured one.
    const modelPick = page.locator('.quick-input-widget .quick-input-title', { hasText: 'Choose the Model' });
    const notice = wb.toast('now sends its requests to');
    // The model list comes after the server answered (seconds on a busy machine), or not at all.
    await Promise.race([modelPick.waitFor({ timeout: 30_000 }), notice.waitFor({ timeout: 30_000 })]).catch(() => {});
    if (await modelPick.isVisible()) await wb.closeQuickInput();
    // The choice is confirmed, naming the endpoint.
    await notice.waitFor({ timeout: 15_000 });
    const confirmed = await notice.innerText();
    if (!confirmed.includes(env('MODEL_SERVER')))
      throw new Error(`the confirmation does not name the endpoint: ${confirmed}`);
    await page
      .locator('.pane-header', { hasText: 'Get Started' })
      .first()
      .waitFor({ state: 'detached', timeout: 20_000 });
    await wb.clearToasts();
    // Leave the side bar closed, as the next checks expect to open it with the activity bar.
    await wb.runCommand('View: Close Primary Side Bar');
  });
}

/** While the approval is pending (the task still runs), the divider of the automatic compaction is there. */
export async function dividerDuringTask({ expect, wb, sidebar }) {
  const divider = sidebar.frame.locator('[data-test="compaction-divider"][data-trigger="auto"]').first();
  await divider.waitFor({ timeout: 30_000 });
  const state = await sidebar.frame.locator('[data-test="state"]').innerText();
  expect(!/idle/.test(state), `the task already ended (${state}) when the divider was checked`);
  const text = await divider.locator('[data-test="divider-text"]').innerText();
  expect(
    /^Compacted automatically: the context passed the [\d.]+k?-token trigger \(\d+% of (?:budget|the [\d.]+k? prompt budget \(the [\d.]+k? window less [\d.]+k? reserved for the reply\), \d+% of the window)\) and went from [\d.]+k? to [\d.]+k? tokens/.test(
      text,
    ),
    `divider text: ${text}`,
  );
  const dimmed = await sidebar.frame.locator('.turn.compacted').count();
  expect(dimmed > 0, 'no replaced line is dimmed');
  await divider.locator('summary').click();
  await divider.locator('[data-test="divider-summary"]').waitFor({ timeout: 10_000 });
  const replaced = await divider.locator('[data-test="divider-replaced"] li').count();
  expect(replaced > 0, 'the opened divider lists no replaced message');
  await wb.screenshot('04b-divider-during-task');
  return `"${text}" while ${state.trim()}; ${dimmed} lines dimmed, ${replaced} replaced listed`;
}

export async function previewApplyCheck({ check, expect, wb, sidebar, page, updateSettings }) {
  await check(
    'summary preview in the sidebar shows every summary Apply writes in boxes that fit their text; Apply writes them as edited, marked so',
    async () => {
      updateSettings({ 'contextKeeper.previewSummary': true });
      await page.waitForTimeout(1_000);
      try {
        return await previewApply({ expect, wb, sidebar, page });
      } finally {
        // Never leave previews on for the checks after this one, whatever happened here.
        updateSettings({ 'contextKeeper.previewSummary': false });
      }
    },
  );
}

async function previewApply({ expect, wb, sidebar, page }) {
  const frame = sidebar.frame;
  // A task of several steps after the earlier ones: the compaction summarises the earlier history
  // and this task's older steps, two summaries.
  await frame.locator('#task').fill('Task: read only the design notes once more');
  await frame.locator('[data-test="run-task"]').click();
  // Messages restored by the checks before are kept out of automatic compaction: when the task
  // outgrows the window, the extension asks to compact them again, and the answer is yes.
  const ask = page.locator('.monaco-dialog-box', { hasText: 'Compact them again' });
  const idle = frame.locator('[data-test="state"]', { hasText: 'idle' });
  // The state reads idle until the task starts: wait for it to leave idle before waiting for its end.
  await frame
    .locator('[data-test="state"]')
    .filter({ hasNotText: 'idle' })
    .waitFor({ timeout: 10_000 })
    .catch(() => {});
  for (const deadline = Date.now() + 120_000; ;) {
    expect(Date.now() < deadline, 'the task did not end within 120 s');
    if (await ask.isVisible()) await ask.getByRole('button', { name: 'Compact', exact: true }).click();
    if (await idle.isVisible()) break;
    await page.waitForTimeout(500);
  }
  await wb.clearToasts();
  const before = await sidebar.checkpointCount();
  await frame.locator('[data-test="compact"]').click();
  const card = frame.locator('[data-test="preview"]');
  await card.waitFor({ timeout: 30_000 });
  const boxes = card.locator('[data-test="preview-text"]');
  const count = await boxes.count();
  // Two spans when the restored messages are still there; one when the task's agreed compaction
  // summarised them already. Either way every summary shown is what Apply writes.
  expect(count >= 1, 'the preview shows no summary');
  const proposed = [];
  for (let k = 0; k < count; k++) proposed.push(await boxes.nth(k).inputValue());
  const meta = await card.locator('[data-test="preview-meta"]').innerText();
  const last = count - 1;
  const edited = `EDITED BY THE REVIEWER\n\n${proposed[last].split('\n').slice(0, 3).join('\n')}\n\nKeep the notes.md format.`;
  // Each box grows with its text: the whole summary shows without an inner scrollbar (up to most of the view's height).
  for (let k = 0; k < count; k++) {
    const fit = await boxes.nth(k).evaluate((b) => ({
      fits: b.scrollHeight <= b.clientHeight + 2,
      tall: b.clientHeight >= 0.75 * innerHeight,
      height: b.clientHeight,
      needed: b.scrollHeight,
    }));
    expect(fit.fits || fit.tall, `summary box ${k + 1} is ${fit.height} px for ${fit.needed} px of text`);
  }
  await boxes.nth(last).fill(edited);
  await wb.screenshot('08-summary-preview');
  await card.locator('[data-test="apply-preview"]').click();
  await frame.locator('[data-test="checkpoint"]').nth(before).waitFor({ timeout: 30_000 });
  await card.waitFor({ state: 'detached', timeout: 10_000 });
  await wb.toast('proposed summary').waitFor({ state: 'hidden', timeout: 10_000 });
  const divider = frame.locator('[data-test="compaction-divider"][data-trigger="manual"]').last();
  // The summary edited by hand is marked so on its divider and in the history.
  await divider.locator('[data-test="divider-edited"]').waitFor({ timeout: 10_000 });
  await frame.locator('[data-test="checkpoint-edited"]').first().waitFor({ timeout: 10_000 });
  await divider.locator('summary').click();
  const summary = await divider.locator('[data-test="divider-summary"]').innerText({ timeout: 10_000 });
  // The divider joins the summaries of one run in order: exactly what the preview showed, as edited.
  const expected = [...proposed.slice(0, last), edited].map((t) => t.trim());
  const applied = summary.split(/\n\s*---\s*\n/).map((t) => t.trim());
  expect(
    JSON.stringify(applied) === JSON.stringify(expected),
    `applied summaries differ from the preview:\n${summary.slice(0, 400)}\n--- expected ---\n${expected.join('\n---\n').slice(0, 400)}`,
  );
  await wb.clearToasts();
  return `${count} summaries previewed (${meta.replace(/\s+/g, ' ').slice(0, 80)}…), applied as shown with the last one edited and marked so`;
}

export async function importChecks({ check, expect, wb, sidebar, env, page }) {
  let first;
  await check('import opens a second session; the working session stays intact', async () => {
    const select = sidebar.frame.locator('[data-test="session-select"]');
    const lines = async () =>
      (await sidebar.frame.locator('[data-test="item"]').count()) +
      Number(
        (
          await sidebar.frame
            .locator('[data-test="load-earlier"]')
            .innerText()
            .catch(() => '(0')
        )
          .match(/\(([\d,]+)/)?.[1]
          ?.replace(/,/g, '') ?? 0,
      );
    first = {
      id: await select.inputValue(),
      budget: await sidebar.budget(),
      checkpoints: await sidebar.checkpointCount(),
      lines: await lines(),
    };
    const file = env('TRANSCRIPT');
    await wb.runCommand('ContextKeeper: Import Transcript');
    await wb.answerFileDialog(file);
    await wb.waitToast('imported');
    await sidebar.frame.locator('[data-test="read-only"]').waitFor({ timeout: 30_000 });
    // A recording takes no task: Run is off and says why, and so does the task box.
    const run = sidebar.frame.locator('[data-test="run-task"]');
    expect(await run.isDisabled(), 'Run is enabled in a recording');
    expect(
      /read-only.*Continue in a new task/.test((await run.getAttribute('title')) ?? ''),
      `Run's title: "${await run.getAttribute('title')}"`,
    );
    expect(
      /read-only/.test((await sidebar.frame.locator('#task').getAttribute('placeholder')) ?? ''),
      'the task box does not say the recording is read-only',
    );
    const imported = await sidebar.waitBudget(
      (b) => b.accuracy === 'estimated' && b.used > 0,
      'no gauge for the import',
    );
    const options = await sidebar.frame.locator('[data-test="session-select"] option').allInnerTexts();
    expect(options.length >= 2, `session list: ${options.join(' | ')}`);
    expect((await select.inputValue()) !== first.id, 'the import did not open as its own session');
    await wb.screenshot('09-sidebar-imported');
    // Back to the working session: same messages, same checkpoints, the gauge within a rounding of where it was.
    await select.selectOption(first.id);
    await sidebar.frame.locator('[data-test="read-only"]').waitFor({ state: 'detached', timeout: 30_000 });
    // The calibration on the provider's reported usage is saved with the session: the session opened
    // again shows the same figure on the same basis ("exact" stays "exact").
    const back = await sidebar.waitBudget(
      (b) => b.accuracy === first.budget.accuracy && Math.abs(b.used - first.budget.used) <= first.budget.used * 0.05,
      `working session gauge changed (${first.budget.used} ${first.budget.accuracy})`,
    );
    const checkpoints = await sidebar.checkpointCount();
    expect(
      checkpoints === first.checkpoints,
      `working session had ${first.checkpoints} checkpoints, now ${checkpoints}`,
    );
    const now = await lines();
    expect(now === first.lines, `working session had ${first.lines} transcript lines, now ${now}`);
    await wb.clearToasts();
    return `${options.length} sessions; import ${imported.used} tokens; working session ${first.budget.used} (${first.budget.accuracy}) → ${back.used} (${back.accuracy}) tokens, ${checkpoints} checkpoints and ${now} lines kept`;
  });
  await recordedWindowChecks({ check, expect, wb, sidebar, page });
}

/** An Aider chat history naming `model`, with `turns` requests and replies of `words` words each. */
function aiderHistory(model, turns, words) {
  const vocabulary = [
    'parser',
    'token',
    'budget',
    'window',
    'module',
    'config',
    'error',
    'request',
    'summary',
    'checkpoint',
  ];
  const text = (seed) =>
    Array.from({ length: words }, (_, i) => vocabulary[(seed * 7 + i * 3) % vocabulary.length]).join(' ');
  const lines = ['# aider chat started at 2026-02-24 16:53:06', '', `> Model: ${model} with diff edit format  `, ''];
  for (let t = 0; t < turns; t++)
    lines.push(
      `#### request ${t}: ${text(t).slice(0, 60)}  `,
      '',
      `Reply ${t}: ${text(t + 1)}`,
      '',
      '> Tokens: 1k sent, 100 received.  ',
      '',
    );
  return `${lines.join('\n')}\n`;
}

/**
 * An imported Aider recording is measured against its own model's window (gpt-4.1: 1,047,576 tokens,
 * from the model table), not the configured 8k one; a recording of an unknown model falls back to the
 * configured window, says so, and being far over that budget shows the overflow segment and label.
 */
export async function recordedWindowChecks({ check, expect, wb, sidebar, page }) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ck-aider-'));
  const importAider = async (name, text) => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, text);
    await wb.runCommand('ContextKeeper: Import Transcript');
    await wb.answerFileDialog(file);
    await wb.waitToast('imported');
    await sidebar.frame.locator('[data-test="read-only"]').waitFor({ timeout: 30_000 });
  };
  await check("an imported Aider recording shows the recording's model and window", async () => {
    await importAider('known.aider.chat.history.md', aiderHistory('gpt-4.1', 4, 60));
    const budget = await sidebar.waitBudget(
      (b) => b.model === 'gpt-4.1',
      "the gauge does not name the recording's model",
    );
    const window = await sidebar.frame.locator('[data-test="gauge-window"]').innerText();
    expect(/1\.05M window \(recording's model\)/.test(window), `gauge window: "${window}"`);
    const source = await sidebar.frame.locator('[data-test="source"]').innerText();
    expect(/recorded with gpt-4\.1, 1,047,576-token window/.test(source), `source line: "${source}"`);
    expect(
      (await sidebar.frame.locator('[data-test="gauge-overflow"]').count()) === 0,
      'an overflow segment within budget',
    );
    await wb.clearToasts();
    return `${budget.used} tokens of ${window}; ${source}`;
  });
  await check(
    'a recording of an unknown model: configured window, labelled; over budget the bar shows the overflow',
    async () => {
      await importAider('unknown.aider.chat.history.md', aiderHistory('house-model-x', 40, 400));
      const budget = await sidebar.waitBudget((b) => b.used > 8000, 'the long recording did not fill the gauge');
      const window = await sidebar.frame.locator('[data-test="gauge-window"]').innerText();
      expect(/\(configured model's\)/.test(window) && !/window.*window/.test(window), `gauge window: "${window}"`);
      expect(budget.model === 'house-model-x', `the gauge names ${budget.model}, not the recording's model`);
      const source = await sidebar.frame.locator('[data-test="source"]').innerText();
      expect(
        /house-model-x, a model of unknown window: measured against the window of configured model/.test(source),
        `source line: "${source}"`,
      );
      const label = await sidebar.frame.locator('[data-test="over-label"]').innerText();
      expect(/over budget · \d+%/.test(label), `over-budget label: "${label}"`);
      // The overflow segment starts where the prompt budget ends and runs to the bar's end; the
      // compaction marks stand left of it, at their tokens on the widened scale.
      const [bar, overflow, at] = await Promise.all(
        ['.gauge-bar', '[data-test="gauge-overflow"]', '[data-test="gauge-mark-at"]'].map((s) =>
          sidebar.frame.locator(s).boundingBox(),
        ),
      );
      expect(bar && overflow && at, 'gauge parts missing');
      expect(
        Math.abs(overflow.x + overflow.width - (bar.x + bar.width)) < 3,
        'the overflow does not reach the end of the bar',
      );
      expect(at.x < overflow.x, `the trigger mark (${at.x}) is not left of the overflow (${overflow.x})`);
      const colour = await sidebar.frame
        .locator('[data-test="gauge-overflow"]')
        .evaluate((el) => getComputedStyle(el).backgroundImage);
      expect(/repeating-linear-gradient/.test(colour), `overflow not hatched: ${colour}`);
      await wb.clearToasts();
      for (const [theme, kind, tag] of THEMES) {
        await setTheme({ wb, page }, theme, kind);
        await page.waitForTimeout(300);
        await wb.screenshot(`09b-sidebar-over-budget-${tag}`);
      }
      await setTheme({ wb, page }, 'Dark Modern', 'vs-dark');
      return `${budget.used} tokens, ${label}; overflow from ${(((overflow.x - bar.x) / bar.width) * 100).toFixed(0)}% of the bar; ${window}`;
    },
  );
}

/** Transcript lines a transcript file gives (user, assistant text, each tool call, each tool result). */
function linesOf(file) {
  try {
    const messages = JSON.parse(fs.readFileSync(file, 'utf8'));
    return messages.reduce(
      (n, m) =>
        n + (m.role === 'system' ? 0 : m.role === 'assistant' ? (m.content ? 1 : 0) + (m.tool_calls?.length ?? 0) : 1),
      0,
    );
  } catch {
    return undefined;
  }
}

/** The webview's performance measures since `t0` (its performance.now()): render passes and update latency, in ms. */
async function webviewTimes(page, t0) {
  const frame = await webviewFrame(page);
  return frame.evaluate((t) => {
    const of = (name) =>
      performance
        .getEntriesByName(name)
        .filter((e) => e.startTime >= t)
        .map((e) => e.duration);
    return { render: of('ck-render'), update: of('ck-update') };
  }, t0);
}

const summarize = (xs) => ({
  n: xs.length,
  median: Number(quantile(xs, 0.5).toFixed(2)),
  p95: Number(quantile(xs, 0.95).toFixed(2)),
  max: Number(Math.max(...xs).toFixed(2)),
});

/** Imports `file`, continues it in a new working session and starts the streaming task; returns the gauge and the webview's clock then. */
async function streamOn({ wb, sidebar, page }, file, minTokens) {
  await wb.runCommand('ContextKeeper: Import Transcript');
  await wb.answerFileDialog(file);
  await wb.waitToast('imported', 120_000);
  const imported = await sidebar.waitBudget((b) => b.used > minTokens, 'the session did not load', 120_000);
  await wb.clearToasts();
  await sidebar.frame.locator('[data-test="continue-in-new-task"]').click();
  await sidebar.frame.locator('[data-test="read-only"]').waitFor({ state: 'detached', timeout: 60_000 });
  const t0 = await (await webviewFrame(page)).evaluate(() => performance.now());
  await sidebar.frame.locator('#task').fill('Task: long stream please');
  await sidebar.frame.locator('[data-test="run-task"]').click();
  await sidebar.frame.locator('.turn.assistant.streaming', { hasText: 'piece3 ' }).waitFor({ timeout: 180_000 });
  return { imported, t0 };
}

export async function longSessionChecks(ctx) {
  const { check, expect, wb, sidebar, page, env, log, updateSettings } = ctx;
  // Resolved: VS Code's simple file dialog does not take a path with `..` in it.
  const file = env('LONG_TRANSCRIPT', false) && path.resolve(env('LONG_TRANSCRIPT', false));
  if (!file || !fs.existsSync(file)) {
    log(`SKIP long-session checks: no session at ${file}`);
    return;
  }
  const mid = env('MID_TRANSCRIPT', false) && path.resolve(env('MID_TRANSCRIPT', false));
  // Back to this session afterwards (the theme screenshots show it, with its compaction peak).
  const select = sidebar.frame.locator('[data-test="session-select"]');
  const previous = await select.inputValue().catch(() => '');
  // A window above the sessions: the check is about rendering updates, not about compacting 300k tokens first.
  updateSettings({ 'contextKeeper.contextWindow': 1_000_000 });
  const figures = [];
  try {
    await check(
      'long imported session + streaming task: clicks beat deltas, focus and an opened tool result survive 100 deltas',
      async () => {
        const { imported, t0 } = await streamOn(ctx, file, 100_000);
        // "Show earlier messages (N not shown)" counts messages, which are fewer than the lines they give.
        const earlier = Number(
          (await sidebar.frame.locator('[data-test="load-earlier"]').innerText())
            .match(/\(([\d,]+) not shown/)?.[1]
            ?.replace(/,/g, '') ?? NaN,
        );
        const parsed = (() => {
          try {
            return JSON.parse(fs.readFileSync(file, 'utf8'));
          } catch {
            return undefined;
          }
        })();
        const messages = Array.isArray(parsed) ? parsed.length : Infinity;
        const lines = linesOf(file);
        expect(
          earlier > 0 && earlier < messages && (lines === undefined || earlier < lines - 200),
          `"Show earlier messages" says ${earlier} for ${messages} messages / ${lines} lines`,
        );
        // Open a tool result while the reply streams: the click lands before the next delta is rendered.
        // One some way up the list, as a reader who scrolled back: the view then stops following the
        // stream, so the target stays where it was measured.
        const results = sidebar.frame.locator('.turn.result [data-test="tool-result"]');
        const result = results.nth(Math.max(0, (await results.count()) - 10));
        const id = await result.locator('xpath=..').locator('xpath=..').getAttribute('data-id');
        // A real mouse click at the summary's place (no waiting for the page to settle first: it never
        // does while a reply streams, and waiting is exactly what the check must not do).
        // Playwright's own scrolling waits for the element to stand still, which it never does while the
        // transcript follows the stream; scroll it to the middle from inside the page instead.
        const target = result.locator('summary');
        await target.evaluate((el) => el.scrollIntoView({ block: 'center' }));
        const box = await target.boundingBox();
        expect(box, 'the tool result has no box on screen');
        await page.mouse.click(box.x + Math.min(40, box.width / 2), box.y + box.height / 2);
        const start = await webviewStats(page);
        const click = start.clicks.at(-1);
        // rendersBetween: update passes that started after the click was made and before its handler ran.
        expect(
          click && click.rendersBetween === 0,
          `a render ran between the click and its handler: ${JSON.stringify(click)}`,
        );
        await sidebar.frame.locator(`[data-id="${id}"] details[open]`).waitFor({ timeout: 10_000 });
        const frame = await webviewFrame(page);
        const focused = () =>
          frame.evaluate(
            () =>
              document.activeElement?.closest('[data-id]')?.getAttribute('data-id') ?? document.activeElement?.tagName,
          );
        expect((await focused()) === id, `focus is not on the clicked tool result (${await focused()})`);
        let now = start;
        const deadline = Date.now() + 60_000;
        while (now.deltas < start.deltas + 100 && Date.now() < deadline) {
          await page.waitForTimeout(250);
          now = await webviewStats(page);
        }
        const focusAfter = await focused();
        const stillOpen = await sidebar.frame.locator(`[data-id="${id}"] details[open]`).count();
        await wb.screenshot('12-long-session-streaming');
        await sidebar.frame.locator('[data-test="state"]', { hasText: 'idle' }).waitFor({ timeout: 90_000 });
        const times = await webviewTimes(page, t0);
        figures.push({
          tokens: imported.used,
          lines: linesOf(file),
          render: summarize(times.render),
          update: summarize(times.update),
        });
        expect(now.deltas >= start.deltas + 100, `only ${now.deltas - start.deltas} deltas arrived`);
        expect(focusAfter === id, `focus moved to ${focusAfter} after ${now.deltas - start.deltas} deltas`);
        expect(stillOpen === 1, 'the opened tool result closed');
        return `${imported.used} tokens imported; ${now.deltas - start.deltas} deltas; click input delay ${click.delayMs} ms, 0 update passes before it (isInputPending ${now.inputPendingApi ? 'used' : 'absent'}, ${now.deferred} passes put off); webview render ms median ${figures[0].render.median}, p95 ${figures[0].render.p95}, max ${figures[0].render.max}`;
      },
    );
    if (mid && fs.existsSync(mid)) {
      await check('webview update times on a 20k-token session while a reply streams', async () => {
        const { imported, t0 } = await streamOn(ctx, mid, 10_000);
        await sidebar.frame.locator('[data-test="state"]', { hasText: 'idle' }).waitFor({ timeout: 90_000 });
        const times = await webviewTimes(page, t0);
        expect(times.render.length > 50, `only ${times.render.length} render passes measured`);
        figures.push({
          tokens: imported.used,
          lines: linesOf(mid),
          render: summarize(times.render),
          update: summarize(times.update),
        });
        return `${imported.used} tokens; ${times.render.length} passes`;
      });
    }
  } finally {
    updateSettings({ 'contextKeeper.contextWindow': 8000 });
    if (previous) await select.selectOption(previous).catch(() => {});
  }
  if (figures.length > 0) {
    fs.writeFileSync(path.join(env('OUT_DIR'), 'webview-times.json'), `${JSON.stringify(figures, null, 2)}\n`);
    for (const f of figures) {
      log(
        `webview time to apply an update at ${Math.round(f.tokens / 1000)}k tokens / ${f.lines ?? '?'} lines: render pass median ${f.render.median} ms, p95 ${f.render.p95} ms, max ${f.render.max} ms (${f.render.n} passes); message → on screen median ${f.update.median} ms, p95 ${f.update.p95} ms`,
      );
    }
  }
}

/** Screenshots of the sidebar (and the welcome view) in one theme. */
export async function themeShots({ check, wb, sidebar, page }, theme, kind, tag) {
  await check(`sidebar in ${theme}`, async () => {
    await setTheme({ wb, page }, theme, kind);
    await wb.activityItem('ContextKeeper').waitFor();
    await sidebar.budget();
    await page.waitForTimeout(500);
    await wb.screenshot(`${tag}-sidebar`);
    return kind;
  });
}

/**
 * A session switch refused while a summary preview waits leaves the session list on the session in
 * view (the list must never name a session other than the one shown).
 */
export async function refusedSwitchCheck({ check, expect, wb, sidebar, page, updateSettings }) {
  await check('a session switch refused during a summary preview leaves the list on the session shown', async () => {
    const frame = sidebar.frame;
    const select = frame.locator('[data-test="session-select"]');
    const shown = await select.inputValue();
    const other = (await select.locator('option').evaluateAll((os) => os.map((o) => o.value))).find(
      (v) => v && v !== shown,
    );
    expect(other !== undefined, 'only one session in the list');
    updateSettings({ 'contextKeeper.previewSummary': true });
    await page.waitForTimeout(1_000);
    try {
      await wb.clearToasts();
      await frame.locator('[data-test="compact"]').click();
      await frame.locator('[data-test="preview"]').waitFor({ timeout: 30_000 });
      await select.selectOption(other);
      await wb.waitToast('apply or discard it before switching sessions');
      const after = await select.inputValue();
      expect(after === shown, `the list reads ${after} while ${shown} is shown`);
      await frame.locator('[data-test="discard-preview"]').click();
      await frame.locator('[data-test="preview"]').waitFor({ state: 'detached', timeout: 30_000 });
      expect((await select.inputValue()) === shown, 'the list changed after Discard');
      await wb.clearToasts();
      return `switch refused; the list stayed on ${shown}`;
    } finally {
      // The next checks compact at once: the setting must be off in the extension before they start.
      updateSettings({ 'contextKeeper.previewSummary': false });
      await page.waitForTimeout(3_000);
    }
  });
}
