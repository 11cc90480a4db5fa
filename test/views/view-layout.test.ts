/**
 * The sidebar's initial layout: the Context view (gauge, task box and transcript) gets the largest
 * share of the ContextKeeper container, the Agent Sessions list (a few rows) the smallest. VS Code
 * honours `initialSize` because the extension owns the container.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';

interface ViewContribution {
  id: string;
  initialSize?: number;
}
const manifest = JSON.parse(readFileSync(path.resolve(__dirname, '../../../package.json'), 'utf8')) as {
  contributes: { views: Record<string, ViewContribution[]>; viewsContainers: { activitybar: Array<{ id: string }> } };
};

test('the Context view opens largest and Agent Sessions smallest in the container the extension owns', () => {
  assert.ok(manifest.contributes.viewsContainers.activitybar.some((c) => c.id === 'contextKeeper'));
  const views = manifest.contributes.views.contextKeeper;
  const size = (id: string) => views.find((v) => v.id === id)?.initialSize;
  for (const view of views) assert.equal(typeof view.initialSize, 'number', `${view.id} has an initial size`);
  const context = size('contextKeeper.sidebar')!;
  for (const view of views)
    if (view.id !== 'contextKeeper.sidebar')
      assert.ok(context > view.initialSize!, `Context is larger than ${view.id}`);
  assert.equal(Math.min(...views.map((v) => v.initialSize!)), size('contextKeeper.agentSessions'));
});
