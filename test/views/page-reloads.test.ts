/**
 * A view's page that reports a lost stylesheet or font is loaded again after a pause, at most three
 * times per shown view, each logged; a report while a load is pending adds none; showing the view
 * again gives a new allowance. The Context view wires a `resourcesLost` message to a new page.
 */
import '../support/vscode-fake/register';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type * as vscode from 'vscode';
import { PageReloads } from '../../src/views/sidebar/page-reloads';
import { SidebarProvider, type SidebarSource } from '../../src/views/sidebar/sidebar-provider';
import { EventEmitter, resetVscodeFake, Uri } from '../support/vscode-fake';
import { FakeLogChannel } from '../support/vscode-fake/window-parts';

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('a lost resource loads the page again after the pause, three times at most, then says it stops', async () => {
  const log = new FakeLogChannel('test');
  let loads = 0;
  const reloads = new PageReloads('Context view', log, () => loads++, 3, 5);
  reloads.lost('the stylesheet codicon.css');
  reloads.lost('the font codicon');
  assert.equal(loads, 0, 'not before the pause');
  await pause(20);
  assert.equal(loads, 1, 'a report while a load is pending adds none');
  for (let i = 0; i < 3; i++) {
    reloads.lost('the stylesheet codicon.css');
    await pause(20);
  }
  assert.equal(loads, 3);
  assert.deepEqual(log.lines.slice(0, 3), [
    '[warn] Context view: the page lost the stylesheet codicon.css (a request the browser host did not serve); loading it again (1 of 3).',
    '[warn] Context view: the page lost the stylesheet codicon.css (a request the browser host did not serve); loading it again (2 of 3).',
    '[warn] Context view: the page lost the stylesheet codicon.css (a request the browser host did not serve); loading it again (3 of 3).',
  ]);
  assert.equal(
    log.lines.at(-1),
    '[warn] Context view: the page lost the stylesheet codicon.css again; it was loaded 3 times and stays as it is.',
  );
  reloads.reset();
  reloads.lost('the font codicon');
  await pause(20);
  assert.equal(loads, 4, 'shown again: a new allowance');
  reloads.lost('the font codicon');
  reloads.dispose();
  await pause(20);
  assert.equal(loads, 4, 'disposed: the pending load is dropped');
});

test('the Context view sets a new page when its page reports a lost resource', async (t) => {
  resetVscodeFake();
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const received = new EventEmitter<unknown>();
  const never = new EventEmitter<void>();
  const view = {
    visible: true,
    onDidChangeVisibility: never.event,
    onDidDispose: never.event,
    webview: {
      options: {},
      html: '',
      cspSource: 'vscode-webview://fake',
      asWebviewUri: (uri: vscode.Uri) => uri,
      postMessage: async () => true,
      onDidReceiveMessage: received.event,
    },
  };
  const log = new FakeLogChannel('test');
  const provider = new SidebarProvider(
    Uri.file('/ext'),
    () => ({}) as unknown as SidebarSource,
    log,
    () => undefined,
  );
  provider.resolveWebviewView(view as unknown as vscode.WebviewView);
  const first = view.webview.html;
  received.fire({ type: 'resourcesLost', what: 'the stylesheet codicon.css' });
  assert.equal(view.webview.html, first, 'not before the pause');
  t.mock.timers.tick(1_000);
  assert.notEqual(view.webview.html, first, 'a new page (a new nonce)');
  assert.match(view.webview.html, /Content-Security-Policy/);
  assert.ok(log.lines.some((l) => /Context view: the page lost the stylesheet codicon\.css/.test(l)));
  provider.dispose();
});
