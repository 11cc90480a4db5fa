/**
 * A failed edit changed nothing: an edit whose result is an error (Claude Code's "String to replace
 * not found" with `is_error`, Codex's failed `apply_patch`, Cline's failed `replace_in_file`,
 * OpenHands' and SWE-agent's `str_replace_editor` "No replacement was performed") does not make its
 * file "changed", neither in the summary's Files changed section nor in the scorecard, unless
 * another edit of that file succeeded.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WRITERS, compactExtractive, type Step, sectionOf } from '../support/recordings';
import { importTranscriptTextSync } from '../../src/transcripts';
import { itemsFromEntries } from '../../src/compaction/context';
import { textWithPlaceholders } from '../../src/compaction/content-text';

const filler = (n: number) => 'lorem ipsum dolor sit amet '.repeat(n);

/** Each format's words for an edit of `path` that found nothing to replace. */
const FAILED_EDIT: Record<keyof typeof WRITERS, (path: string) => string> = {
  'claude-code': () =>
    '<tool_use_error>String to replace not found in file.\nString: const retries = 2;</tool_use_error>',
  codex: (path) =>
    JSON.stringify({
      output: `apply_patch verification failed: Failed to find expected lines in ${path}:\nconst retries = 2;`,
      metadata: { exit_code: 1, duration_seconds: 0 },
    }),
  cline: () =>
    'The tool execution failed with the following error:\n<error>\nThe SEARCH block:\nconst retries = 2;\n...does not match anything in the file.\n</error>',
  'openai-chat': () => 'Error: String to replace not found in file.',
  'swe-agent': (path) =>
    `No replacement was performed, old_str \`const retries = 2;\` did not appear verbatim in ${path}.`,
  openhands: (path) =>
    `ERROR:\nNo replacement was performed, old_str \`const retries = 2;\` did not appear verbatim in ${path}.`,
};

function work(format: keyof typeof WRITERS): Step[] {
  const failed = (path: string): Step => ({
    tool: 'edit',
    path,
    old: 'const retries = 2;',
    new: 'const retries = 5;',
    ok: false,
    result: FAILED_EDIT[format](path),
  });
  return [
    { user: 'raise the retry count in the client and the worker' },
    failed('src/never_changed.ts'),
    failed('src/worker_loop.ts'),
    { tool: 'edit', path: 'src/worker_loop.ts', old: 'const retries = 3;', new: 'const retries = 5;' },
    { say: `Done. ${filler(2500)}` },
    { user: 'thanks' },
    { say: 'ok' },
  ];
}

for (const [format, { write, file }] of Object.entries(WRITERS)) {
  test(`${format}: a failed edit does not make its file changed, in the summary or its scorecard`, async () => {
    const t = importTranscriptTextSync(write(work(format as keyof typeof WRITERS)), file);
    const r = await compactExtractive(itemsFromEntries(t.entries));
    const item = r.context.find((i) => i.kind === 'summary');
    assert.ok(item, 'a summary was written');
    const summary = textWithPlaceholders(item.message.content);
    const section = sectionOf(summary, 'Files changed');
    assert.match(section, /src\/worker_loop\.ts[^\n]*: edited/, summary);
    assert.doesNotMatch(section, /never_changed/, summary);
    assert.doesNotMatch(summary, /Files edited most recently:[^\n]*never_changed/, summary);
    const card = r.checkpoints.find((c) => c.retention)?.retention;
    assert.ok(card, 'the checkpoint has a scorecard');
    assert.equal(card.filesChanged.total, 1, JSON.stringify(card));
    assert.equal(card.filesChanged.named, 1, JSON.stringify(card));
  });
}
