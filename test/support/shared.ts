/**
 * Locates the shared, read-only test data (recorded transcripts) that lives beside the repository, never
 * inside it: the transcripts are licensed for local testing only.
 */
import { existsSync } from 'node:fs';
import * as path from 'node:path';

/**
 * The `shared` directory: `$CONTEXT_KEEPER_SHARED` when set, else the first `shared/` holding
 * `transcripts/` found walking up from this file (the repository's parent in the usual layout).
 * Undefined when there is none; tests then skip.
 */
export function sharedDir(): string | undefined {
  const fromEnv = process.env.CONTEXT_KEEPER_SHARED;
  if (fromEnv) {
    // Either the shared folder itself or its transcripts folder.
    if (existsSync(path.join(fromEnv, 'transcripts'))) return fromEnv;
    if (path.basename(path.resolve(fromEnv)) === 'transcripts' && existsSync(fromEnv))
      return path.dirname(path.resolve(fromEnv));
    return undefined;
  }
  let dir = __dirname;
  for (;;) {
    const candidate = path.join(dir, 'shared');
    if (existsSync(path.join(candidate, 'transcripts'))) return candidate;
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/** The shared transcripts directory, or undefined. */
export function sharedTranscriptsDir(): string | undefined {
  const dir = sharedDir();
  return dir ? path.join(dir, 'transcripts') : undefined;
}
