/**
 * Aider `.aider.chat.history.md`, see transcripts/README.md.
 *
 * Decisions (Aider writes no message objects, so the mapping is ours):
 * - A run of consecutive `#### ` lines is one user message (the prefix and Markdown's trailing two
 *   spaces are removed).
 * - A run that is a slash command is not sent to the model and is counted as `slash-command`, except
 *   `/ask`, `/code` and `/architect` followed by text, whose text is the user message.
 * - An empty input (Aider writes it as `#### <blank>`, or a run of blank `####` lines) was never sent
 *   (Aider returns to its prompt), so it is no message and is counted as `blank-input`. Typed replies
 *   such as `y` or `exit` at Aider's chat prompt did reach the model and stay user messages; the
 *   summarizer treats them as trivial (compaction/requests.ts), so no rule here drops them.
 * - `> ` lines are Aider's own output (pip noise, confirmations, "Applied edit", cost lines). They never
 *   reached the model, so they are skipped and counted as `aider-output` (lines). Aider prefixes only
 *   the first line of a multi-line notice with `> ` and ends the notice's last line with Markdown's two
 *   trailing spaces (its Playwright install hint: "> For the best web scraping, install Playwright:",
 *   the pip commands, "See https://aider.chat/… for more info.  "); so the lines after a `> ` line that
 *   lacks them, up to the first line that has them, are that notice too (see {@link noticeLines}).
 *   A `> Tokens: N sent`
 *   line ends a model reply and gives that reply's `meta.reportedPromptTokens`; a `> Model: name` line
 *   gives `meta.model` for the session.
 * - Edit and commit notices (`> Applied edit to src/a.ts`, `> Commit e647cd7 feat: …`) are the
 *   exception: which edits were applied and what was committed is the state of the work, so they are
 *   kept, as Aider printed them, at the end of the reply they follow (a blank line, then the `> …`
 *   lines), and the reply is marked `meta.editsListed`: an edit block with no notice for its file was
 *   not applied (Aider asked to add the file to the chat, or the block did not match).
 * - Everything else is assistant text (prose, whole-file blocks, SEARCH/REPLACE blocks), kept verbatim:
 *   edits are actions written as text, like SWE-agent's; no tool calls are invented.
 * - `# aider chat started at …` starts a session (counted as `session`); its time (local, no zone) is
 *   the `meta.timestamp` of the session's messages.
 * Entry ids are `L<line>` of a message's first line.
 */
import type { EntryMeta } from '../../compaction/types';
import type { TranscriptBuilder } from '../builder';

const KEEP_COMMANDS = /^\/(ask|code|architect)\s+(\S[\s\S]*)$/;

/**
 * Indexes (0-based) of the unprefixed lines that continue a multi-line `> ` notice: after a `> ` line
 * with no trailing two spaces, the lines up to and including the first non-blank one ending in two
 * spaces. When a `> `, `#### ` or session line (or the end) comes first, the notice had one line and the
 * lines after it are left as they are (a history saved with trailing spaces trimmed loses no reply).
 */
function noticeLines(lines: readonly string[]): Set<number> {
  const out = new Set<number>();
  const opens = (l: string) => l.startsWith('> ') || l === '>' || l.startsWith('####') || l.startsWith('# aider chat');
  for (let i = 0; i < lines.length; i++) {
    if (!lines[i].startsWith('> ') || lines[i].endsWith('  ')) continue;
    for (let j = i + 1; j < lines.length && !opens(lines[j]); j++) {
      if (lines[j].trim() === '' || !lines[j].endsWith('  ')) continue;
      for (let k = i + 1; k <= j; k++) out.add(k);
      i = j;
      break;
    }
  }
  return out;
}

/** Reads an Aider chat history. Never throws on content: any text is a valid history. */
export function readAider(text: string, builder: TranscriptBuilder): void {
  const lines = text.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
  const continued = noticeLines(lines);
  let timestamp: string | undefined;
  let model: string | undefined;
  let user: { line: number; text: string[] } | undefined;
  let reply:
    | { line: number; text: string[]; applied: string[]; commits: string[]; tokens?: number; closed?: boolean }
    | undefined;

  const meta = (line: number, id: string): EntryMeta => {
    const m: EntryMeta = { source: builder.source(line, id) };
    if (timestamp) m.timestamp = timestamp;
    return m;
  };
  const flushUser = () => {
    if (!user) return;
    let body = user.text.join('\n');
    const line = user.line;
    user = undefined;
    if (body.trim() === '' || body.trim() === '<blank>') {
      builder.skip('blank-input');
      return;
    }
    if (body.startsWith('/')) {
      const kept = KEEP_COMMANDS.exec(body);
      if (!kept) {
        builder.skip('slash-command');
        return;
      }
      body = kept[2];
    }
    const id = `L${line}`;
    builder.add({ kind: 'message', id, meta: meta(line, id), message: { role: 'user', content: body } });
  };
  const flushReply = () => {
    if (!reply) return;
    const text = reply.text
      .join('\n')
      .replace(/^\s*\n/, '')
      .trimEnd();
    const { line, applied, commits, tokens: promptTokens } = reply;
    reply = undefined;
    if (!text.trim()) return;
    const notices = [...applied, ...commits];
    const body = notices.length ? `${text}\n\n${notices.join('\n')}` : text;
    const id = `L${line}`;
    const m = meta(line, id);
    if (model) m.model = model;
    if (promptTokens !== undefined) m.reportedPromptTokens = promptTokens;
    m.editsListed = true;
    builder.add({ kind: 'message', id, meta: m, message: { role: 'assistant', content: body } });
  };

  lines.forEach((raw, index) => {
    const line = index + 1;
    if (continued.has(index)) {
      if (raw.trim() !== '') builder.skip('aider-output');
      return;
    }
    if (raw.startsWith('#### ') || raw === '####') {
      flushReply();
      const content = raw.slice(5).replace(/ {2}$/, '');
      if (user) user.text.push(content);
      else user = { line, text: [content] };
      return;
    }
    flushUser();
    const started = /^# aider chat started at (\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d)/.exec(raw);
    if (started) {
      flushReply();
      timestamp = `${started[1]}T${started[2]}`;
      builder.skip('session');
      return;
    }
    if (raw.startsWith('> ') || raw === '>') {
      const commit = /^> (Commit [0-9a-f]{7,40} \S.*?)\s*$/.exec(raw);
      if (commit && reply) {
        reply.commits.push(`> ${commit[1]}`);
        return;
      }
      const applied = /^> (Applied edit to \S.*?)\s*$/.exec(raw);
      if (applied && reply) {
        reply.applied.push(`> ${applied[1]}`);
        return;
      }
      builder.skip('aider-output');
      const modelLine = /^> (?:Main )?[Mm]odel: (\S+)/.exec(raw);
      if (modelLine) model = modelLine[1];
      const tokens = /^> Tokens: ([\d.,]+)(k|M)? sent/.exec(raw);
      if (tokens && reply) {
        // The reply ends here; the commit notices that follow its edits still belong to it.
        reply.tokens = Math.round(
          Number(tokens[1].replace(/,/g, '')) * (tokens[2] === 'M' ? 1e6 : tokens[2] === 'k' ? 1e3 : 1),
        );
        reply.closed = true;
      }
      return;
    }
    if (reply?.closed) {
      if (raw.trim() === '') return;
      flushReply();
    }
    if (reply) reply.text.push(raw);
    else if (raw.trim() !== '') reply = { line, text: [raw], applied: [], commits: [] };
  });
  flushUser();
  flushReply();
}
