/**
 * Where everything on the budget gauge's bar stands, as CSS percentages of the bar. Pure: no DOM and
 * no `vscode` import, so the placement is unit-tested and the webview only draws it.
 *
 * The bar's scale is the model's window, widened to the context (or the peak) when that is larger:
 * a context past its budget is then drawn to its true size, the part over the prompt budget as a
 * distinct overflow segment, and the compaction marks, the window's end and the peak keep their
 * true places on the same scale (instead of every mark crowding inside a bar filled to the edge).
 */
import type { BudgetView } from './protocol';
import { RECORDING_COUNT_BASIS, recordedK, recordedReason } from '../../transcripts/reported';
import { formatTokens, formatTokensFull } from '../../format/tokens';
import type { CheckpointRunView } from './checkpoint-runs';

/** Positions on the bar, each a CSS percentage string ("42.00%"). */
export interface GaugeGeometry {
  /** Tokens the whole bar stands for: max(window, used, peak). */
  scale: number;
  /** True when the context is over the prompt budget (`used > inputBudget`). */
  over: boolean;
  /** Tokens over the prompt budget (0 when within it). */
  overTokens: number;
  /** `used` as a whole-number percentage of the prompt budget (e.g. 236). */
  usedPercent: number;
  /** Width of each breakdown category's segment, in category order of the breakdown. */
  segments: Record<Exclude<keyof BudgetView['breakdown'], 'unrecorded' | 'harness'>, string> & {
    unrecorded?: string;
    harness?: string;
  };
  /** The reply reserve: from the prompt budget's end to the window's end. */
  reserved: { left: string; width: string };
  /** The part of the context over the prompt budget, drawn over the segments; absent within budget. */
  overflow?: { left: string; width: string };
  /** The window's end, when the bar reaches beyond it. */
  windowEnd?: string;
  /** The compaction trigger and target marks. */
  at: string;
  to: string;
  /** The peak mark, when the budget has a peak. */
  peak?: string;
}

/** `n` tokens as a CSS percentage of `scale` tokens, clamped to the bar. */
function pct(n: number, scale: number): string {
  return `${scale > 0 ? Math.max(0, Math.min(100, (n / scale) * 100)).toFixed(2) : '0'}%`;
}

/** Places every part of the gauge for `budget` (all sizes in tokens). */
export function gaugeGeometry(
  budget: Pick<BudgetView, 'used' | 'window' | 'inputBudget' | 'compactAt' | 'compactTo' | 'breakdown' | 'peak'>,
): GaugeGeometry {
  const scale = Math.max(budget.window, budget.used, budget.peak?.tokens ?? 0, 1);
  const at = (n: number) => pct(n, scale);
  const over = budget.used > budget.inputBudget;
  const b = budget.breakdown;
  return {
    scale,
    over,
    overTokens: Math.max(0, budget.used - budget.inputBudget),
    usedPercent: budget.inputBudget > 0 ? Math.round((budget.used / budget.inputBudget) * 100) : 0,
    segments: {
      system: at(b.system),
      instructions: at(b.instructions),
      ...(b.unrecorded !== undefined ? { unrecorded: at(b.unrecorded) } : {}),
      tools: at(b.tools),
      history: at(b.history),
      summaries: at(b.summaries),
      currentTask: at(b.currentTask),
      ...(b.harness !== undefined ? { harness: at(b.harness) } : {}),
    },
    reserved: { left: at(budget.inputBudget), width: at(budget.window - budget.inputBudget) },
    ...(over ? { overflow: { left: at(budget.inputBudget), width: at(budget.used - budget.inputBudget) } } : {}),
    ...(scale > budget.window ? { windowEnd: at(budget.window) } : {}),
    at: at(budget.compactAt),
    to: at(budget.compactTo),
    ...(budget.peak ? { peak: at(budget.peak.tokens) } : {}),
  };
}

/**
 * The short note after the window on the gauge, from the window's source sentence (see
 * `describeWindow` and `recordingWindow`): " (reported)", " (model table)", " (settings)",
 *  " (assumed)", " (recorded)" (the window the recording's file states), " (recording's model)" or
 * " (configured model's)"; '' when unknown.
 */
