/**
 * Parsing JSON from places that may hold anything: tool-call arguments a model wrote, lines of files
 * another program (or an interrupted write) left, request bodies, where bad input only means "not
 * this kind": no value instead of an exception. (Files whose bad JSON is an error to report go through
 * `transcripts/json.ts`, which names the file and line.) Pure, and imports nothing.
 */

/** The value of JSON `text`, or undefined when it is not valid JSON (where bad input only means "not this kind"). */
export function parseJsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The object JSON `text` holds; undefined when it is not valid JSON or holds anything but an object (an array, a string…). */
export function parseJsonObject(text: string): Record<string, unknown> | undefined {
  const value = parseJsonOrUndefined(text);
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** `text` is valid JSON (no JSON text parses to undefined). */
export function parsesAsJson(text: string): boolean {
  return parseJsonOrUndefined(text) !== undefined;
}
