/**
 * The log line written when a context service opens. It names the model the service counts and
 * shows (the gauge's model: an imported recording's own model when it has one) and the encoding its
 * tokens are counted with; the model the agent would call is named beside it only when it differs,
 * so the log never names a model the counts do not come from.
 */

/** What {@link openingLine} reports. */
export interface OpeningFacts {
  /** The model the service is opened with: its counts, its window and the gauge name it. */
  model: string;
  /** The tokenizer encoding of the counts (`o200k_base`, …). */
  encoding: string;
  /** True when `model` is an imported recording's own model. */
  recorded: boolean;
  /** The model the agent calls for tasks (from the settings or VS Code). */
  agentModel: string;
  /** Where the agent model is reached, in words (" from VS Code", " at https://…"), or empty. */
  endpoint: string;
  /** The summarizer's name. */
  summaries: string;
}

/**
 * "Opening the context service: model claude-opus-4-7 (the recording's), counted with o200k_base;
 * agent model gpt-4o-mini at https://api.openai.com/v1; summaries extractive."
 * The agent's model is named apart only when it is not the counted one.
 */
export function openingLine(f: OpeningFacts): string {
  const same = f.agentModel === f.model;
  const counted = `model ${f.model}${f.recorded ? " (the recording's)" : ''}${same ? f.endpoint : ''}, counted with ${f.encoding}`;
  const agent = same ? '' : `; agent model ${f.agentModel}${f.endpoint}`;
  return `Opening the context service: ${counted}${agent}; summaries ${f.summaries}.`;
}