export function windowOriginNote(source: string | undefined): string {
  if (!source) return '';
  // An imported recording: its own model's window, or the configured one standing in.
  if (source.includes('window of configured model')) return " (configured model's)";
  if (source.includes('recorded in the file')) return ' (recorded)';
  if (source.includes("recording's model")) return " (recording's model)";
  // What follows "N tokens," (N itself holds commas: "32,768 tokens, reported by the server").
  const where = source.slice(source.indexOf('tokens,') + 'tokens,'.length).trim();
  if (where.startsWith('assumed')) return ' (assumed)';
  // First: a setting's label may go on to name the user setting a workspace value overrides.
  if (/^from (\w+ )?settings\b/.test(where)) return ' (settings)';
  if (where.includes('server') || where.includes('VS Code')) return ' (reported)';
  if (where.includes('table')) return ' (model table)';
  return '';
}

/**
 * The line under an imported recording's gauge naming the provider's own figure for its newest
 * request ("recorded by the provider: 135.5k prompt tokens, …"), or undefined when the recording
 * holds no usage. It says why the figure differs from the count: above it, the request held what the
 * recording does not (system prompt, tool schemas, hidden reasoning); well below it, the agent had
 * condensed or cut its own context (see `recordedReason`); after ContextKeeper compacted the context,
 * the figure is compared with the recording as imported (`importedTokens`). The gauge's own figure is
 * {@link RECORDING_COUNT_BASIS}, as the command line's `meter` counts it, which is what compaction acts on.
 */
export function recordedPromptNote(budget: {
  used: number;
  recordedPromptTokens?: number;
  importedTokens?: number;
}): string | undefined {
  const recorded = budget.recordedPromptTokens;
  if (recorded === undefined) return undefined;
  return `Recorded by the provider: ${recordedK(recorded)} prompt tokens for the recording's newest request, ${recordedReason(recorded, budget.used, budget.importedTokens)}. The gauge counts ${RECORDING_COUNT_BASIS}: ${formatTokensFull(budget.used)} tokens.`;
}

/** The over-budget warning under the gauge, and the compaction run it offers to restore, if any. */
export interface OverBudgetAdvice {
  text: string;
  /** Id of the newest compaction run not restored, offered when Compact has nothing left to replace. */
  restoreRunId?: string;
}

/**
 * What the gauge says when the context is `overTokens` tokens over the prompt budget. It asks for a
 * compaction only when Compact can run (`compactBlocked` absent): told to compact with the button
 * disabled, the user has no way on. When all that is left is held (the anchors and summaries that
 * cannot be rewritten smaller), the way out is to restore the newest compaction (`runs`, newest
 * first) and compact again, which summarizes its messages anew at the lower budget; with no
 * compaction to restore, only a larger window helps.
 */
export function overBudgetAdvice(
  overTokens: number,
  compactBlocked: string | undefined,
  runs: readonly Pick<CheckpointRunView, 'id' | 'restored'>[],
): OverBudgetAdvice {
  const over = `${formatTokens(overTokens)} over the prompt budget`;
  if (compactBlocked === undefined) return { text: `${over}: compact before the next request.` };
  const held = `Compact has nothing left to replace (${compactBlocked})`;
  const run = runs.find((r) => !r.restored);
  if (!run) return { text: `${over}, and ${held}: only a larger context window makes room.` };
  return {
    text: `${over}, and ${held}: restore the latest compaction, then compact again to summarize its messages anew.`,
    restoreRunId: run.id,
  };
}

/**
 * Where the compaction trigger stands, said against both scales the user sees: the setting's fraction
 * applies to the prompt budget (the window less the tokens reserved for the reply), while the bar is
 * drawn to the whole window, so an 80% trigger sits at 77% of a 128k window with 4,096 reserved, and
 * compactions there are read as early. E.g. "80% of the 124k prompt budget (the 128k window less
 * 4.1k reserved for the reply), 77% of the window"; "80% of the window" when nothing is reserved.
 * All sizes in tokens; `fraction` of the prompt budget (the `compactAt` setting).
 */
export function triggerLevel(tokens: number, fraction: number, inputBudget: number, window: number): string {
  const setting = `${Math.round(fraction * 100)}%`;
  if (inputBudget >= window || window <= 0) return `${setting} of the window`;
  const ofWindow = `${Math.round((tokens / window) * 100)}%`;
  return `${setting} of the ${formatTokens(inputBudget)} prompt budget (the ${formatTokens(window)} window less ${formatTokens(window - inputBudget)} reserved for the reply), ${ofWindow} of the window`;
}
