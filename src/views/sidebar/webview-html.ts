/**
 * The sidebar's HTML shell: a strict Content-Security-Policy with a fresh nonce, the bundled script
 * (`dist/webview.js`), its stylesheet and the codicon font. No inline script or style runs without the
 * nonce, nothing may be loaded from outside the extension, and there is no `unsafe-eval`. The page has
 * one narrow live region (`#status`, role=status) for state changes and compactions; the app itself
 * is not live, so streamed text is not read out word by word.
 */
import * as vscode from 'vscode';
import { randomBytes } from 'node:crypto';
import { displayLocale } from '../../format/display';

/** A base64 nonce of 128 random bits. */
export function createNonce(): string {
  return randomBytes(16).toString('base64');
}

/** The CSP for a webview whose resources all come from `cspSource`. */
export function contentSecurityPolicy(cspSource: string, nonce: string): string {
  return [
    "default-src 'none'",
    `style-src ${cspSource} 'nonce-${nonce}'`,
    `font-src ${cspSource}`,
    `img-src ${cspSource} data:`,
    `script-src 'nonce-${nonce}'`,
  ].join('; ');
}

/** Folders the webview may load from (passed as `localResourceRoots`). */
export function webviewRoots(extensionUri: vscode.Uri): vscode.Uri[] {
  return [vscode.Uri.joinPath(extensionUri, 'dist'), vscode.Uri.joinPath(extensionUri, 'media')];
}

/** The full HTML document of the sidebar. */
export function renderSidebarHtml(webview: vscode.Webview, extensionUri: vscode.Uri): string {
  return renderWebviewHtml(webview, extensionUri, 'webview.js');
}

/**
 * The HTML document of a view whose script is `dist/<script>` (the sidebar's, or the Watched Agent
 * view's), with the same policy, stylesheet and status region.
 */
export function renderWebviewHtml(webview: vscode.Webview, extensionUri: vscode.Uri, script: string): string {
  const nonce = createNonce();
  const asset = (...segments: string[]) =>
    // eslint-disable-next-line no-restricted-syntax -- bounded: the segments of an asset path
    webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, ...segments)).toString();
  return `<!DOCTYPE html>
<html lang="en" data-locale="${displayLocale()}">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${contentSecurityPolicy(webview.cspSource, nonce)}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" nonce="${nonce}" href="${asset('dist', 'codicons', 'codicon.css')}">
<link rel="stylesheet" nonce="${nonce}" href="${asset('media', 'main.css')}">
<title>ContextKeeper</title>
</head>
<body>
<div id="status" class="sr-only" role="status" aria-live="polite" aria-atomic="true"></div>
<main id="app"><p class="loading">Loading…</p></main>
<div id="ck-stats" hidden></div>
<script nonce="${nonce}" src="${asset('dist', script)}"></script>
</body>
</html>`;
}
