/**
 * The "Watched Agent" webview script (bundled by esbuild to dist/agent-webview.js): draws the gauge of
 * the Claude Code or Codex session the Agent Sessions view follows, with the Context view's own gauge
 * template. Posts `ready` (and `resourcesLost`, see resource-watch.ts); renders every `agentGauge` message the host sends (each is complete).
 */
import { html, render } from 'lit-html';
import { gauge } from './panels.js';
import type { AgentGaugeMessage } from './shared/agent-gauge.js';
import { watchResources } from './resource-watch.js';

interface VsCodeApi {
  postMessage(message: { type: 'ready' } | { type: 'resourcesLost'; what: string }): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

const vscode = acquireVsCodeApi();
const app = document.getElementById('app')!;
// lit-html renders after what a container already holds: the shell's "Loading…" goes before the first render.
let first = true;

function draw(message: AgentGaugeMessage): void {
  if (first) app.replaceChildren();
  first = false;
  const v = message.view;
  render(
    v
      ? html`<div class="agent-gauge" data-test="agent-gauge" data-used=${v.budget.used}>
          <p class="agent-session" title=${v.session}>${v.session}</p>
          ${gauge(v.budget, v)}
        </div>`
      : html`<p class="empty" data-test="agent-gauge-empty">${message.note ?? 'No agent session is followed.'}</p>`,
    app,
  );
}

window.addEventListener('message', (event: MessageEvent<unknown>) => {
  const data = event.data as AgentGaugeMessage | undefined;
  if (data && data.type === 'agentGauge') draw(data);
});
watchResources((what) => vscode.postMessage({ type: 'resourcesLost', what }));
vscode.postMessage({ type: 'ready' });
