/**
 * Restored messages and a context that cannot fit: before the coordinator compacts messages a
 * checkpoint restore brought back (automatic compaction keeps them out), the user is asked.
 */
import type { CompactionHost } from '../compaction/compaction-host';

/**
 * Before restored messages are compacted because the context cannot fit (`used` over `inputBudget`
 * tokens, or the provider refused the request): asks the user through `host`. True when compaction
 * may go on (nothing restored, or the user agreed, which releases the restored messages); logs
 * either way.
 */
export async function mayCompactRestored(
  host: CompactionHost,
  used: number,
  inputBudget: number,
  providerRefused: boolean,
): Promise<boolean> {
  const ids = host.restoredIds?.();
  if (!ids || ids.size === 0 || (!providerRefused && used <= inputBudget)) return true;
  const agreed =
    (await host.confirmCompactRestored?.({ restoredMessages: ids.size, used, inputBudget, providerRefused })) === true;
  if (agreed) {
    host.releaseRestored?.();
    host.log(
      'info',
      `The restored context does not fit the window (${used} of ${inputBudget} tokens); the user agreed to compact it again.`,
    );
  } else {
    host.log(
      'warn',
      `The restored context does not fit the window (${used} of ${inputBudget} tokens); the restored messages were not compacted again.`,
    );
  }
  return agreed;
}
