/**
 * The sidebar's HTML shell: a strict Content-Security-Policy with a fresh nonce, the bundled script
 * (`dist/webview.js`) and its stylesheet put inline under that nonce, and the codicon font. No inline
 * script or style runs without the nonce, nothing may be loaded from outside the extension, and there
 * is no `unsafe-eval`. The page has one narrow live region (`#status`, role=status) for state changes
 * and compactions; the app itself is not live, so streamed text is not read out word by word.
 *
 * Why inline: a browser-hosted VS Code (code-server) serves every webview from one origin, so the
 * webviews share one service worker, and each webview registers it again under its own id. When two
 * views are (re)created at once, as when the side bar opens with the Context and Watched Agent views,
 * one view's resource requests can miss the worker and go to the network
 * (`net::ERR_NAME_NOT_RESOLVED` on the `vscode-cdn.net` resource host). A script loaded as a resource
 * then never runs, and the view stays on its "Loading…" shell for good. Inline, the script and the
 * stylesheet arrive with the page; only the icon font is still a resource (a lost font costs icons,
 * not the view).
 */
import * as vscode from 'vscode';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
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

/** Texts of the bundled files put inline, by path: read once (they change only with the installed version). */
const inlineTexts = new Map<string, string | null>();

/**
 * The text of the extension file at `segments`, safe inside a `<script>` or `<style>` element (a closing
 * tag in it is escaped); undefined when it cannot be read, and the page then loads it as a resource.
 */
function inlineText(extensionUri: vscode.Uri, segments: readonly string[]): string | undefined {
  // eslint-disable-next-line no-restricted-syntax -- bounded: the segments of an asset path
  const file = vscode.Uri.joinPath(extensionUri, ...segments).fsPath;
  let text = inlineTexts.get(file);
  if (text === undefined) {
    try {
      // `<\/` reads as `</` in JavaScript strings and regular expressions and in CSS, but ends no element.
      text = readFileSync(file, 'utf8').replace(/<\/(script|style)/gi, '<\\/$1');
    } catch {
      text = null;
    }
    inlineTexts.set(file, text);
  }
  return text ?? undefined;
}

/**
 * The HTML document of a view whose script is `dist/<script>` (the sidebar's, or the Watched Agent
 * view's), with the same policy, stylesheet and status region. The script and `media/main.css` are put
 * inline under the nonce (see the module comment); either is linked as a resource when it cannot be read.
 */
export function renderWebviewHtml(webview: vscode.Webview, extensionUri: vscode.Uri, script: string): string {
  const nonce = createNonce();
  const asset = (...segments: string[]) =>
    // eslint-disable-next-line no-restricted-syntax -- bounded: the segments of an asset path
    webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, ...segments)).toString();
  const css = inlineText(extensionUri, ['media', 'main.css']);
  const js = inlineText(extensionUri, ['dist', script]);
  const style =
    css === undefined
      ? `<link rel="stylesheet" nonce="${nonce}" href="${asset('media', 'main.css')}">`
      : `<style nonce="${nonce}">\n${css}\n</style>`;
  const code =
    js === undefined
      ? `<script nonce="${nonce}" src="${asset('dist', script)}"></script>`
      : `<script nonce="${nonce}">\n${js}\n</script>`;
  return `<!DOCTYPE html>
<html lang="en" data-locale="${displayLocale()}">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${contentSecurityPolicy(webview.cspSource, nonce)}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" nonce="${nonce}" href="${asset('dist', 'codicons', 'codicon.css')}">
${style}
<title>ContextKeeper</title>
</head>
<body>
<div id="status" class="sr-only" role="status" aria-live="polite" aria-atomic="true"></div>
<main id="app"><p class="loading">Loading…</p></main>
<div id="ck-stats" hidden></div>
${code}
</body>
</html>`;
}
