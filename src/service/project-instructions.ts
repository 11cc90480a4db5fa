/**
 * The workspace's project instructions: the instruction files coding agents share by convention
 * (AGENTS.md; CLAUDE.md and `.github/copilot-instructions.md` where a project keeps its rules for
 * those agents). Their text goes into the context as a leading system message when a session starts,
 * so it is an anchor that no compaction summarises (invariant 3). When a file changed on disk, the
 * next compaction re-attaches its current text after the summary, as it does for the files the
 * agent touched last (`reattach-step.ts`).
 */
import type { ContextItem, Entry } from '../compaction/types';
import type { AttachedFile } from '../compaction/rewrite/reattach';
import type { ToolHost } from '../agent/types';
import { resolveInside } from '../agent/paths';

/** The instruction files read, workspace-relative, in the order they are shown. */
export const INSTRUCTION_FILES: readonly string[] = ['AGENTS.md', 'CLAUDE.md', '.github/copilot-instructions.md'];

/** Id of the raw entry that holds the project instructions. */
export const INSTRUCTIONS_ENTRY_ID = 'project-instructions';

/**
 * Characters of one instruction file kept; the rest is left out with a note (a rule file of many
 * pages would crowd out the conversation on a small window). 24,000 characters are about 6k tokens.
 */
export const MAX_INSTRUCTION_CHARS = 24_000;

/** One instruction file as read from the workspace. */
export interface InstructionFile {
  /** Workspace-relative path, forward slashes. */
  path: string;
  /** Its text, at most {@link MAX_INSTRUCTION_CHARS} characters plus a note when longer. */
  text: string;
}

/**
 * Reads the instruction files of `files` that exist inside the workspace of `host` (real paths:
 * a link that leads outside is skipped), as text. Missing, binary and unreadable files are skipped;
 * never throws.
 */
export async function readInstructionFiles(
  host: ToolHost,
  files: readonly string[] = INSTRUCTION_FILES,
  signal?: AbortSignal,
): Promise<InstructionFile[]> {
  const out: InstructionFile[] = [];
  for (const file of files) {
    try {
      const absolute = await resolveInside(
        host.root,
        file,
        (p) => host.realpath(p),
        host.readlink ? (p) => host.readlink!(p) : undefined,
      );
      const text = (await host.readFile(absolute, signal)).replace(/\r\n/g, '\n');
      if (text.includes('\u0000') || !text.trim()) continue;
      out.push({ path: file, text: clipInstruction(text) });
    } catch {
      // Absent in this workspace (the usual case), outside it, or unreadable.
    }
  }
  return out;
}

function clipInstruction(text: string): string {
  if (text.length <= MAX_INSTRUCTION_CHARS) return text;
  return `${text.slice(0, MAX_INSTRUCTION_CHARS)}\n\n[… ${text.length - MAX_INSTRUCTION_CHARS} more characters of this file left out; read_file shows them.]\n`;
}

/** The section of one file in the instructions message. */
function sectionOf(file: InstructionFile): string {
  return `<instructions file="${file.path}">\n${file.text.trimEnd()}\n</instructions>`;
}

/** The system message that carries `files` (at least one). */
export function instructionsText(files: readonly InstructionFile[]): string {
  return [
    `Project instructions, read from the workspace's instruction files (${files.map((f) => f.path).join(', ')}). Follow them in this workspace unless the user says otherwise.`,
    ...files.map(sectionOf),
  ].join('\n\n');
}

/** The raw entry of the instructions message; undefined when there are no files. */
export function instructionsEntry(files: readonly InstructionFile[]): Entry | undefined {
  if (files.length === 0) return undefined;
  return { id: INSTRUCTIONS_ENTRY_ID, message: { role: 'system', content: instructionsText(files) } };
}

/**
 * The files of `current` (read now) whose text differs from what the context's instructions hold:
 * the leading instructions message of `items` and the copies re-attached since. These are re-attached
 * after the next summary. A file that was not there when the session started counts as changed.
 */
export function changedInstructions(
  items: readonly ContextItem[],
  current: readonly InstructionFile[],
): AttachedFile[] {
  // No files: nothing to look for in the context (hundreds of thousands of messages).
  if (current.length === 0) return [];
  const lead = items.find((it) => it.id === INSTRUCTIONS_ENTRY_ID);
  const leadText = typeof lead?.message.content === 'string' ? lead.message.content : '';
  const out: AttachedFile[] = [];
  for (const file of current) {
    if (leadText.includes(sectionOf(file))) continue;
    // The newest copy re-attached earlier: when it is still current and stays in the context, the
    // re-attach step leaves the file out (`shownBy`).
    let shownBy: string | undefined;
    for (let i = items.length - 1; i >= 0; i--) {
      const it = items[i];
      if (it.attachedFile !== file.path) continue;
      const text = typeof it.message.content === 'string' ? it.message.content : '';
      if (text.includes(file.text.replace(/\n$/, ''))) shownBy = it.id;
      break;
    }
    out.push({ path: file.path, text: file.text, ...(shownBy ? { shownBy } : {}) });
  }
  return out;
}

/**
 * True for an item that carries project instructions: the leading instructions message, or an
 * instruction file re-attached after a summary. The gauge shows these as their own category.
 */
export function isInstructionsItem(item: ContextItem): boolean {
  return (
    item.id === INSTRUCTIONS_ENTRY_ID ||
    (item.attachedFile !== undefined && INSTRUCTION_FILES.includes(item.attachedFile))
  );
}
