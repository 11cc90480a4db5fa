/**
 * What holds the tokens of a context, by the parts a compaction treats differently: the system prompt
 * and tool schemas (never touched), summaries (earlier and imported ones), the latest request, the
 * newest agent steps (kept verbatim unless the context cannot fit) and the rest of the history. Used
 * to say truthfully why a context does not fit its window.
 */
import type { ContextItem, ToolSchema } from '../types';
import type { TokenMeter } from '../meter/meter';
import { analyzeTable, KIND, REGION } from './structure';

/** Tokens of a context by part, in tokens; `total` is the meter's total (their sum plus reply priming). */
export interface TokenHolders {
  /** Leading system/developer messages plus the tool schemas. */
  systemAndTools: number;
  /** Summary items (this product's and those imported from a recording), wherever they stand. */
  summaries: number;
  /** The latest real user message. */
  latestRequest: number;
  /** The newest `keepRecentSteps` agent steps of the current task (and steps still waiting for results). */
  newestSteps: number;
  /** Everything else: older history, collapsed records, clipped messages outside the newest steps. */
  history: number;
  total: number;
  /**
   * The messages over the input budget by themselves, when the budget was given: no compaction that
   * keeps them whole can make the request fit. Largest first, at most {@link OVERSIZED_LISTED}.
   */
  oversized?: OversizedMessage[];
}

/** One message larger than the input budget by itself. */
export interface OversizedMessage {
  /** Its position in the conversation, counted from 1 over the raw messages (the positions `recall` cites). */
  position: number;
  role: string;
  /** What it is: `system prompt`, `latest request`, `summary`, `tool result`, `message`. */
  part: string;
  tokens: number;
}

/** Most oversized messages listed. */
export const OVERSIZED_LISTED = 5;

/**
 * Splits the tokens of `items` (with `tools`) into {@link TokenHolders}. O(items).
 * @param keepRecentSteps newest agent steps counted as `newestSteps`
 * @param inputBudget when given (tokens), the messages over it by themselves are listed as `oversized`
 */
export function tokenHolders(
  items: readonly ContextItem[],
  meter: TokenMeter,
  tools: readonly ToolSchema[] | undefined,
  keepRecentSteps: number,
  inputBudget?: number,
): TokenHolders {
  const m = meter.measure(items, tools);
  const t = analyzeTable(items, keepRecentSteps);
  const h: TokenHolders = {
    systemAndTools: m.breakdown.tools,
    summaries: 0,
    latestRequest: 0,
    newestSteps: 0,
    history: 0,
    total: m.total,
  };
  for (let k = 0; k < t.count; k++) {
    let sum = 0;
    for (let i = t.start[k]; i < t.end[k]; i++) {
      // A summary counts as a summary wherever the structure puts it.
      if (items[i].kind === 'summary') h.summaries += m.perItem[i];
      else sum += m.perItem[i];
    }
    if (t.kind[k] === KIND.system) h.systemAndTools += sum;
    else if (t.kind[k] === KIND.request) h.latestRequest += sum;
    else if (t.kind[k] === KIND.step && t.region[k] === REGION.current && !t.eligible[k]) h.newestSteps += sum;
    else h.history += sum;
  }
  if (inputBudget !== undefined) {
    const over: OversizedMessage[] = [];
    let position = 1;
    for (let k = 0, i = 0; i < items.length; i++) {
      while (k < t.count && t.end[k] <= i) k++;
      if (m.perItem[i] > inputBudget) {
        const it = items[i];
        const part =
          it.kind === 'summary'
            ? 'summary'
            : t.kind[k] === KIND.system
              ? 'system prompt'
              : t.kind[k] === KIND.request
                ? 'latest request'
                : it.message.role === 'tool'
                  ? 'tool result'
                  : 'message';
        over.push({ position, role: it.message.role, part, tokens: m.perItem[i] });
      }
      position += items[i].covers.length;
    }
    h.oversized = over.sort((a, b) => b.tokens - a.tokens).slice(0, OVERSIZED_LISTED);
  }
  return h;
}

