// Page helpers for driving a VS Code workbench (code-server) in headless chromium with playwright-core.
// Selectors follow the workbench's DOM in VS Code 1.100; webviews are nested iframes
// (iframe.webview.ready → #active-frame) that are same-origin in code-server.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

/** Loads playwright-core from the host cache folder prepared by setup-host.sh. */
export function loadPlaywright(playwrightDir) {
  const require = createRequire(path.join(playwrightDir, 'package.json'));
  return require('playwright-core');
}

/**
 * Starts headless Chromium with a fresh profile beside `outDir` and wraps its page in a {@link Workbench}.
 * `close()` ends the browser and removes the profile.
 */
export async function launchWorkbench(playwrightDir, outDir, log) {
  const { chromium } = loadPlaywright(playwrightDir);
  const profile = fs.mkdtempSync(path.join(outDir, '..', 'chrome-profile-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    viewport: { width: 1400, height: 900 },
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const close = async () => {
    await context.close();
    fs.rmSync(profile, { recursive: true, force: true });
  };
  return { page, wb: new Workbench(page, outDir, log), close };
}

/** Thrown by a failed critical check: the run stops there. */
export class Abort extends Error {}

/** Throws `message` unless `condition` holds. */
export function expect(condition, message) {
  if (!condition) throw new Error(message);
}

/**
 * Named checks run in order: each is reported as PASS or FAIL in `results`; a failed one takes a
 * screenshot named `<shotPrefix><name>`, closes what it left open, and throws {@link Abort} when `critical`.
 */
export function checkRunner(wb, log, shotPrefix = 'fail-') {
  const results = [];
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
      await wb.screenshot(`${shotPrefix}${name.replace(/[^a-z0-9]+/gi, '-').toLowerCase()}`).catch(() => {});
      await wb.closeQuickInput().catch(() => {});
      await wb.clearToasts().catch(() => {});
      if (critical) throw new Abort(name);
      return false;
    }
  }
  return { results, check };
}

/** Writes `results` to OUT_DIR/results.json (after what an earlier driver wrote, with `append`), prints the failures; returns the exit code. */
export function reportResults(outDir, results, label, { append = false } = {}) {
  const file = path.join(outDir, 'results.json');
  const earlier = append && fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : [];
  fs.writeFileSync(file, `${JSON.stringify([...earlier, ...results], null, 2)}\n`);
  const failed = results.filter((r) => !r.ok);
  for (const r of failed) console.log(`  failed: ${r.name}: ${r.error}`);
  console.log(`${label}: ${results.length - failed.length} passed, ${failed.length} failed`);
  return failed.length ? 1 : 0;
}

/** A thin wrapper over one workbench page. */
export class Workbench {
  constructor(page, outDir, log) {
    this.page = page;
    this.outDir = outDir;
    this.log = log;
  }

  async open(url) {
    await this.page.goto(url, { waitUntil: 'domcontentloaded', timeout: 90_000 });
    await this.page.locator('.monaco-workbench .part.activitybar').waitFor({ timeout: 90_000 });
    await this.page.locator('.monaco-workbench .part.statusbar').waitFor({ timeout: 90_000 });
  }

  /** The activity bar entry of a view container, by its title prefix. */
  activityItem(title) {
    return this.page
      .locator(
        `.part.activitybar .action-item a[aria-label^="${title}"], .part.activitybar .action-item[aria-label^="${title}"]`,
      )
      .first();
  }

  get quickInput() {
    return this.page.locator('.quick-input-widget');
  }

  get quickInputBox() {
    return this.page.locator('.quick-input-widget .quick-input-box input');
  }

  /**
   * Opens the command palette with `text` typed, retrying while contributions are still arriving and
   * while the workbench takes focus from it (the palette closes on focus loss, mostly while the
   * workbench and its views are still starting: `fill` then waits on a box that is gone).
   */
  async palette(text, expectRow, { attempts = 6 } = {}) {
    for (let attempt = 1; attempt <= attempts; attempt++) {
      try {
        await this.openPaletteBox();
        await this.quickInputBox.fill(`>${text}`, { timeout: 5_000 });
      } catch (error) {
        if (attempt === attempts) throw error;
        this.log(`palette: not open for "${text}" (attempt ${attempt}): ${error.message.split('\n')[0]}`);
        await this.page.waitForTimeout(1_000);
        continue;
      }
      if (!expectRow) return;
      const row = this.paletteRow(expectRow);
      try {
        await row.waitFor({ timeout: 4_000 });
        return row;
      } catch {
        this.log(`palette: "${expectRow}" not listed yet (attempt ${attempt})`);
        await this.page.waitForTimeout(1_000);
      }
    }
    throw new Error(`command "${expectRow}" never appeared in the palette`);
  }

