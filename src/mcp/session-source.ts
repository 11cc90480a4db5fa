/**
 * The session an MCP client's recall reads: a named file, or the newest Claude Code or Codex session
 * of a workspace (`src/watch/discovery.ts`), imported with the recording importers and indexed once
 * per version of the file (size and modification time).
 */
import fs from 'node:fs';
import { discoverSessions, type DiscoveryOptions } from '../watch/discovery';
import type { WatchedFormat } from '../watch/formats';
import { importTranscript } from '../transcripts';
import { indexSource, recallSourceOfImport, type RecallIndex } from '../recall';
import { spans } from '../recall/read';
import { scopeOf } from '../recall/messages';

/** Where to find the session. */
export interface SessionChoice {
  /** Read this session file always. */
  file?: string;
  /** Otherwise: the newest session of this workspace folder... */
  workspace: string;
  /** ...of this agent only (default: either). */
  agent?: WatchedFormat;
  discovery?: DiscoveryOptions;
}

/** A session read for recall. */
export interface LoadedRecall {
  file: string;
  format: string;
  index: RecallIndex;
  /** One line: the file, its format, its size in messages and its own compactions. */
  describe: string;
}

/** Thrown when no session file can be found or read; the message says where it looked. */
export class SessionNotFound extends Error {
  override readonly name = 'SessionNotFound';
}

/** Finds and reads the session, reusing the last reading while the file is unchanged. */
export class SessionSource {
  private cached: { file: string; size: number; mtimeMs: number; loaded: LoadedRecall } | undefined;

  constructor(private readonly choice: SessionChoice) {}

  /**
   * The session as it is now.
   * @throws SessionNotFound when there is none; TranscriptError (file, line, field) for a malformed file
   */
  async load(): Promise<LoadedRecall> {
    const file = this.choice.file ?? this.newest();
    let st: fs.Stats;
    try {
      st = fs.statSync(file);
    } catch {
      throw new SessionNotFound(`cannot read the session file ${file}`);
    }
    const c = this.cached;
    if (c && c.file === file && c.size === st.size && c.mtimeMs === st.mtimeMs) return c.loaded;
    const transcript = await importTranscript(file);
    const index = indexSource(recallSourceOfImport(transcript));
    const compactions = [...index.byCheckpoint.keys()].map((id) => `${id} replaced ${spans(scopeOf(index, id))}`);
    const loaded: LoadedRecall = {
      file,
      format: transcript.format,
      index,
      describe: `Session ${file} (${transcript.format}, ${index.messages.length} messages; ${compactions.length === 0 ? 'no compaction of its own' : `its compactions: ${compactions.join('; ')}`}).`,
    };
    this.cached = { file, size: st.size, mtimeMs: st.mtimeMs, loaded };
    return loaded;
  }

  private newest(): string {
    const { workspace, agent, discovery } = this.choice;
    const found = discoverSessions(workspace, discovery).filter((s) => agent === undefined || s.agent === agent);
    if (found.length === 0) {
      const who = agent === 'claude-code' ? 'Claude Code' : agent === 'codex' ? 'Codex' : 'Claude Code or Codex';
      throw new SessionNotFound(
        `no ${who} session found for the workspace ${workspace} (Claude Code's are under ~/.claude/projects/, Codex's under ~/.codex/sessions/; give the folder with --workspace or the file with --file)`,
      );
    }
    return found[0].file;
  }
}
