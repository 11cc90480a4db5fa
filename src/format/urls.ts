/**
 * Endpoint URLs as logs and messages may show them: never with the user, password, query or fragment
 * a base URL can carry. Pure, and imports nothing.
 */

/** `scheme://host[:port]/path` of `url`, without user, password, query or fragment; undefined when it is not a URL. */
export function redactUrl(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
  } catch {
    return undefined;
  }
}

/** `scheme://host[:port]` of `url` (no path, no credentials); undefined when it is not a URL. */
export function urlOrigin(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}`;
  } catch {
    return undefined;
  }
}
