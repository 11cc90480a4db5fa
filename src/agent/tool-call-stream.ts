/**
 * Assembles the tool calls of one streamed reply from their deltas, bounded against what a server may
 * send.
 *
 * OpenAI streams each call as deltas carrying `index` (the call's position in the reply), with `id`,
 * `type` and `function.name` on the first delta and `function.arguments` in pieces (Chat Completions
 * streaming reference, `choices[].delta.tool_calls[]`). Some compatible servers leave `index` out
 * (Gemini's OpenAI-compatible endpoint, older Ollama, mistral.rs): they send each call whole, or its
 * first delta with an `id` and later pieces with neither. Such deltas are read as other clients read
 * them: a delta with an `id` not seen in this reply opens a call (a known `id` continues its call), a
 * delta with neither continues the last call, unless that call is complete (a name and arguments that
 * parse as JSON) and the delta names a function, which opens the next call.
 *
 * Bounds (a server is not trusted with sizes): an `index` must be an integer in 0..{@link MAX_TOOL_CALLS}-1
 * and a reply may hold at most {@link MAX_TOOL_CALLS} calls; names are at most {@link MAX_NAME_CHARS}
 * characters; text and arguments of one reply together at most {@link MAX_REPLY_CHARS}. Past a bound
 * the reply fails with a {@link StreamedReplyError} naming it, never a silent drop.
 */
import { parseJsonOrUndefined } from '../format/json';

/** Most tool calls one reply may hold. OpenAI documents no limit; 128 is its cap on tools per request. */
export const MAX_TOOL_CALLS = 128;
/** Most characters of a function name (OpenAI: at most 64 characters, `^[a-zA-Z0-9_-]+$`); a margin kept. */
export const MAX_NAME_CHARS = 256;
/**
 * Most characters of one reply's text and tool-call arguments together: four times what the largest
 * output any current model documents for one reply amounts to (128k tokens at about 4 characters
 * each is 0.5 M), so no real reply reaches it, an endless stream stops in bounded memory, and the
 * meter never has to count a multi-megabyte message on the extension host's thread.
 */
export const MAX_REPLY_CHARS = 2_000_000;

/** A reply a server streamed that cannot be used as it is. */
export class StreamedReplyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StreamedReplyError';
  }
}

/** One assembled call: the fields of an assistant message's `tool_calls[i]` that the loop uses. */
export interface AssembledCall {
  id: string;
  name: string;
  arguments: string;
}

/** The shape of one `delta.tool_calls[]` element as received (every field unchecked). */
interface ToolCallDelta {
  index?: unknown;
  id?: unknown;
  function?: { name?: unknown; arguments?: unknown } | null;
}

function parsesAsJson(text: string): boolean {
  return text.trim() !== '' && parseJsonOrUndefined(text) !== undefined;
}

/** Collects the tool-call deltas and the text size of one streamed reply. */
export class ToolCallAssembler {
  private readonly byIndex = new Map<number, AssembledCall>();
  private readonly byId = new Map<string, AssembledCall>();
  private readonly order: AssembledCall[] = [];
  private last: AssembledCall | undefined;
  private chars = 0;

  /** Counts `text` (a content delta) against the reply's size bound. @throws StreamedReplyError past it. */
  addText(text: string): void {
    this.grow(text.length);
  }

  /**
   * Adds the `tool_calls` array of one delta (anything else is refused with an error naming it).
   * @throws StreamedReplyError for a malformed element, an index out of range, too many calls, a name
   *   too long, or a reply past {@link MAX_REPLY_CHARS}.
   */
  add(parts: unknown): void {
    if (parts === undefined || parts === null) return;
    if (!Array.isArray(parts)) throw new StreamedReplyError('the server streamed `tool_calls` that is not an array');
    for (const raw of parts) {
      if (!raw || typeof raw !== 'object')
        throw new StreamedReplyError('the server streamed a tool-call delta that is not an object');
      const part = raw as ToolCallDelta;
      const id = typeof part.id === 'string' && part.id !== '' ? part.id : undefined;
      const fn = part.function && typeof part.function === 'object' ? part.function : undefined;
      const name = typeof fn?.name === 'string' ? fn.name : '';
      const args = typeof fn?.arguments === 'string' ? fn.arguments : '';
      const slot = this.slotFor(part.index, id, name);
      if (id !== undefined && slot.id === '') {
        slot.id = id;
        this.byId.set(id, slot);
      }
      if (name !== '') {
        if (slot.name.length + name.length > MAX_NAME_CHARS)
          throw new StreamedReplyError(
            `the server streamed a tool-call name longer than ${MAX_NAME_CHARS} characters (${(slot.name + name).slice(0, 40)}…)`,
          );
        // OpenAI sends the name whole on the first delta; some servers repeat it on later ones.
        if (slot.name !== name) slot.name += name;
      }
      if (args !== '') {
        this.grow(args.length);
        slot.arguments += args;
      }
      this.last = slot;
    }
  }

  /** The calls in the order they were opened (by `index` when the server sent one). */
  calls(): AssembledCall[] {
    return [...this.order];
  }

  /** Number of calls opened so far. */
  get size(): number {
    return this.order.length;
  }

  private grow(n: number): void {
    this.chars += n;
    if (this.chars > MAX_REPLY_CHARS)
      throw new StreamedReplyError(
        `the server's reply passed ${MAX_REPLY_CHARS} characters of text and tool-call arguments; it was stopped`,
      );
  }

  private open(): AssembledCall {
    if (this.order.length >= MAX_TOOL_CALLS)
      throw new StreamedReplyError(`the server streamed more than ${MAX_TOOL_CALLS} tool calls in one reply`);
    const call: AssembledCall = { id: '', name: '', arguments: '' };
    this.order.push(call);
    return call;
  }

  private slotFor(index: unknown, id: string | undefined, name: string): AssembledCall {
    if (index !== undefined && index !== null) {
      const n = typeof index === 'string' && /^\d+$/.test(index) ? Number(index) : index;
      if (typeof n !== 'number' || !Number.isInteger(n) || n < 0 || n >= MAX_TOOL_CALLS)
        throw new StreamedReplyError(
          `the server streamed a tool call with index ${JSON.stringify(index)?.slice(0, 40)}; an index must be an integer from 0 to ${MAX_TOOL_CALLS - 1}`,
        );
      let slot = this.byIndex.get(n);
      if (!slot) {
        slot = this.open();
        this.byIndex.set(n, slot);
        // Keep the reply's order by index even when indices arrive out of order.
        this.order.sort((a, b) => this.indexOf(a) - this.indexOf(b));
      }
      return slot;
    }
    if (id !== undefined) return this.byId.get(id) ?? this.open();
    const last = this.last;
    if (!last) return this.open();
    if (name !== '' && last.name !== '' && last.name !== name) return this.open();
    if (name !== '' && last.name === name && parsesAsJson(last.arguments)) return this.open();
    return last;
  }

  private indexOf(call: AssembledCall): number {
    for (const [index, slot] of this.byIndex) if (slot === call) return index;
    return Number.MAX_SAFE_INTEGER;
  }
}
