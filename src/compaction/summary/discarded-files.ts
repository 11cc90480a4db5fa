/**
 * Files the person's later request set aside: a typed request that names a file in a sentence that
 * discards, abandons, reverts or drops it ("Discard the cloudbuild-terraform.yaml strategy.") after
 * the agent's last change of that file. Such a file is no current work, whatever the order of the
 * edits says: the summary marks it instead of listing it among the files worked on last. Pure: no I/O.
 */
import type { ContextItem } from '../types';
import { toolCallsOf } from '../text';
import { typedRequestOf } from './requests';
import { sentences } from './prose';

/**
 * Words that set work aside (English imperatives and their participles); not "remove" or "delete",
 * which as often name a change inside the file ("remove the script from package.json").
 */
const DISCARD = /\b(?:discard(?:ed)?|abandon(?:ed)?|revert(?:ed)?|scrap(?:ped)?|throw away|get rid of|roll ?back)\b/i;
/** A file name as a request writes it: a name with an extension (`cloudbuild-terraform.yaml`, `src/a.ts`). */
const FILE_NAME = /(?<![\w.@-])(?:[\w.@-]+[\\/])*([\w@-][\w.@-]*\.[A-Za-z]\w{0,7})(?![\w@-])/g;
/** Tools whose call changes a file. */
const CHANGE_TOOL = /write|edit|replace|patch|create|insert|apply/i;
/** Where a change call names its file: JSON arguments' path keys, a patch's file line. */
const CHANGED_PATH =
  /"(?:path|file_path|filePath|file|target_file)"\s*:\s*"([^"]+)"|\*\*\* (?:Add|Update) File: ([^\s"\\]+)/g;

/** The last part of a path, lower case (`C:\app\cloudbuild.yaml` → `cloudbuild.yaml`). */
export function fileKey(path: string): string {
  return (path.split(/[\\/]/).at(-1) ?? path).toLowerCase();
}

/**
 * The file names (lower case, {@link fileKey}) the person's typed requests in `items` (in order)
 * discard after the last call that changed them. A call changing the file after the request brings
 * it back into the work.
 */
export function discardedFiles(items: readonly ContextItem[]): Set<string> {
  const out = new Set<string>();
  for (const it of items) {
    if (it.kind === 'summary') continue;
    if (it.message.role === 'user') {
      const typed = typedRequestOf(it);
      if (!typed) continue;
      for (const s of sentences(typed))
        if (DISCARD.test(s)) for (const m of s.matchAll(FILE_NAME)) out.add(m[1].toLowerCase());
    } else if (it.message.role === 'assistant' && out.size)
      for (const c of toolCallsOf(it.message)) {
        if (!CHANGE_TOOL.test(c.name) && !c.arguments.includes('*** ')) continue;
        for (const m of c.arguments.matchAll(CHANGED_PATH)) out.delete(fileKey(m[1] ?? m[2]));
      }
  }
  return out;
}

/** The note a discarded file's name carries. */
export const DISCARDED_NOTE = ' (the user asked to discard this approach)';
