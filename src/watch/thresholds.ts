/**
 * Where other agents compact their own context, so the gauge of a watched session can say "this agent
 * compacts at about N". Figures are approximate by nature: agents change them between releases and
 * users can override them.
 */
import type { WatchedFormat } from './formats';

/** An agent's own compaction trigger, in prompt tokens, with the origin of the figure. */
export interface AgentThreshold {
  tokens: number;
  /** Human-readable origin of the figure. */
  source: string;
}

/**
 * Claude Code 2.x compacts when the context reaches the window minus the output it reserves for the
 * summary (20,000 tokens) minus a 13,000-token buffer (public analyses of its auto-compact; users can
 * move it with CLAUDE_AUTOCOMPACT_PCT_OVERRIDE). Codex's trigger (`model_auto_compact_token_limit`)
 * depends on its configuration and is not recorded in its rollouts, so it is not guessed.
 * @param window the session's context window in tokens
 */
export function agentCompactionThreshold(format: WatchedFormat, window: number): AgentThreshold | undefined {
  if (format === 'claude-code') {
    const override = Number(process.env.CLAUDE_AUTOCOMPACT_PCT_OVERRIDE);
    if (Number.isFinite(override) && override > 0 && override <= 100) {
      return { tokens: Math.floor((window * override) / 100), source: `CLAUDE_AUTOCOMPACT_PCT_OVERRIDE=${override}` };
    }
    const tokens = window - 20_000 - 13_000;
    return tokens > 0 ? { tokens, source: 'Claude Code: window − 20k reserved output − 13k buffer' } : undefined;
  }
  return undefined;
}
