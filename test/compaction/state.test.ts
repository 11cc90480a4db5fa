/**
 * What a summary keeps of the work's state, by kind: typed requests behind a recorded agent's own
 * summary, Aider whole-file edits and Cline's file writes in the ledger, and the current-state lines
 * (last tool call, files edited most recently, latest error line of a command's output) under any
 * budget. Small generated conversations only.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { A, Acalls, S, T, U, chars, items } from '../support/conversation';
import { quarterCounter } from '../support/generate';
import { TokenMeter } from '../../src/compaction/meter/meter';
import { ExtractiveSummarizer } from '../../src/compaction/summary/extractive';
import { compact } from '../../src/compaction/rewrite/compactor';
import { applyRecordedCompactions } from '../../src/compaction/rewrite/imported';
import { actionsOf } from '../../src/compaction/summary/ledger/actions';
import { buildLedger } from '../../src/compaction/summary/ledger/ledger';
import { failureLines } from '../../src/compaction/summary/ledger/command-errors';
import { parseRequestsSection } from '../../src/compaction/summary/requests';
import type { BudgetConfig, ChatMessage } from '../../src/compaction/types';
import { describeCompaction } from '../../src/compaction/outcome-text';

const meter = new TokenMeter({ counter: quarterCounter });
const count = (t: string) => meter.countText(t);
const budget = (contextWindow: number): BudgetConfig => ({
  contextWindow,
  reservedOutput: 0,
  compactAt: 0.8,
  compactTo: 0.5,
});

test("a recorded agent's own summary keeps the typed requests it stands for; a later compaction carries them verbatim", async () => {
  const msgs: ChatMessage[] = [
    S('s'),
    U('build the orders service on postgres 16'),
    A(`done ${chars(3000, 1)}`),
    U('never commit unless I ask'),
    A(`ok ${chars(3000, 2)}`),
    U('[summary by the agent] The user wanted an orders service.'),
    A(`continuing ${chars(3000, 3)}`),
    U('now add pagination'),
    A(`added ${chars(3000, 4)}`),
    U('and a README'),
  ];
  const applied = applyRecordedCompactions(
    items(msgs),
    [{ replacedIds: ['e1', 'e2', 'e3', 'e4'], summary: 'The user wanted an orders service.', summaryEntryId: 'e5' }],
    meter,
  );
  const imported = applied.items.find((i) => i.kind === 'summary')!;
  // What the agent sent, then its answers in the span, then the requests its summary stands for, verbatim.
  const content = imported.message.content as string;
  assert.ok(content.startsWith("The user wanted an orders service.\n\n## Agent's answers and findings"), content);
  assert.match(content, /\n- \(to "build the orders service on postgres 16"\) "done /, content);
  assert.match(content, /\n- \(to "never commit unless I ask"\) "ok /, content);
  assert.ok(
    content.endsWith(
      '\n\n## Requests before this summary (typed by the user, verbatim)\n' +
        '- build the orders service on postgres 16\n- never commit unless I ask',
    ),
    content,
  );
  assert.deepEqual(imported.requests, ['build the orders service on postgres 16', 'never commit unless I ask']);
  const r = await compact({
    items: applied.items,
    meter,
    summarizer: new ExtractiveSummarizer(count),
    options: { budget: budget(2000), trigger: 'manual', force: true },
  });
  assert.ok(r.status.kind === 'applied', describeCompaction(r.status));
  const summary = r.checkpoints.find((c) => c.strategy === 'extractive')!.summary;
  assert.deepEqual(parseRequestsSection(summary).slice(0, 3), [
    'build the orders service on postgres 16',
    'never commit unless I ask',
    'now add pagination',
  ]);
});

test("Aider whole-file blocks and Cline's absolutePath writes are file operations with their symbols", () => {
  const aider = A(
    'I will create the server.\n\nsrc/server.ts\n```typescript\nexport function startServer(port: number) {\n  return listen(port);\n}\nclass Router {}\n```\n\nAnd the readme:\n\nREADME.md\n```\n# Orders\n```',
  );
  const cline = Acalls([
    [
      'c1',
      'write_to_file',
      JSON.stringify({
        absolutePath: 'c:\\app\\src\\db.ts',
        content: 'export const pool = () => connect();\nexport function query(sql) {}',
      }),
    ],
  ]);
  const ledger = buildLedger(actionsOf(items([U('go'), aider, cline, T('c1', 'File saved.')])));
  assert.ok(
    ledger.files.some((l) => /^- src\/server\.ts: edited; defines or changes: startServer, Router$/.test(l)),
    ledger.files.join('\n'),
  );
  assert.ok(ledger.files.some((l) => l.startsWith('- README.md: edited')));
  assert.ok(
    ledger.files.some((l) =>
      /^- c:\\app\\src\\db\.ts: created; defines or changes: (pool, query|query, pool)$/.test(l),
    ),
    ledger.files.join('\n'),
  );
  assert.deepEqual(ledger.edited, ['src/server.ts', 'README.md', 'c:\\app\\src\\db.ts']);
  // A fence without a path line before it is prose, not an edit.
  assert.deepEqual(actionsOf(items([A('Run this:\n```bash\nnpm test\n```')])), []);
});

test('current state survives any budget: last tool call, files edited most recently, the latest error line of a command', () => {
  const msgs: ChatMessage[] = [U('fix the build')];
  for (let k = 0; k < 6; k++) {
    msgs.push(
      Acalls(
        [[`w${k}`, 'edit', JSON.stringify({ path: `src/mod${k}.ts`, new_string: `export function f${k}() {}` })]],
        `step ${k}: ${chars(400, k)}`,
      ),
      T(`w${k}`, 'ok'),
    );
  }
  msgs.push(
    Acalls([['b1', 'bash', JSON.stringify({ command: 'javac -d out src/Main.java' })]]),
    T(
      'b1',
      `[INFO] scanning\nsrc/Main.java:3: import com.shop.OrderNotFoundException;\n${'[INFO] compiled one more module\n'.repeat(12)}Process exited with code 1`,
    ),
  );
  msgs.push(
    Acalls([['b2', 'bash', JSON.stringify({ command: 'grep -rn TODO src' })]]),
    T('b2', 'src/mod1.ts:1: TODO tidy'),
  );
  const notes = new ExtractiveSummarizer(count).notes(items(msgs), 40);
  assert.match(notes, /- Last tool call: bash command=grep -rn TODO src/);
  assert.match(
    notes,
    /- Files edited most recently: src\/mod1\.ts, src\/mod2\.ts, src\/mod3\.ts, src\/mod4\.ts, src\/mod5\.ts/,
  );
  assert.match(
    notes,
    /- Latest error line in command output \(`javac -d out src\/Main\.java`\): "src\/Main\.java:3: import com\.shop\.OrderNotFoundException;"/,
  );
  assert.doesNotMatch(notes, /^- In progress/m, 'other lines of the section give way first');
  assert.match(
    notes,
    /^- … left out here to fit the budget: [^\n]*from the current work: In progress/m,
    'and are named',
  );
  // A later summary that folds this one in, with no commands of its own, carries the lines forward.
  const again = new ExtractiveSummarizer(count).notes(
    [
      { id: 's1', kind: 'summary', message: { role: 'user', content: notes }, covers: ['e0'] },
      ...items([U('and the tests'), A('will do')]),
    ],
    400,
  );
  for (const line of [
    '- Last tool call: bash',
    '- Files edited most recently: src/mod1.ts',
    '- Latest error line in command output',
  ])
    assert.ok(again.includes(line), line);
});

test('the latest failure line comes from a run that failed: a file shown by cat that names an exception or a FAILED value is not one', () => {
  const cat = JSON.stringify({ command: 'cat src/main/java/app/UserService.java' });
  const source =
    'package app;\nimport app.exception.BusinessException;\nenum Status { PENDING, FAILED }\nthrow new BusinessException("User not found");';
  assert.deepEqual(failureLines(cat, source), []);
  assert.deepEqual(failureLines(cat, 'cat: src/main/java/app/UserService.java: No such file or directory'), [
    'cat: src/main/java/app/UserService.java: No such file or directory',
  ]);
  const build = JSON.stringify({ command: 'mvn -q test' });
  assert.deepEqual(failureLines(build, 'Tests run: 3, Failures: 1\nError: expected 200 but was 500\nexit code 1'), [
    'Error: expected 200 but was 500',
  ]);
  assert.deepEqual(failureLines(build, 'Tests run: 3, Failures: 0\nBUILD SUCCESS'), []);
  // In the notes: the later cat of a source file does not replace the real failure before it.
  const msgs: ChatMessage[] = [
    U('fix the build'),
    Acalls([['c1', 'bash', build]]),
    T('c1', 'Error: expected 200 but was 500\nexit code 1'),
    Acalls([['c2', 'bash', cat]]),
    T('c2', source),
  ];
  const notes = new ExtractiveSummarizer(count).notes(items(msgs), 2000);
  assert.match(notes, /- Latest error line in command output \(`mvn -q test`\): "Error: expected 200 but was 500"/);
});
