/**
 * SWE-agent ≥ 1.0 trajectory (`*.traj`), see transcripts/README.md.
 *
 * - `history[]` is the chat as the model saw it and is the only message source; `trajectory[]` steps
 *   repeat it (each with the full prompt) and are counted as `trajectory-step` in `skipped`.
 * - In text-parsed runs actions stay in assistant text (`<function=…>` blocks): there are no native tool
 *   calls to invent. Observations are user messages. Runs with native function calling keep their
 *   `tool_calls` and `tool` messages. Extra fields (`agent`, `message_type`, `thought`, `action`, …) are
 *   dropped: unknown fields break some servers.
 * - The model name comes from `replay_config` (a JSON string) `agent.model.name`.
 * Entry ids are `h<index>`.
 */
import type { ChatMessage, EntryMeta } from '../../compaction/types';
import type { TranscriptBuilder } from '../builder';
import { documentFault, parseJsonDocument } from '../json';
import { checkMessage } from '../openai-messages';
import { parseJsonOrUndefined } from '../../format/json';

const KEEP = new Set(['role', 'content', 'tool_calls', 'tool_call_id', 'name']);

/** Reads a SWE-agent trajectory. @throws TranscriptError (line where the bad value starts, field path) */
export function readSweAgent(text: string, builder: TranscriptBuilder, parsed?: unknown): void {
  const doc = parsed ?? parseJsonDocument(text, builder.file);
  const fault = documentFault(text, builder.file);
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) throw fault([], 'expected a trajectory object');
  const traj = doc as Record<string, unknown>;
  if (!Array.isArray(traj.history)) throw fault(['history'], 'trajectory has no history list');
  if (Array.isArray(traj.trajectory)) builder.skip('trajectory-step', traj.trajectory.length);
  const model = modelName(traj.replay_config);

  traj.history.forEach((raw, index) => {
    const checked = checkMessage(raw, ['history', index], fault);
    // Extra fields are dropped by design (above); what was read otherwise in content and calls is told.
    for (const note of checked.contentNotes) builder.warn(`${builder.file}: history[${index}]: ${note}`);
    const slim: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(checked.message))
      if (KEEP.has(key) && value !== undefined) slim[key] = value;
    if (slim.role === 'assistant' && slim.content === undefined) slim.content = '';
    const id = `h${index}`;
    const meta: EntryMeta = { source: builder.source(index + 1, id) };
    if (checked.imageSizes.length) meta.imageSizes = checked.imageSizes;
    if (slim.role === 'assistant' && model) meta.model = model;
    builder.add({ kind: 'message', id, meta, message: slim as unknown as ChatMessage });
  });
  if (model) builder.model = model;
}

function modelName(replayConfig: unknown): string | undefined {
  let config: unknown = replayConfig;
  if (typeof config === 'string') {
    config = parseJsonOrUndefined(config);
    if (config === undefined) return undefined;
  }
  const name = (
    ((config as Record<string, unknown> | undefined)?.agent as Record<string, unknown> | undefined)?.model as
      Record<string, unknown> | undefined
  )?.name;
  return typeof name === 'string' ? name : undefined;
}
