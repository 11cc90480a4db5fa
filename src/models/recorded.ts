/**
 * The window an imported recording is measured against: the window of the model the recording was
 * made with, from the model table, so a 292k-token Aider session recorded with a 1M-token model is
 * not shown at 236% of the configured model's 128k. When the recording names no model, or one the
 * table does not know, the configured model's window stands in and says so ("window of configured
 * model"), so the gauge never passes one model's window off as another's.
 */
import { lookupModel } from './table';

/** What a recording's gauge measures against. */
export interface RecordingWindow {
  /** Model the gauge names: the recording's when its window is known, else the configured one. */
  model: string;
  /** Whole context window, in tokens. */
  window: number;
  /** Most tokens one reply of that model may have, when known (sizes the reply reserve). */
  maxOutput?: number;
  /** True when the configured model's window stands in (no model recorded, or an unknown one). */
  configured: boolean;
  /** Where the window came from, for the gauge ("1,047,576 tokens, from the model table for the recording's model gpt-4.1"). */
  label: string;
  /** One line for the session header: which model and window the recording is shown with. */
  note: string;
}

const fmt = (n: number) => n.toLocaleString('en-US');

/**
 * Resolves the window of a recording made with `recordedModel` (undefined: the recording names
 * none). `recordedWindow` is the window the file states (tokens), when it states one: it is used as
 * is and labelled "recorded in the file". Otherwise the model table's window for the recorded model,
 * else `configured` (the session's configured model and its resolved window, tokens).
 * `settingWindow`: the `contextKeeper.contextWindow` value set (tokens; 0 or undefined: none); when a
 * recording's own window stands instead, the note says the setting is not applied to it and how to
 * work at it. Never throws.
 */
export function recordingWindow(
  recordedModel: string | undefined,
  configured: { model: string; window: number; maxOutput?: number },
  recordedWindow?: number,
  settingWindow?: number,
): RecordingWindow {
  const shown = resolvedWindow(recordedModel, configured, recordedWindow);
  if (shown.configured || !settingWindow || settingWindow <= 0 || settingWindow === shown.window) return shown;
  return {
    ...shown,
    note: `${shown.note}; contextKeeper.contextWindow (${fmt(settingWindow)}) is not applied to a recording: Continue in a New Task works at it`,
  };
}

function resolvedWindow(
  recordedModel: string | undefined,
  configured: { model: string; window: number; maxOutput?: number },
  recordedWindow?: number,
): RecordingWindow {
  const name = recordedModel?.trim();
  const known = name ? lookupModel(name) : undefined;
  if (recordedWindow !== undefined && Number.isFinite(recordedWindow) && recordedWindow > 0) {
    const window = Math.floor(recordedWindow);
    const maxOutput = known?.maxOutput;
    return {
      model: name || configured.model,
      window,
      ...(maxOutput !== undefined ? { maxOutput } : {}),
      configured: false,
      label: `${fmt(window)} tokens, recorded in the file${name ? ` for the recording's model ${name}` : ''}`,
      note: `recorded with ${name || 'an unnamed model'}, ${fmt(window)}-token window (recorded in the file)`,
    };
  }
  if (name && known) {
    return {
      model: name,
      window: known.window,
      ...(known.maxOutput !== undefined ? { maxOutput: known.maxOutput } : {}),
      configured: false,
      label: `${fmt(known.window)} tokens, from the model table for the recording's model ${name}`,
      note: `recorded with ${name}, ${fmt(known.window)}-token window`,
    };
  }
  const why = name ? `${name} is not in the model table` : 'the recording names no model';
  return {
    model: configured.model,
    window: configured.window,
    ...(configured.maxOutput !== undefined ? { maxOutput: configured.maxOutput } : {}),
    configured: true,
    label: `${fmt(configured.window)} tokens, window of configured model ${configured.model} (${why})`,
    note: `${name ? `recorded with ${name}, a model of unknown window` : 'no model recorded'}: measured against the window of configured model ${configured.model}`,
  };
}
