// The agent looks up what a compaction replaced: after the earlier tasks were compacted, a task whose
// scripted model calls search_history gets the replaced text back, cited with its checkpoint, without
// an approval, and answers from it (test/e2e/model/serve.mjs, "look up" tasks).
// Each function takes the driver's context: { check, expect, wb, sidebar, page, updateSettings, env, log }.

/** Line 1 of every design note (fixtures/make-workspace.mjs), read by the first task and compacted since. */
export const RECALLED_PHRASE = 'keeps invariant 2 when message 7 is replaced';

export async function recallCheck({ check, expect, sidebar, wb }) {
  await check('after a compaction the agent searches its history and receives the replaced text', async () => {
    const frame = sidebar.frame;
    const compactions = await frame.locator('[data-test="compaction-divider"]').count();
    expect(compactions > 0, 'no compaction before the look-up: nothing was replaced yet');
    const approvals = await frame.locator('[data-test="approval"]').count();
    await frame
      .locator('#task')
      .fill('Task: look up in the history what part 1 of the design notes said about message 7');
    await frame.locator('[data-test="run-task"]').click();
    await frame.locator('.turn.tool-call', { hasText: 'search_history' }).last().waitFor({ timeout: 30_000 });
    const answer = frame.locator('.turn.assistant', { hasText: 'Recall:' }).last();
    await answer.waitFor({ timeout: 60_000 });
    await frame.locator('[data-test="state"]', { hasText: 'idle' }).waitFor({ timeout: 30_000 });
    const said = (await answer.innerText()).replace(/\s+/g, ' ');
    expect(/Recall: found it/.test(said), `the model did not get the replaced text back: ${said.slice(0, 400)}`);
    expect(
      /replaced by checkpoint ck-\d{8}/.test(said),
      `the result does not cite a checkpoint: ${said.slice(0, 400)}`,
    );
    expect(said.includes(RECALLED_PHRASE), `the answer does not quote the replaced text: ${said.slice(0, 400)}`);
    expect(
      (await frame.locator('[data-test="approval"]').count()) === approvals,
      'search_history asked for an approval',
    );
    // The tool result in the transcript holds the citation and the text.
    const result = frame.locator('.turn.result', { hasText: 'search_history' }).last();
    await result.locator('summary').click();
    const shown = (await result.locator('pre').innerText()).replace(/\s+/g, ' ');
    expect(shown.includes(RECALLED_PHRASE), `the tool result shown does not hold the phrase: ${shown.slice(0, 400)}`);
    expect(
      /tool result of read_file/.test(shown),
      `the hit is not labelled as read_file's result: ${shown.slice(0, 300)}`,
    );
    await result.evaluate((el) => el.scrollIntoView({ block: 'center' }));
    await wb.screenshot('05f-recall-search-history');
    return said.slice(0, 240);
  });
}
