/**
 * The command-line tool's live commands: `watch FILE` follows a Claude Code or Codex session as it
 * grows and prints one line per update; `sessions [DIR]` lists the sessions of a workspace folder.
 */
import fs from 'node:fs';
import path from 'node:path';
import { SessionWatcher, followFile, type WatchUpdate } from '../watch/watcher';
import { discoverSessions } from '../watch/discovery';
import { gauge as gaugeText } from './format';
import { formatTokens, plural } from '../format/tokens';
import { formatInteger } from '../format/display';

type Out = (line: string) => void;

/** The JSON object `watch --json` prints per update. */
export function watchRecord(u: WatchUpdate): Record<string, unknown> {
  const g = u.gauge;
  return {
    time: new Date().toISOString(),
    format: g.format,
    model: g.model ?? null,
    tokens: g.tokens,
    reportedTokens: g.reportedTokens ?? null,
    usedTokens: g.usedTokens,
    basis: g.basis,
    window: g.window,
    windowSource: g.windowSource,
    agentCompactsAt: g.agentCompactsAt?.tokens ?? null,
    checkpoints: g.checkpoints,
    messages: g.messages,
    lines: g.lines,
    badLines: g.badLines,
    bytesRead: u.bytesRead,
    skippedBytes: g.skippedBytes ?? 0,
    restarted: u.restarted,
  };
}

/** One human line per update. */
export function watchLine(u: WatchUpdate): string {
  const g = u.gauge;
  const reported =
    g.reportedTokens !== undefined
      ? ` (provider reported ${formatTokens(g.reportedTokens)}, exact, + ${formatTokens(g.usedTokens - g.reportedTokens)} since; ${formatTokens(g.tokens)} counted in the file)`
      : ` (counted; the agent's system prompt and tools are not in the file)`;
  const bad = g.badLines ? `, ${plural(g.badLines, 'unreadable line', 'unreadable lines')} skipped` : '';
  const agent = g.agentCompactsAt ? `, agent compacts at about ${formatTokens(g.agentCompactsAt.tokens)}` : '';
  const restarted = u.restarted ? ' [file replaced: read again]' : '';
  const skipped = g.skippedBytes
    ? ` [large file: read from byte ${formatInteger(g.skippedBytes)}, the agent's last compaction or the last 16 MiB]`
    : '';
  return `${new Date().toLocaleTimeString()} ${gaugeText(g.usedTokens, g.window, 1, 1, 30)}${reported}${agent}, ${plural(g.checkpoints, 'checkpoint', 'checkpoints')}, ${plural(g.messages, 'message', 'messages')}${bad}${restarted}${skipped}`;
}

/**
 * `watch FILE`: prints the gauge now and after every change until interrupted (SIGINT/SIGTERM) or,
 * with `idleExitMs`, until no change for that long.
 * @throws Error naming the file when it is not a Claude Code or Codex session
 */
export async function watchCommand(
  file: string,
  o: { json?: boolean; interval?: number; idleExitMs?: number },
  out: Out,
): Promise<void> {
  // Counted synchronously: the first count loads the tokenizer's table on this thread, which only
  // delays this short-lived process's first line (the extension host passes deferred counters).
  const watcher = new SessionWatcher(file);
  await new Promise<void>((resolve) => {
    let idle: NodeJS.Timeout | undefined;
    const armIdle = () => {
      if (!o.idleExitMs) return;
      if (idle) clearTimeout(idle);
      idle = setTimeout(stop, o.idleExitMs);
    };
    const follow = followFile(
      watcher,
      (u) => {
        out(o.json ? JSON.stringify(watchRecord(u)) : watchLine(u));
        armIdle();
      },
      (err) => process.stderr.write(`context-keeper: ${path.basename(file)}: ${(err as Error).message}\n`),
      o.interval ?? 250,
    );
    function stop() {
      follow.dispose();
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      if (idle) clearTimeout(idle);
      resolve();
    }
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
    armIdle();
  });
}

/**
 * `sessions [DIR]`: the Claude Code and Codex sessions recorded for a workspace folder.
 * @throws Error when DIR is not an existing folder
 */
export function sessionsCommand(dir: string | undefined, o: { json?: boolean; folder?: string[] }, out: Out): void {
  const workspace = path.resolve(dir ?? process.cwd());
  if (!fs.existsSync(workspace) || !fs.statSync(workspace).isDirectory())
    throw new Error(`${workspace} is not a folder`);
  const found = discoverSessions(workspace, { extraFolders: o.folder });
  if (o.json) {
    out(
      JSON.stringify(
        found.map((s) => ({
          path: s.file,
          agent: s.agent,
          size: s.size,
          lastActivity: new Date(s.lastActivity).toISOString(),
        })),
        null,
        2,
      ),
    );
    return;
  }
  if (!found.length) {
    out(`no Claude Code or Codex sessions found for ${workspace}`);
    return;
  }
  for (const s of found) {
    out(
      `${new Date(s.lastActivity).toLocaleString()}  ${s.agent.padEnd(11)} ${String(Math.round(s.size / 1024)).padStart(8)} KiB  ${s.file}`,
    );
  }
}
