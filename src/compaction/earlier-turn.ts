/**
 * The rule that tells a failure left when an earlier turn ended from open work of the latest
 * request, stated once: the summary's notes label such failures apart ("unresolved when that turn
 * ended"), and the retention scorecard counts them apart, by this same rule.
 *
 * Pure: no I/O.
 */

/**
 * Whether a failure still unresolved at the end of a span was left when an earlier turn ended: the
 * person typed a request after the span (`typedAfter`), or typed the span's latest request after the
 * failure's last failing run. The agent stopped and the person asked for something else, so the
 * failure is no next step of the latest request.
 *
 * @param lastFailedAt Position (message index in the span) of the failure's last failing run.
 * @param latestRequestAt Position of the span's latest typed request, or -1 when it has none.
 * @param typedAfter Whether a typed request follows the span (in the messages kept after it).
 */
export function leftWhenTurnEnded(lastFailedAt: number, latestRequestAt: number, typedAfter: boolean): boolean {
  return typedAfter || (latestRequestAt > 0 && lastFailedAt < latestRequestAt);
}
