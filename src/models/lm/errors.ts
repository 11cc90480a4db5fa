/**
 * Errors of the VS Code language-model source, each with a kind the views can act on and a message
 * a user can follow. Source of the kinds: `vscode.LanguageModelError` (codes `NoPermissions`,
 * `Blocked`, `NotFound`; anything else carries the model's own error in `cause`).
 */
import { contextOverflow } from '../context-errors';

/** Why a request to an editor-provided model failed. */
export type LmErrorKind = 'no-consent' | 'blocked' | 'not-found' | 'no-models' | 'overflow' | 'cancelled' | 'other';

/** An error from the VS Code language-model source. */
export class LanguageModelSourceError extends Error {
  constructor(
    message: string,
    readonly kind: LmErrorKind,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'LanguageModelSourceError';
  }
}

/** The code of a `vscode.LanguageModelError`, read structurally; undefined for other errors. */
function lmCode(error: unknown): string | undefined {
  const e = error as { code?: unknown; name?: unknown } | null;
  return e && typeof e.code === 'string' ? e.code : undefined;
}

/**
 * Maps whatever `sendRequest` or the response stream threw to a {@link LanguageModelSourceError}.
 * `model` names the model in the message; `cancelled` says the caller aborted.
 */
export function toSourceError(error: unknown, model: string, cancelled: boolean): LanguageModelSourceError {
  if (error instanceof LanguageModelSourceError) return error;
  if (cancelled)
    return new LanguageModelSourceError(`The request to ${model} was cancelled.`, 'cancelled', { cause: error });
  const code = lmCode(error);
  const detail = error instanceof Error && error.message ? ` (${error.message})` : '';
  switch (code) {
    case 'NoPermissions':
      return new LanguageModelSourceError(
        `VS Code has not allowed ContextKeeper to use ${model}${detail}. Allow it when VS Code asks, or under Accounts > Manage Language Model Access, then run the task again.`,
        'no-consent',
        { cause: error },
      );
    case 'Blocked':
      return new LanguageModelSourceError(
        `${model} refused the request: its quota or rate limit is used up, or the request was blocked${detail}. Try again later or choose another model.`,
        'blocked',
        { cause: error },
      );
    case 'NotFound':
      return new LanguageModelSourceError(
        `${model} is no longer offered by VS Code (signed out, its extension disabled, or the model withdrawn)${detail}. Choose another model.`,
        'not-found',
        { cause: error },
      );
  }
  const overflow =
    contextOverflow(error) ??
    contextOverflow((error as { cause?: unknown } | null)?.cause) ??
    (/token limit|too long|context/i.test(detail) && /exceed/i.test(detail) ? { message: detail } : undefined);
  if (overflow)
    return new LanguageModelSourceError(`The request does not fit ${model}'s context window${detail}.`, 'overflow', {
      cause: error,
    });
  return new LanguageModelSourceError(`${model} failed${detail || `: ${String(error)}`}`, 'other', { cause: error });
}
