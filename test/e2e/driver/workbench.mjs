// Page helpers for driving a VS Code workbench (code-server) in headless chromium with playwright-core.
// Selectors follow the workbench's DOM in VS Code 1.100; webviews are nested iframes
// (iframe.webview.ready → #active-frame) that are same-origin in code-server.
import { createRequire } from 'node:module';
import path from 'node:path';

/** Loads playwright-core from the host cache folder prepared by setup-host.sh. */
export function loadPlaywright(playwrightDir) {
  const require = createRequire(path.join(playwrightDir, 'package.json'));
  return require('playwright-core');
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
      .locator(`.part.activitybar .action-item a[aria-label^="${title}"], .part.activitybar .action-item[aria-label^="${title}"]`)
      .first();
  }

  get quickInput() {
    return this.page.locator('.quick-input-widget');
  }

  get quickInputBox() {
    return this.page.locator('.quick-input-widget .quick-input-box input');
  }

  /** Opens the command palette with `text` typed, retrying while contributions are still arriving. */
  async palette(text, expectRow, { attempts = 6 } = {}) {
    for (let attempt = 1; attempt <= attempts; attempt++) {
      await this.closeQuickInput();
      await this.page.keyboard.press('F1');
      await this.quickInputBox.waitFor({ state: 'visible', timeout: 15_000 });
      await this.quickInputBox.fill(`>${text}`);
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
      await this.page.locator('.quick-input-widget .quick-input-title', { hasText: titleContains }).waitFor({ timeout: 10_000 });
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
    await this.page.locator('.notifications-toasts .notification-toast:visible').first().waitFor({ state: 'hidden', timeout: 5_000 }).catch(() => {});
  }

  /** The inner frame of the webview whose outer iframe is ready and visible. */
  webview() {
    return this.page.frameLocator('iframe.webview.ready').first().frameLocator('#active-frame');
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
