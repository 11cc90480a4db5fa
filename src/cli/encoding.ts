/** What the command-line tool says when the model it counts for has no known tokenizer encoding. */
import { encodingForModel } from '../tokenizer/tokenizer';

/**
 * One line naming `model` and the `encoding` that counts for it when the model's own encoding is
 * not known, or null when it is (OpenAI's models, see `encodingForModel`). `from` says where the
 * name came from: the `--model` flag (a typo is then likely) or the recording itself.
 */
export function encodingWarning(model: string, encoding: string, from: 'flag' | 'recording'): string | null {
  // `encodingForModel` answers its fallback only for names it does not know: two different fallbacks
  // give two different answers exactly then.
  if (encodingForModel(model, 'o200k_base') === encodingForModel(model, 'cl100k_base')) return null;
  return from === 'flag'
    ? `--model "${model}" is not a model whose tokenizer encoding is known; counting with ${encoding} (OpenAI model names such as gpt-4o or gpt-4 pick their own encoding)`
    : `the recorded model "${model}" has no known tokenizer encoding; counting with ${encoding}, an approximation of its own tokenizer (--model names another)`;
}
