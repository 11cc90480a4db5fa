/**
 * The views' HTML shell puts the bundled script and the stylesheet inline under the page's nonce, so a
 * view starts even when its resource requests are lost (a browser-hosted VS Code whose shared service
 * worker misses them); a closing tag inside either cannot end its element; a file that cannot be read
 * is linked as a resource instead.
 */
import '../support/vscode-fake/register';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type * as vscode from 'vscode';
import { renderWebviewHtml } from '../../src/views/sidebar/webview-html';
import { Uri } from '../support/vscode-fake';

const webview = {
  cspSource: 'vscode-webview://fake',
  asWebviewUri: (uri: vscode.Uri) => uri.with({ scheme: 'vscode-webview-resource' }),
} as unknown as vscode.Webview;

test('the script and the stylesheet are inline under the nonce; closing tags inside them are escaped', (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'ck-html-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(path.join(dir, 'dist'));
  mkdirSync(path.join(dir, 'media'));
  writeFileSync(path.join(dir, 'dist', 'view.js'), 'window.tag = "</script><b>bold</b>"; window.ran = 1;');
  writeFileSync(path.join(dir, 'media', 'main.css'), 'body { color: red; } /* </style> */');
  const html = renderWebviewHtml(webview, Uri.file(dir), 'view.js');
  const nonce = /script-src 'nonce-([^']+)'/.exec(html)?.[1];
  assert.ok(nonce);
  const script = new RegExp(`<script nonce="${nonce.replace(/[+/=]/g, '\\$&')}">\\n([\\s\\S]*?)\\n</script>`).exec(
    html,
  );
  assert.equal(script?.[1], 'window.tag = "<\\/script><b>bold</b>"; window.ran = 1;');
  assert.equal(html.match(/<\/script>/g)?.length, 1, 'one closing script tag: the element itself');
  assert.match(html, /<style nonce="[^"]+">\nbody \{ color: red; \} \/\* <\\\/style> \*\/\n<\/style>/);
  assert.doesNotMatch(html, /<script[^>]*\bsrc=/, 'no script loaded as a resource');
  assert.match(
    html,
    /<link rel="stylesheet" nonce="[^"]+" href="vscode-webview-resource:[^"]*\/dist\/codicons\/codicon\.css">/,
  );
});

test('a bundled file that cannot be read is linked as a resource instead', () => {
  const html = renderWebviewHtml(webview, Uri.file('/no/such/extension'), 'view.js');
  assert.match(html, /<script nonce="[^"]+" src="vscode-webview-resource:[^"]*\/dist\/view\.js"><\/script>/);
  assert.match(html, /<link rel="stylesheet" nonce="[^"]+" href="vscode-webview-resource:[^"]*\/media\/main\.css">/);
});
