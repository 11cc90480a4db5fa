/**
 * `npm run bench:next`: the next-steps evaluation alone (also part of `npm run bench:quality`).
 * Prints one table per window and writes bench/quality/next-steps-results.json.
 */
import path from 'node:path';
import { runNextSteps } from './quality/next-steps/main';

const root = path.resolve(__dirname, '../..');
runNextSteps(root).catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
