/**
 * How the context service listens to its agent: the safe point and context-length hooks go to the
 * compaction coordinator, usage to the meter, state to the service status, and the rest become the
 * service's events.
 */
import type { AgentHooks } from '../agent/session';
import type { ContextOverflow } from '../models/context-errors';
import type { Compactions } from './compaction/compactions';
import type { ServiceEvents } from './service-events';
import type { ServiceStatus } from './status';

/** What the hooks reach. `compactions` is read at call time (it is built after the agent). */
export interface AgentHookTargets {
  compactions: () => Compactions;
  recordUsage: (promptTokens: number, cachedTokens: number) => void;
  /** A refusal for length, before it is compacted for: the service adopts a smaller stated window. */
  serverWindow?: (overflow: ContextOverflow) => void;
  status: ServiceStatus;
  events: ServiceEvents;
  /** Settles when the meter counts exactly (its tokenizer table loaded); undefined when it always does. */
  tokenizerReady?: () => Promise<void> | undefined;
}

/** The agent hooks of one context service. */
export function agentHooks(t: AgentHookTargets): AgentHooks {
  return {
    // Thresholds are checked on exact counts: wait for the tokenizer if it is still loading.
    beforeModelCall: async (_info, signal) => {
      await t.tokenizerReady?.();
      return t.compactions().atSafePoint(signal);
    },
    onContextOverflow: ({ overflow }, signal) => {
      t.serverWindow?.(overflow);
      return t.compactions().afterOverflow(overflow, signal);
    },
    onUsage: (usage) => t.recordUsage(usage.promptTokens, usage.cachedTokens),
    onStateChange: (state, detail) => t.status.agent(state, detail),
    onTextDelta: (entryId, delta) => t.events.streamText.fire({ entryId, delta }),
    onToolCall: (call, entryId) =>
      t.events.toolCallStarted.fire({ callId: call.id, name: call.name, arguments: call.arguments, entryId }),
    onToolResult: (call, outcome, entryId, durationMs) =>
      t.events.toolCallFinished.fire({
        callId: call.id,
        name: call.name,
        ok: outcome.ok,
        cancelled: outcome.cancelled === true,
        entryId,
        content: outcome.content,
        size: outcome.content.length,
        durationMs,
      }),
  };
}