  /** Opens the palette's input box (F1), from the editor area when a webview holds the focus. */
  async openPaletteBox() {
    await this.closeQuickInput();
    await this.page.keyboard.press('F1');
    try {
      await this.quickInputBox.waitFor({ state: 'visible', timeout: 5_000 });
    } catch {
      // Focus inside a webview (the sidebar just shown) keeps F1 from the workbench: focus the editor area.
      await this.page
        .locator('.monaco-workbench .part.editor')
        .first()
        .click({ position: { x: 5, y: 5 } });
      await this.page.keyboard.press('F1');
      await this.quickInputBox.waitFor({ state: 'visible', timeout: 15_000 });
    }
  }

  paletteRow(label) {
    return this.page.locator('.quick-input-list .monaco-list-row', { hasText: label }).first();
  }

  /** Labels of the rows the palette currently lists (only the rendered ones). */
  async paletteLabels() {
    return this.page.locator('.quick-input-list .monaco-list-row .label-name').allInnerTexts();
  }

  /** Runs a command by its palette title ("ContextKeeper: Compact Conversation"). */
  async runCommand(title) {
    await this.palette(title, title);
    // Enter runs the first (highlighted) match; make sure it is ours.
    await this.paletteRow(title).click();
  }

  async closeQuickInput() {
    if (await this.quickInput.isVisible().catch(() => false)) {
      await this.page.keyboard.press('Escape');
      await this.quickInput.waitFor({ state: 'hidden', timeout: 5_000 }).catch(() => {});
    }
  }

  /** Answers an open input box (prompted by showInputBox) with `text`. */
  async answerInput(text, { titleContains } = {}) {
    await this.quickInputBox.waitFor({ state: 'visible', timeout: 15_000 });
    if (titleContains) {
      await this.page
        .locator('.quick-input-widget .quick-input-title', { hasText: titleContains })
        .waitFor({ timeout: 10_000 });
    }
    await this.quickInputBox.fill(text);
    await this.page.keyboard.press('Enter');
  }

  /**
   * Answers VS Code's simple file dialog (a quick input holding a path) with `file`. The dialog fills
   * in its start folder a moment after it opens; typing before that would be overwritten.
   */
  async answerFileDialog(file, { accept = false } = {}) {
    await this.quickInputBox.waitFor({ state: 'visible', timeout: 15_000 });
    let value = '';
    for (let i = 0; i < 50 && !value.startsWith('/'); i++) {
      value = await this.quickInputBox.inputValue();
      await this.page.waitForTimeout(100);
    }
    if (accept) {
      // Wait for the proposed file name after the folder.
      for (let i = 0; i < 40 && value.endsWith('/'); i++) {
        await this.page.waitForTimeout(100);
        value = await this.quickInputBox.inputValue();
      }
      await this.page.keyboard.press('Enter');
      return value;
    }
    for (let attempt = 0; attempt < 3; attempt++) {
      await this.quickInputBox.fill(file);
      await this.page.waitForTimeout(300);
      if ((await this.quickInputBox.inputValue()) === file) break;
    }
    await this.page.keyboard.press('Enter');
    return file;
  }

  /** A notification toast containing `text`. */
  toast(text) {
    return this.page.locator('.notifications-toasts .notification-toast:visible', { hasText: text }).first();
  }

  async waitToast(text, timeout = 30_000) {
    const toast = this.toast(text);
    await toast.waitFor({ timeout });
    return (await toast.innerText()).split('\n')[0];
  }

  /** Clears every notification (keeps the sidebar unobstructed and old toasts from matching). */
  async clearToasts() {
    await this.closeQuickInput();
    await this.runCommand('Notifications: Clear All Notifications');
    await this.page
      .locator('.notifications-toasts .notification-toast:visible')
      .first()
      .waitFor({ state: 'hidden', timeout: 5_000 })
      .catch(() => {});
  }

  /**
   * The inner frame of the Context view's webview. The Watched Agent view is a second webview, so the
   * index among the ready iframes is found by {@link findSidebarWebview}; the first until then.
   */
  webview() {
    return this.page
      .locator('iframe.webview.ready')
      .nth(this.sidebarIndex ?? 0)
      .contentFrame()
      .frameLocator('#active-frame');
  }

  /**
   * Finds which ready webview is the Context view (it holds the task box's Run button) and keeps its
   * index for {@link webview}; undefined while none does.
   */
  async findSidebarWebview() {
    const outers = this.page.locator('iframe.webview.ready');
    const count = await outers.count();
    for (let i = 0; i < count; i++) {
      const found = await outers
        .nth(i)
        .contentFrame()
        .frameLocator('#active-frame')
        .locator('[data-test="run-task"]')
        .count()
        .catch(() => 0);
      if (found) {
        this.sidebarIndex = i;
        return i;
      }
    }
    return undefined;
  }

