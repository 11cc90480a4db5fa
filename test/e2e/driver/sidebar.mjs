// Reads the ContextKeeper sidebar (a webview) through the data-test attributes of src/webview/main.ts.

/** Palette titles every build must list (on a fresh profile: idle, no key, no checkpoint yet). */
export const EXPECTED_COMMANDS = [
  'ContextKeeper: Compact Conversation',
  'ContextKeeper: New Agent Task',
  'ContextKeeper: Set API Key',
  'ContextKeeper: Choose Endpoint',
  'ContextKeeper: New Session',
  'ContextKeeper: Pin Message',
  'ContextKeeper: Import Transcript',
  'ContextKeeper: Export Transcript',
  'ContextKeeper: Show Log',
];

/** Palette titles hidden by `when` clauses while they cannot act (idle, no key, no checkpoint, no preview). */
export const HIDDEN_WHEN_IDLE = [
  'ContextKeeper: Cancel',
  'ContextKeeper: Clear API Key',
  'ContextKeeper: Restore Checkpoint',
  'ContextKeeper: Apply Summary Preview',
  'ContextKeeper: Undo Last Restore',
];

/** The notification of an applied compaction: each figure once, in the gauge's formatting ("5.1k → 2.0k tokens"). */
export const COMPACTED_TOAST = /compacted [\d.]+[kM]? → [\d.]+[kM]? tokens/;

/** The sidebar webview of one workbench. */
export class Sidebar {
  constructor(workbench) {
    this.wb = workbench;
  }

  get frame() {
    return this.wb.webview();
  }

  /** Reads the gauge once it is rendered. */
  async budget() {
    // The Context view's webview, once it is ready (the Watched Agent view may be ready first).
    await this.wb.waitSidebarWebview();
    const used = this.frame.locator('[data-test="gauge-used"]');
    await used.waitFor({ timeout: 30_000 });
    const tokens = Number(await used.getAttribute('data-tokens'));
    return {
      used: tokens,
      text: (await this.frame.locator('.gauge-numbers .of').innerText()).trim(),
      accuracy: await this.frame.locator('[data-test="gauge-accuracy"]').innerText(),
      model: await this.frame.locator('[data-test="gauge-model"]').innerText(),
    };
  }

  /** Polls the gauge until `predicate` holds. */
  async waitBudget(predicate, message, timeout = 30_000) {
    const deadline = Date.now() + timeout;
    let last;
    while (Date.now() < deadline) {
      last = await this.budget().catch(() => undefined);
      if (last && predicate(last)) return last;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    throw new Error(`${message} (last: ${last ? `${last.used} tokens` : 'no gauge'})`);
  }

  async checkpointCount() {
    await this.frame.locator('.checkpoints').waitFor({ timeout: 10_000 });
    return this.frame.locator('[data-test="checkpoint"]').count();
  }
}
