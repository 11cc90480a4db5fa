/**
 * A small Claude Code recording with one compaction of its own: the phrase {@link REPLACED_PHRASE}
 * is in a tool result before the compact boundary, so only the raw transcript holds it afterwards.
 */
import { ClaudeLines } from '../watch/fixtures';

/** Text that only a replaced tool result holds. */
export const REPLACED_PHRASE = 'the cache key omits the tenant id';

/** A secret in a replaced tool result, which recall must mask. */
export const RECORDED_KEY = 'ghp_Q1w2E3r4T5y6U7i8O9p0A1s2D3f4G5h6J7k8';

/** The JSONL text of the recording. */
export function claudeRecordingWithCompaction(): string {
  const c = new ClaudeLines();
  return (
    [
      c.user("Find why tenants see each other's dashboards."),
      c.toolCall('toolu_1', 'grep -rn cacheKey src/'),
      c.toolResult('toolu_1', `src/cache.ts:12: // note: ${REPLACED_PHRASE}\nGITHUB_TOKEN=${RECORDED_KEY}`),
      c.assistantText('Found it: the cache key is built without the tenant.'),
      ...c.compaction('The user asked why dashboards leak across tenants; a cause was found in src/cache.ts.'),
      c.user('Now fix it and add a test.'),
      c.assistantText('Working on the fix.'),
    ].join('\n') + '\n'
  );
}
