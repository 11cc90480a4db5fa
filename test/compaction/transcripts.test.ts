/**
 * The core on every recorded transcript of real agents in ../shared/transcripts: import, meter,
 * compaction at 8k, 32k and 128k windows, and replay at 32k, checked against the invariants.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { sharedTranscriptsDir } from '../support/shared';
import { loadSession } from '../../src/cli/load';
import { compact } from '../../src/compaction/rewrite/compactor';
import { ExtractiveSummarizer } from '../../src/compaction/summary/extractive';
import { checkContext, checkToolPairing } from '../../src/compaction/plan/invariants';
import { toMessages } from '../../src/compaction/context';
import { replay } from '../../src/replay/replay';
import { analyze } from '../../src/compaction/plan/structure';
import { thresholds } from '../../src/compaction/plan/budget';
import { describeCompaction } from '../../src/compaction/outcome-text';

const dir = sharedTranscriptsDir();
const files = dir
  ? fs
      .readdirSync(dir, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .flatMap((d) => fs.readdirSync(path.join(dir, d.name)).map((f) => path.join(dir, d.name, f)))
  : [];
const repo = path.resolve(__dirname, '../../..');
const cli = path.join(repo, 'dist/cli.js');

if (!dir) {
  test('recorded transcripts', (t) =>
    t.skip('../shared/transcripts not found beside the repository; set CONTEXT_KEEPER_SHARED to run these'));
}

for (const file of files) {
  const name = path.relative(dir!, file);
  test(`${name}: compaction at 8k, 32k and 128k keeps every invariant`, async () => {
    const s = await loadSession(file);
    assert.ok(s.entries.length > 0);
    const m = s.meter.measure(s.items, s.transcript.tools);
    assert.ok(m.total > 0);
    const lead = analyze(s.items).leadEnd;
    const shape = analyze(s.items);
    const latestUser = shape.lastUserIndex >= 0 ? s.items[shape.lastUserIndex].message : undefined;
    for (const window of [8000, 32_000, 128_000]) {
      const summarizer = new ExtractiveSummarizer((t) => s.meter.countText(t));
      const budget = { contextWindow: window, reservedOutput: 0, compactAt: 0.8, compactTo: 0.5 };
      const r = await compact({
        items: s.items,
        tools: s.transcript.tools,
        meter: s.meter,
        summarizer,
        options: { budget, trigger: 'manual', force: true },
      });
      const out = toMessages(r.context);
      assert.deepEqual(checkToolPairing(out, true), [], `${name} @${window}: invariant 1`);
      assert.deepEqual(checkContext(r.context, s.entries), [], `${name} @${window}: invariants`);
      for (let k = 0; k < lead; k++) assert.equal(out[k], s.items[k].message, 'system messages first and unchanged');
      if (latestUser) assert.ok(out.includes(latestUser), 'the latest user message verbatim');
      if (r.status.kind === 'applied') {
        assert.ok(r.tokensAfter < r.tokensBefore);
        // Inside the target, unless what is never summarised alone is over it (and the result says so).
        const target = thresholds(budget).targetTokens;
        const anchored = r.status.anchored?.total ?? 0;
        if (r.tokensAfter > target)
          assert.ok(
            anchored > target,
            `${name} @${window}: ${r.tokensAfter} tokens over the target of ${target}, ${anchored} of them never summarised`,
          );
        for (const c of r.checkpoints) assert.ok(c.tokensAfter < c.tokensBefore, `checkpoint ${c.id} shrinks`);
      } else {
        assert.ok(describeCompaction(r.status).length > 0);
        assert.equal(r.tokensAfter, r.tokensBefore);
      }
    }
    const report = await replay(s.entries, s.meter, new ExtractiveSummarizer((t) => s.meter.countText(t)), {
      budget: { contextWindow: 32_000, reservedOutput: 0, compactAt: 0.8, compactTo: 0.5 },
      tools: s.transcript.tools,
    });
    assert.deepEqual(report.violations.slice(0, 3), [], `${name}: replay at 32k sends only valid contexts`);
    assert.ok(report.promptTokens <= report.promptTokensUnmanaged);
  });
}

const exec = promisify(execFile);
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ck-cli-'));
test.after(() => fs.rmSync(tmp, { recursive: true, force: true }));

test(
  'node dist/cli.js compact --window 32000 --out writes the documented document for every transcript',
  {
    concurrency: 2,
    skip: !dir || !fs.existsSync(cli) ? 'needs ../shared/transcripts and a built dist/cli.js (npm run build)' : false,
  },
  async (t) => {
    for (const file of files) {
      await t.test(path.basename(file), async () => {
        const out = path.join(tmp, `${path.basename(file)}.json`);
        await exec(process.execPath, [cli, 'compact', file, '--window', '32000', '--out', out], {
          maxBuffer: 16 << 20,
        });
        const doc = JSON.parse(fs.readFileSync(out, 'utf8'));
        // `tools` is there exactly when the recording has tool schemas (they are sent with every request).
        const { transcript } = await loadSession(file);
        const withTools = transcript.tools.length > 0;
        assert.deepEqual(Object.keys(doc), [
          'format',
          'model',
          'window',
          'tokensBefore',
          'tokensAfter',
          'messages',
          ...(withTools ? ['tools'] : []),
          'checkpoints',
          'rawCount',
        ]);
        if (withTools) assert.deepEqual(doc.tools, JSON.parse(JSON.stringify(transcript.tools)));
        assert.equal(doc.window, 32000);
        assert.deepEqual(checkToolPairing(doc.messages, true), []);
        for (const c of doc.checkpoints) {
          const keys = Object.keys(c);
          assert.deepEqual(keys.slice(0, 7), [
            'id',
            'trigger',
            'strategy',
            'replacedIds',
            'tokensBefore',
            'tokensAfter',
            'summary',
          ]);
          for (const k of keys.slice(7))
            assert.ok(['coverage', 'summarizerModel', 'usage', 'retention'].includes(k), k);
          if (c.trigger !== 'import' && (c.strategy === 'summary' || c.strategy === 'extractive')) {
            // Every replaced message is covered by the summary (a recorded agent's own summary has no coverage of ours).
            assert.equal(c.coverage.messages, c.replacedIds.length);
          }
          assert.ok(c.tokensAfter < c.tokensBefore);
        }
        assert.ok(doc.tokensAfter <= doc.tokensBefore);
        assert.ok(
          doc.messages.every((m: { role: string }) =>
            ['system', 'developer', 'user', 'assistant', 'tool'].includes(m.role),
          ),
        );
      });
    }
  },
);