/**
 * `tokenHolders(...).systemAndTools` alone, from the leading system/developer messages (summaries
 * among them count as summaries there) and the tool schemas, in tokens, without reading the rest
 * of the context. `perItem`: the meter's counts of `items`.
 */
export function systemAndToolsTokens(
  items: readonly ContextItem[],
  perItem: readonly number[],
  meter: TokenMeter,
  tools: readonly ToolSchema[] | undefined,
): number {
  let n = meter.countTools(tools);
  for (let i = 0; i < items.length; i++) {
    const role = items[i].message.role;
    if (role !== 'system' && role !== 'developer') break;
    if (items[i].kind !== 'summary') n += perItem[i];
  }
  return n;
}

/**
 * The sentence saying that the system prompt and tool schemas alone (`tokens`) are over what a
 * request may carry (`inputBudget`: the `contextWindow` less `reservedOutput`), with the figures:
 * no request can fit, whatever a compaction rewrites, and what can be done about it. Tokens throughout.
 */
export function describeFixedOverBudget(
  tokens: number,
  inputBudget: number,
  contextWindow: number,
  reservedOutput: number,
): string {
  const n = (x: number) => x.toLocaleString('en-US');
  return `the system prompt and tool schemas alone hold ${n(tokens)} tokens, over the ${n(inputBudget)} a request may carry (the ${n(contextWindow)}-token window less ${n(reservedOutput)} reserved for the reply), so no request can fit whatever is compacted; the rest of the context is still compacted (use a model with a larger window, fewer tools or a shorter system prompt)`;
}

/**
 * One sentence naming what holds the tokens, largest part first, with figures: "the system prompt
 * and tool schemas hold 1,200 tokens, summaries 5,400, the newest agent step 2,100, the latest request
 * 300". Parts holding nothing are left out; a context with no system prompt or tools says so, and
 * one whose system prompt and tool schemas alone reach `inputBudget` (tokens) says that nothing can help.
 */
export function describeHolders(h: TokenHolders, inputBudget?: number): string {
  const n = (x: number) => x.toLocaleString('en-US');
  const parts: Array<[string, number]> = [
    ['the system prompt and tool schemas', h.systemAndTools],
    ['summaries (earlier and imported)', h.summaries],
    ['the latest request', h.latestRequest],
    ['the newest agent steps', h.newestSteps],
    ['other history', h.history],
  ];
  const held = parts.filter(([, v]) => v > 0).sort((a, b) => b[1] - a[1]);
  if (held.length === 0) return 'the context holds no messages';
  const text = held
    .map(([name, v], k) =>
      k === 0
        ? `${name} hold${name.startsWith('the latest') || name.startsWith('other') ? 's' : ''} ${n(v)} tokens`
        : `${name} ${n(v)}`,
    )
    .join(', ');
  if (h.systemAndTools === 0) return `${text} (there is no system prompt or tool schema)`;
  // Nothing a compaction may rewrite can help then: say so rather than blame the messages.
  const alone = describeOversized(h.oversized ?? [], inputBudget);
  if (inputBudget !== undefined && h.systemAndTools >= inputBudget)
    return `${text}; the system prompt and tool schemas alone are over the budget of ${n(inputBudget)}, so no compaction can make the request fit${alone}`;
  return text + alone;
}

/**
 * The messages over the budget by themselves, as a clause: "; over the budget by itself: message 1
 * (system prompt, 14,688 tokens)". Empty when there is none.
 */
function describeOversized(over: readonly OversizedMessage[], inputBudget: number | undefined): string {
  if (over.length === 0) return '';
  const n = (x: number) => x.toLocaleString('en-US');
  const list = over.map((o) => `message ${o.position} (${o.part}, ${n(o.tokens)} tokens)`).join(', ');
  const budget = inputBudget === undefined ? 'the budget' : `the budget of ${n(inputBudget)}`;
  return `; over ${budget} by ${over.length === 1 ? 'itself' : 'themselves'}: ${list}`;
}
