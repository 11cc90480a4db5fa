// Checks of the sidebar transcript as a keyboard and screen-reader user meets it: lines a compaction
// replaced show their state and offer no pin (live lines keep theirs), the list is one Tab stop with
// Up/Down/Home/End between rows, Enter into a row's buttons and Escape back; and the session list
// shows a session's whole name on hover and takes the header's width.
// Each function takes the driver's context: { check, expect, wb, sidebar, page, updateSettings, env, log }.
import { webviewFrame } from './sidebar-checks.mjs';

/** The focused element in the webview: its row key, tag, test id and accessible name. */
const focusedOf = (frame) =>
  frame.evaluate(() => {
    const el = document.activeElement;
    return {
      row: el?.closest('[data-row]')?.getAttribute('data-row') ?? null,
      isRow: el?.hasAttribute('data-row') ?? false,
      inList: Boolean(el?.closest('.transcript')),
      tag: el?.tagName ?? '',
      test: el?.getAttribute('data-test') ?? '',
      label: el?.getAttribute('aria-label') ?? '',
    };
  });

export async function transcriptKeyboardChecks({ check, expect, sidebar, page }) {
  await check('summarized lines show their state and offer no pin; live lines keep the pin', async () => {
    const frame = sidebar.frame;
    const compacted = await frame.locator('.turn.compacted').count();
    expect(compacted > 0, 'no line replaced by the automatic compaction to look at');
    const pinsOnCompacted = await frame.locator('.turn.compacted [data-test="pin"]').count();
    expect(pinsOnCompacted === 0, `${pinsOnCompacted} pin buttons on summarized lines`);
    const badges = await frame.locator('.turn.compacted [data-test="held-badge"]').count();
    expect(badges > 0, 'summarized lines do not show their state');
    const livePins = await frame.locator('.turn:not(.compacted) [data-test="pin"]').count();
    expect(livePins > 0, 'live lines lost their pin buttons');
    return `${compacted} summarized lines (${badges} with a state badge, no pin), ${livePins} live lines with a pin`;
  });

  await check(
    'the transcript is one Tab stop; arrows, Home and End move between rows, Enter reaches the pin, Escape comes back',
    async () => {
      const frame = await webviewFrame(page);
      const stops = await frame.evaluate(
        () =>
          [...document.querySelectorAll('.transcript, .transcript *')].filter((el) => el.tabIndex >= 0 && !el.disabled)
            .length,
      );
      expect(stops === 1, `${stops} Tab stops in the transcript list`);
      const rows = await frame.evaluate(() =>
        [...document.querySelectorAll('.transcript [data-row]')].map((el) => el.getAttribute('data-row')),
      );
      expect(rows.length >= 3, `only ${rows.length} rows`);
      // From the Run button, Tab reaches the list in at most two presses (past "Show earlier messages").
      await sidebar.frame.locator('[data-test="run-task"]').focus();
      let presses = 0;
      let at = await focusedOf(frame);
      while (!at.inList && presses < 4) {
        await page.keyboard.press('Tab');
        presses++;
        at = await focusedOf(frame);
      }
      expect(at.isRow, `Tab from Run ended on ${JSON.stringify(at)} after ${presses} presses`);
      await page.keyboard.press('Home');
      expect((await focusedOf(frame)).row === rows[0], 'Home did not go to the first row');
      await page.keyboard.press('ArrowDown');
      expect((await focusedOf(frame)).row === rows[1], 'Down did not go to the second row');
      await page.keyboard.press('ArrowUp');
      expect((await focusedOf(frame)).row === rows[0], 'Up did not come back to the first row');
      await page.keyboard.press('End');
      expect((await focusedOf(frame)).row === rows.at(-1), 'End did not go to the last row');
      // Up from the end to the newest row with a pin button, Enter onto it, Escape back to its row.
      const pinned = await frame.evaluate(() =>
        [...document.querySelectorAll('.transcript [data-row]')]
          .filter((el) => el.querySelector('[data-test="pin"]'))
          .map((el) => el.getAttribute('data-row')),
      );
      expect(pinned.length > 0, 'no row with a pin button');
      let steps = 0;
      while ((await focusedOf(frame)).row !== pinned.at(-1) && steps < rows.length) {
        await page.keyboard.press('ArrowUp');
        steps++;
      }
      await page.keyboard.press('Enter');
      const onPin = await focusedOf(frame);
      expect(
        onPin.row === pinned.at(-1) && onPin.tag === 'BUTTON' && /^(Pin|Unpin) message from /.test(onPin.label),
        `Enter led to ${JSON.stringify(onPin)}`,
      );
      await page.keyboard.press('Escape');
      const back = await focusedOf(frame);
      expect(back.isRow && back.row === pinned.at(-1), `Escape led to ${JSON.stringify(back)}`);
      const visible = await frame.evaluate(() => getComputedStyle(document.activeElement).outlineStyle);
      expect(visible !== 'none', 'the focused row shows no outline');
      await page.keyboard.press('Tab');
      const out = await focusedOf(frame);
      expect(!out.inList, `a second Tab stayed in the list: ${JSON.stringify(out)}`);
      await page.keyboard.press('Shift+Tab');
      expect((await focusedOf(frame)).row === pinned.at(-1), 'Shift+Tab did not come back to the row last used');
      return `${rows.length} rows, 1 Tab stop, ${presses} Tab press(es) from Run; pin reached with ${steps} arrow press(es) + Enter (named "${onPin.label}")`;
    },
  );
}