  /**
   * Waits until the Context view's webview shows its page; returns its index. VS Code for the web
   * (1.100) can leave a webview frame created at the same moment as another one waiting forever for
   * its service worker: the browser console says "Found unexpected service worker controller …
   * Waiting for controllerchange", and the frame never requests its script or style sheet (the view
   * stays on its "Loading…" shell). Both of the container's webviews are created together when the
   * side bar opens, so the Context view is collapsed and expanded instead: its frame alone is made
   * anew. A page of the extension that did arrive but whose script never ran (its "Loading…" shell
   * still there) is the extension's own failure, not the host's: that fails at once, unhelped.
   */
  async waitSidebarWebview({ attempts = 3, timeout = 15_000 } = {}) {
    for (let attempt = 1; attempt <= attempts; attempt++) {
      const deadline = Date.now() + timeout;
      while (Date.now() < deadline) {
        const index = await this.findSidebarWebview();
        if (index !== undefined) return index;
        await this.page.waitForTimeout(250);
      }
      const shells = await this.scriptlessShells();
      if (shells > 0)
        throw new Error(`${shells} webview page(s) of the extension arrived but stayed on their Loading… shell`);
      this.log(`the Context view's webview did not load its page (attempt ${attempt}); collapsing and expanding it`);
      const header = this.page.locator('.pane-header', { hasText: /^\s*context/i }).first();
      await header.click();
      await this.page.waitForTimeout(1_000);
      await header.click();
    }
    throw new Error(`the Context view's webview never loaded its page (${attempts} attempts)`);
  }

  /** How many webview pages hold the extension's HTML shell untouched (`#app` with only its "Loading…" line): their script never ran. */
  async scriptlessShells() {
    let count = 0;
    for (const outer of await this.page.locator('iframe.webview').elementHandles()) {
      const frame = await (await (await outer.contentFrame())?.$('#active-frame').catch(() => null))?.contentFrame();
      const shell = await frame
        ?.evaluate(() => {
          const app = document.getElementById('app');
          return app !== null && app.children.length === 1 && app.firstElementChild?.matches('p.loading') === true;
        })
        .catch(() => false);
      if (shell) count++;
    }
    return count;
  }

  /**
   * What each webview iframe of the page shows and whether its page runs frames: class, box and
   * visibility of the outer iframe; hidden state, text, stats and whether an animation frame fires
   * within 1 s in its inner page. For the log of a view left on "Loading…".
   */
  async webviewDiagnostics() {
    const lines = [];
    const outers = await this.page.locator('iframe.webview').elementHandles();
    for (const [i, outer] of outers.entries()) {
      const shell = await outer.evaluate((el) => ({
        cls: el.className,
        box: JSON.stringify(el.getBoundingClientRect()),
        visibility: getComputedStyle(el).visibility,
        display: getComputedStyle(el).display,
        parent: el.parentElement?.className ?? '',
      }));
      const frame = await (await (await outer.contentFrame())?.$('#active-frame').catch(() => null))?.contentFrame();
      const inner = frame
        ? await frame
            .evaluate(
              () =>
                new Promise((resolve) => {
                  const state = {
                    hidden: document.hidden,
                    visibility: document.visibilityState,
                    text: (document.body?.innerText ?? '').replace(/\s+/g, ' ').slice(0, 120),
                    stats: document.getElementById('ck-stats')?.dataset.json?.slice(0, 200) ?? '',
                  };
                  const timer = setTimeout(() => resolve({ ...state, animationFrame: 'none within 1 s' }), 1_000);
                  requestAnimationFrame(() => {
                    clearTimeout(timer);
                    resolve({ ...state, animationFrame: 'fired' });
                  });
                }),
            )
            .catch((error) => ({ error: error.message }))
        : { error: 'no #active-frame' };
      lines.push(`webview ${i}: ${JSON.stringify(shell)} → ${JSON.stringify(inner)}`);
    }
    return lines.length ? lines : ['no webview iframe'];
  }

  async screenshot(name) {
    const file = path.join(this.outDir, `${name}.png`);
    await this.page.screenshot({ path: file });
    this.log(`screenshot ${file}`);
    return file;
  }

  /** The body's theme class: vs (light), vs-dark, hc-black, hc-light. */
  async themeKind() {
    return this.page.evaluate(() => {
      const body = document.querySelector('.monaco-workbench');
      if (!body) return 'unknown';
      for (const kind of ['hc-light', 'hc-black', 'vs-dark', 'vs']) if (body.classList.contains(kind)) return kind;
      return 'unknown';
    });
  }
}
