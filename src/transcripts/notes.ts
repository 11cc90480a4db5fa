/**
 * The words every reader uses for three faults a recording can hold whatever its format: a message
 * without a role (an error), a content block of a type the format does not define, and tool-call
 * arguments that are not JSON (both read, with a warning). One wording, so the same fault reads the
 * same in every format, on the command line and in the editor.
 */

/** `expected` as a list for a message: `one of system, user, assistant, tool`, or `"user"` alone. */
function expectedRoles(expected: readonly string[]): string {
  return expected.length === 1 ? `"${expected[0]}"` : `one of ${expected.join(', ')}`;
}

/**
 * The detail of the error for a message whose `role` is missing or not one of `expected`:
 * `message has no "role" (expected one of system, user, assistant, tool)`, or
 * `unknown role "robot" (expected …)`. A null role counts as missing.
 */
export function roleFault(role: unknown, expected: readonly string[]): string {
  return role === undefined || role === null
    ? `message has no "role" (expected ${expectedRoles(expected)})`
    : `unknown role ${JSON.stringify(role)} (expected ${expectedRoles(expected)})`;
}

/**
 * The text of a content block whose type the reader does not know (a misspelt `txet`, a type newer
 * than the reader): its `text` when that is a non-empty string, else undefined. Such text was part
 * of the conversation, so it is read as text rather than lost.
 */
export function unknownBlockText(block: Readonly<Record<string, unknown>>): string | undefined {
  return typeof block.text === 'string' && block.text !== '' ? block.text : undefined;
}

/**
 * The warning for a block of unknown `type`, after its field path: its text was read as text
 * (`kept`), or it holds none and was left out (the recording keeps it).
 */
export function unknownBlockNote(type: unknown, kept: boolean): string {
  return kept
    ? `content block of unknown type ${JSON.stringify(type)}; its text is read as text`
    : `content block of unknown type ${JSON.stringify(type)} holds no text; left out`;
}

/**
 * The warning for a tool call (`call`: how the reader names it, e.g. `tool call 0 (bash)`) whose
 * arguments are not valid JSON. They are kept as the model wrote them: the Chat Completions API
 * carries arguments as the model's text, a reply cut off mid-call leaves them unfinished, and the
 * call's recorded result answers that text.
 */
export function invalidArgumentsNote(call: string): string {
  return `${call}: arguments are not valid JSON; kept as recorded`;
}
