/**
 * The text of a thrown value, as logs, notifications and error records quote it. Anything can be
 * thrown: an `Error` gives its message, anything else its string form.
 */

/** `error.message` for an `Error`, `String(error)` for any other thrown value. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
