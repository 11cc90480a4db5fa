/**
 * `compact` reports each checkpoint's retention scorecard: `--json` carries it with its one-line text,
 * and the printed result shows that line under the checkpoint, with what was left out by name.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { RetentionScorecard } from '../../src/compaction/types';

const repo = path.resolve(__dirname, '../../..');
const cli = path.join(repo, 'dist/cli.js');
const sample = path.join(repo, 'samples/demo-session.json');
const skip = fs.existsSync(cli) ? false : 'needs a built dist/cli.js (npm run build)';
const exec = promisify(execFile);

test(
  "compact --json carries each summary checkpoint's scorecard; the printed result shows its line",
  { skip },
  async () => {
    const args = ['compact', sample, '--window', '6000'];
    const { stdout } = await exec(process.execPath, [cli, ...args, '--json']);
    const report = JSON.parse(stdout) as {
      checkpoints: Array<{ id: string; strategy: string; retention?: RetentionScorecard & { text: string } }>;
    };
    const scored = report.checkpoints.filter((c) => c.retention);
    assert.ok(
      scored.length > 0,
      `a checkpoint has a scorecard: ${report.checkpoints.map((c) => c.strategy).join(', ')}`,
    );
    for (const c of scored) {
      const r = c.retention!;
      assert.ok(r.requests.total > 0, 'the demo span holds typed requests');
      assert.equal(r.requests.whole + r.requests.shortened + r.requests.leftOut, r.requests.total);
      assert.ok(r.filesRead.total > 0, 'the demo span reads files');
      assert.ok(Array.isArray(r.missing.identifiers) && Array.isArray(r.missing.filesChanged));
      assert.match(r.text, /^kept: requests \d+\/\d+ whole/);
    }
    // The same compaction printed (ids are new each run: checkpoints are matched in order).
    const printed = (await exec(process.execPath, [cli, ...args])).stdout.split('\n');
    const lines = printed.flatMap((l, i) => (l.startsWith('  checkpoint ') ? [i] : []));
    assert.equal(lines.length, report.checkpoints.length, printed.join('\n'));
    report.checkpoints.forEach((c, k) => {
      assert.ok(printed[lines[k]].includes(` ${c.strategy} `));
      if (c.retention)
        assert.equal(printed[lines[k] + 1], `    ${c.retention.text}`, 'the scorecard line follows its checkpoint');
      else assert.ok(!printed[lines[k] + 1]?.startsWith('    kept:'));
    });
  },
);
