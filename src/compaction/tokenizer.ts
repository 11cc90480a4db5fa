/**
 * Exact token counting with js-tiktoken, encoding chosen by model, rank tables loaded lazily.
 *
 * Only `js-tiktoken/lite` and the rank table actually used are loaded, and only on the first count,
 * so importing this module (for example at extension activation) costs nothing.
 */
/** The part of js-tiktoken's encoder the meter uses. */
interface Encoder {
  encode(text: string, allowedSpecial?: string[] | 'all', disallowedSpecial?: string[] | 'all'): number[];
}
type EncoderCtor = new (ranks: unknown) => Encoder;

/** Encodings the meter can use. */
export type EncodingName = 'o200k_base' | 'cl100k_base';

/** Counts tokens of plain text with one encoding. */
export interface TokenCounter {
  readonly encoding: EncodingName;
  /** Number of tokens of `text` (special-token strings are counted as ordinary text). */
  countText(text: string): number;
}

/**
 * Chooses the encoding for a model id. Source: OpenAI's tiktoken model table — GPT-4o, GPT-4.1,
 * GPT-5, o1/o3/o4 and later use o200k_base; GPT-4, GPT-3.5 and the text-embedding-3 models use
 * cl100k_base. Other providers' models get `fallback` (default o200k_base) and are corrected by
 * calibration from reported prompt tokens.
 */
export function encodingForModel(model: string | undefined, fallback: EncodingName = 'o200k_base'): EncodingName {
  if (!model) return fallback;
  const m = model.toLowerCase().replace(/^.*\//, '');
  if (/^(gpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|o1|o3|o4|chatgpt-4o|gpt-oss|codex)/.test(m)) return 'o200k_base';
  if (/^(gpt-4|gpt-3\.5|text-embedding-3|text-embedding-ada)/.test(m)) return 'cl100k_base';
  return fallback;
}

const encoders = new Map<EncodingName, Encoder>();

function loadEncoder(name: EncodingName): Encoder {
  let enc = encoders.get(name);
  if (!enc) {
    // Loaded on first use only: the rank tables are megabytes of data.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { Tiktoken: Ctor } = require('js-tiktoken/lite') as { Tiktoken: EncoderCtor };
    const mod = (name === 'o200k_base' ? require('js-tiktoken/ranks/o200k_base') : require('js-tiktoken/ranks/cl100k_base')) as { default?: unknown };
    // The CommonJS build exports the table itself; an ES module build puts it on `default`.
    const ranks = mod.default ?? mod;
    enc = new Ctor(ranks);
    encoders.set(name, enc);
  }
  return enc;
}

/** True once the rank table of `name` has been loaded (used to check lazy loading). */
export function isEncodingLoaded(name: EncodingName): boolean {
  return encoders.has(name);
}

/** Creates a counter for `encoding`. The rank table loads on the first call to `countText`. */
export function createTokenCounter(encoding: EncodingName): TokenCounter {
  return {
    encoding,
    countText(text: string): number {
      if (text.length === 0) return 0;
      return loadEncoder(encoding).encode(text, [], []).length;
    },
  };
}

/** Counter for a model id (see {@link encodingForModel}). */
export function tokenCounterForModel(model?: string, fallback?: EncodingName): TokenCounter {
  return createTokenCounter(encodingForModel(model, fallback));
}