/**
 * The checkpoint history as one Tab stop, run once the session has at least three compaction runs
 * (the automatic one of the first task, the manual ones, the one during the re-attach task), so the
 * arrows are checked across rows, not on a single one.
 */
export async function checkpointKeyboardChecks({ check, expect, page }) {
  await check(
    'the checkpoint list is one Tab stop; Up/Down/Home/End move between rows, Right reaches the buttons and moves between them, Left comes back',
    async () => {
      const frame = await webviewFrame(page);
      const stops = await frame.evaluate(
        () =>
          [...document.querySelectorAll('.checkpoints, .checkpoints *')].filter(
            (el) => el.tabIndex >= 0 && !el.disabled,
          ).length,
      );
      expect(stops === 1, `${stops} Tab stops in the checkpoint list`);
      const rows = await frame.evaluate(() =>
        [...document.querySelectorAll('.checkpoints [data-row]')].map((el) => el.getAttribute('data-row')),
      );
      expect(rows.length >= 3, `only ${rows.length} checkpoint rows: the arrows need at least three`);
      // The Tab stop is the row used last (earlier checks clicked buttons in the list): Home goes to the newest.
      await frame.locator('.checkpoints [data-row][tabindex="0"]').focus();
      expect((await focusedOf(frame)).isRow, 'the Tab stop is not a checkpoint row');
      await page.keyboard.press('Home');
      expect((await focusedOf(frame)).row === rows[0], 'Home did not go to the newest checkpoint');
      await page.keyboard.press('ArrowDown');
      expect((await focusedOf(frame)).row === rows[1], 'Down did not go to the second checkpoint');
      await page.keyboard.press('ArrowDown');
      expect((await focusedOf(frame)).row === rows[2], 'a second Down did not go to the third checkpoint');
      await page.keyboard.press('ArrowUp');
      expect((await focusedOf(frame)).row === rows[1], 'Up did not come back to the second checkpoint');
      await page.keyboard.press('End');
      expect((await focusedOf(frame)).row === rows.at(-1), 'End did not go to the oldest checkpoint');
      await page.keyboard.press('Home');
      expect((await focusedOf(frame)).row === rows[0], 'Home did not go back to the newest checkpoint');
      await page.keyboard.press('ArrowDown');
      await page.keyboard.press('ArrowRight');
      const onButton = await focusedOf(frame);
      expect(onButton.row === rows[1] && onButton.tag === 'BUTTON', `Right led to ${JSON.stringify(onButton)}`);
      await page.keyboard.press('ArrowRight');
      const second = await focusedOf(frame);
      expect(
        second.row === rows[1] && second.tag === 'BUTTON' && second.label !== onButton.label,
        `a second Right led to ${JSON.stringify(second)}`,
      );
      await page.keyboard.press('ArrowLeft');
      const first = await focusedOf(frame);
      expect(first.label === onButton.label, `Left from the second button led to ${JSON.stringify(first)}`);
      await page.keyboard.press('ArrowLeft');
      const back = await focusedOf(frame);
      expect(back.isRow && back.row === rows[1], `Left from the first button led to ${JSON.stringify(back)}`);
      // One Tab stop still, and it is the row used last.
      const after = await frame.evaluate(() =>
        [...document.querySelectorAll('.checkpoints [data-row][tabindex="0"]')].map((el) =>
          el.getAttribute('data-row'),
        ),
      );
      expect(after.length === 1 && after[0] === rows[1], `Tab stops after moving: ${JSON.stringify(after)}`);
      return `${rows.length} checkpoint rows, 1 Tab stop; Down, Down, Up, End, Home moved between them; Right reached "${onButton.label}", then "${second.label}"`;
    },
  );
}

export async function sessionSelectChecks({ check, expect, sidebar, page }) {
  await check('the session list shows the whole session name on hover and takes the header width', async () => {
    const frame = await webviewFrame(page);
    const facts = await frame.evaluate(() => {
      const select = document.querySelector('[data-test="session-select"]');
      const header = document.querySelector('.header');
      const chosen = select.selectedOptions[0];
      return {
        title: select.title,
        label: chosen?.textContent?.replace(/^⤓ /, '') ?? '',
        optionTitles: [...select.options].every((o) => o.title.length > 0),
        width: select.getBoundingClientRect().width,
        header: header.getBoundingClientRect().width,
      };
    });
    expect(
      facts.label.length > 0 && facts.title.endsWith(facts.label),
      `title "${facts.title}" does not carry the name "${facts.label}"`,
    );
    expect(facts.optionTitles, 'some options have no hover text');
    expect(facts.width >= facts.header * 0.9, `the list is ${facts.width}px in a ${facts.header}px header`);
    await sidebar.frame.locator('[data-test="session-select"]').waitFor();
    return `title "${facts.title}", ${Math.round(facts.width)} of ${Math.round(facts.header)} px`;
  });
}
