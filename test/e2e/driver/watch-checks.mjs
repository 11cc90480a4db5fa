// End-to-end check of the Agent Sessions view: a Claude Code session file of the opened workspace (made
// by run.sh under HOME/.claude/projects/<workspace path with non-alphanumerics as '-'>) is listed,
// followed live as this script appends to it, and a compaction boundary appended live appears as a
// checkpoint of the agent.
import fs from 'node:fs';

let n = 1000;
let parent = 'seed-last';
const base = {
  sessionId: 'e2e',
  cwd: '/w',
  version: '2.1.0',
  isSidechain: false,
  timestamp: '2026-01-01T00:00:00.000Z',
};
function record(o) {
  const uuid = `e2e-${++n}`;
  const line = JSON.stringify({ ...base, uuid, parentUuid: parent, ...o });
  parent = uuid;
  return line;
}

export async function watchChecks({ check, expect, wb, page, env }) {
  const file = env('AGENT_SESSION_FILE', false);
  if (!file || !fs.existsSync(file)) return;
  const row = () => page.locator('.monaco-list-row', { hasText: 'Claude Code' }).first();
  const description = async () =>
    (
      await row()
        .locator('.label-description')
        .innerText()
        .catch(() => '')
    ).trim();

  await check('agent sessions: the workspace Claude Code session is listed and followed', async () => {
    const header = page.locator('.pane-header', { hasText: 'Agent Sessions' }).first();
    // Clicking the activity item of an open container closes it: open it only when it is closed.
    if (!(await header.isVisible())) await wb.activityItem('ContextKeeper').click();
    await header.waitFor({ timeout: 15_000 });
    if ((await header.getAttribute('aria-expanded')) !== 'true') await header.click();
    await row().waitFor({ timeout: 30_000 });
    await page.locator('.monaco-list-row', { hasText: '% ·' }).first().waitFor({ timeout: 30_000 });
    await wb.screenshot('30-agent-sessions');
    return await description();
  });

  await check('agent sessions: the gauge moves as the agent appends', async () => {
    const before = await description();
    const output = 'export function handler(request) { return respond(request); }\n'.repeat(400);
    fs.appendFileSync(
      file,
      [
        record({
          type: 'assistant',
          message: {
            role: 'assistant',
            id: 'm-e2e-1',
            model: 'claude-sonnet-4-5',
            content: [{ type: 'tool_use', id: 'e2e-t1', name: 'Read', input: { file_path: 'src/handler.ts' } }],
            usage: { input_tokens: 30000, output_tokens: 10 },
          },
        }),
        record({
          type: 'user',
          message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'e2e-t1', content: output }] },
        }),
      ].join('\n') + '\n',
    );
    const started = Date.now();
    await page.waitForFunction(
      ([prev]) => {
        const rows = [...document.querySelectorAll('.monaco-list-row')].filter((r) =>
          r.textContent?.includes('Claude Code'),
        );
        const d = rows[0]?.querySelector('.label-description')?.textContent?.trim() ?? '';
        return d !== '' && d !== prev;
      },
      [before],
      { timeout: 15_000 },
    );
    const after = await description();
    await wb.screenshot('31-agent-sessions-moved');
    return `${before} → ${after} in ${Date.now() - started} ms`;
  });

  await check('agent sessions: a compaction appended live appears as the agent checkpoint', async () => {
    const boundary = JSON.stringify({
      ...base,
      type: 'system',
      subtype: 'compact_boundary',
      uuid: 'e2e-boundary',
      parentUuid: null,
      logicalParentUuid: parent,
      content: 'Conversation compacted',
      // The figures Claude Code records in its compaction: the row and the gauge show these.
      compactMetadata: { trigger: 'auto', preTokens: 169_012, postTokens: 6_634 },
    });
    parent = 'e2e-boundary';
    const summary = record({
      type: 'user',
      isCompactSummary: true,
      message: {
        role: 'user',
        content: 'This session is being continued from a previous conversation. Summary: the handler was read.',
      },
    });
    fs.appendFileSync(file, `${boundary}\n${summary}\n`);
    const item = page.locator('.monaco-list-row', { hasText: 'Compacted at line' }).first();
    await item.waitFor({ timeout: 15_000 });
    const label = (await item.innerText()).replace(/\s+/g, ' ').trim();
    await item.click();
    await page.locator('.tabs-container .tab', { hasText: 'replaced' }).first().waitFor({ timeout: 15_000 });
    await wb.screenshot('32-agent-compaction-diff');
    expect(/169k → 6\.6k/.test(label), `the checkpoint row does not give the recorded figures: ${label}`);
    return label;
  });

  await check('agent sessions: the status bar follows the watched agent through its compaction', async () => {
    const item = page.locator('.statusbar-item', { hasText: 'Claude Code' }).first();
    await item.waitFor({ timeout: 15_000 });
    const text = (await item.innerText()).replace(/\s+/g, ' ').trim();
    // After the compaction: the agent's own figure (6.6k plus the summary), not the 0-usage records.
    expect(/Claude Code \d+% · 6\.\dk\/200k/.test(text), `status bar: ${text}`);
    return text;
  });

  await check('agent sessions: the handoff opens read-only and closes without asking to save', async () => {
    await wb.runCommand('View: Close All Editors').catch(() => {});
    await wb.runCommand('ContextKeeper: Compact Agent Session into a Handoff');
    const tab = page.locator('.tabs-container .tab', { hasText: 'Handoff' }).first();
    await tab.waitFor({ timeout: 60_000 });
    const classes = (await tab.getAttribute('class')) ?? '';
    expect(!classes.includes('dirty'), `the handoff tab is marked unsaved: ${classes}`);
    await wb.screenshot('33-agent-handoff');
    await wb.runCommand('View: Close All Editors');
    const ask = page.locator('.monaco-dialog-box', { hasText: 'save' });
    await tab.waitFor({ state: 'detached', timeout: 10_000 });
    expect((await ask.count()) === 0, 'closing the handoff asked to save it');
    return 'closed without a save prompt';
  });
}
