/**
 * A command that never finished is told by the terminal's note, not by the command echoed back: the
 * outcome of a heredoc the terminal echoed line by line, then "[The command has no new output after
 * 30 seconds…]", is that note. Recorded in each agent's format that runs commands.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { summaryOf, WRITERS, type Step } from '../support/recordings';

const COMMAND =
  "cat > /tmp/analyze.py << 'EOF'\nimport json\nprint(json.dumps({'ok': True}))\nEOF\npython3 /tmp/analyze.py";
const NOTE =
  '[The command has no new output after 30 seconds. You may wait longer to see additional output by sending empty command.]';
const filler = (n: number) => 'The trajectory was read event by event. '.repeat(n);

const steps: Step[] = [
  { user: 'find why the trajectory has a duplicate tool call' },
  { tool: 'bash', command: COMMAND, output: `${COMMAND}\n${NOTE}`, ok: false },
  { say: `The script hung. ${filler(300)}` },
  { user: 'try again with a timeout' },
  { say: 'ok' },
];

for (const format of ['openhands', 'claude-code', 'codex'] as const) {
  test(`${format}: a command that hung is told by the terminal's note, not by its echo`, async () => {
    const { write, file } = WRITERS[format];
    const { summary } = await summaryOf(write(steps), file);
    assert.match(
      summary,
      /`cat > \/tmp\/analyze\.py[^\n]*→[^\n]*The command has no new output after 30 seconds/,
      summary,
    );
    assert.doesNotMatch(summary, /→ (?:failed: )?cat > \/tmp\/analyze\.py/, summary);
  });
}
