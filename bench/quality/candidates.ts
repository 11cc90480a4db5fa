/**
 * `npm run bench:typed`: drafts bench/quality/typed-messages.json from the shared transcripts. Every
 * user-role entry becomes one or more candidate spans with a rule-based verdict; verdicts and notes
 * already in the file (the human review) are kept for spans whose id and fingerprint did not change.
 * The rules only propose: the file is reviewed and corrected by hand before it is committed.
 *
 * Rules (the definition of "typed"): harness blocks (reminders, environment details,
 * repository rule files, command output, interruption notices, confirmation prompts), tool output
 * sent in the user role, earlier summaries, one-word replies and slash commands are not typed;
 * Cline's <task>/<feedback>/<user_message>/<answer>, Aider's chat lines and SWE-agent's task
 * statement (<pr_description>) are.
 */
import fs from 'node:fs';
import path from 'node:path';
import { loadSession } from '../../src/cli/load';
import { transcriptFiles } from '../corpus';
import { fingerprint, messageText, words } from './text';
import { readTypedData, typedDataPath, type TypedData, type TypedRecord, type TypedTranscript } from './typed';

/** A span of an entry's text with the rule's verdict. */
interface Span {
  start: number;
  length: number;
  typed: boolean;
  note: string;
}

const TAGGED = /<(task|feedback|user_message|answer)>\s*([\s\S]*?)\s*<\/\1>/g;

/** Cline's spans of what the user wrote: the task, messages, feedback and answers. */
function tagged(text: string): Span[] {
  const spans: Span[] = [];
  for (const m of text.matchAll(TAGGED)) {
    const inner = m[2];
    const start = m.index + m[0].indexOf(inner);
    spans.push(verdict(text.slice(start, start + inner.length), start, `Cline <${m[1]}>`));
  }
  return spans;
}

/** Candidate spans of one user-role entry's text. */
function spansOf(format: string, text: string): Span[] {
  if (format === 'cline') {
    const spans = tagged(text);
    return spans.length
      ? spans
      : [
          {
            start: 0,
            length: text.length,
            typed: false,
            note: 'rule: Cline harness text only (environment details, reminders, resumption notice)',
          },
        ];
  }
  if (format === 'swe-agent') {
    const m = /<pr_description>\s*([\s\S]*?)\s*<\/pr_description>/.exec(text);
    if (m) {
      const start = m.index + m[0].indexOf(m[1]);
      return [
        {
          start,
          length: m[1].length,
          typed: true,
          note: 'rule: SWE-agent task statement (<pr_description>), the first request',
        },
      ];
    }
    if (/^\s*OBSERVATION:/.test(text))
      return [
        { start: 0, length: text.length, typed: false, note: 'rule: tool output in the user role (OBSERVATION)' },
      ];
  }
  // Attachment notices a client writes before the user's own words are not typed.
  const lead = /^(?:\[attached document: [^\]\n]*\]\n)+/.exec(text);
  const start = lead ? lead[0].length : 0;
  return [verdict(text.slice(start), start, lead ? 'after attachment notices' : '')];
}

/** The rule-based verdict on one span. */
function verdict(span: string, start: number, origin: string): Span {
  const out = (why: string): Span => ({ start, length: span.length, typed: false, note: `rule: ${why}` });
  const t = span.trim();
  if (/^This session is being continued from a previous conversation/.test(t)) return out('earlier summary');
  if (/^<environment_context>|^<environment_details>/.test(t)) return out('environment details');
  if (/^# AGENTS\.md|^<user_instructions>|^# CLAUDE\.md/.test(t)) return out('repository rule file');
  if (/^<(system-reminder|command-name|command-message|local-command-stdout)>/.test(t)) return out('harness block');
  if (/^\[Request interrupted by user/.test(t)) return out('interruption notice');
  if (/\(Y\)es\/\(N\)o/.test(t)) return out('answer to a confirmation prompt');
  if (t === '' || t === '<blank>') return out('empty');
  if (/^\/[\w-]+(\s|$)/.test(t) && !t.includes('\n')) return out('slash command');
  if (words(t).length <= 1) return out('one-word reply');
  return { start, length: span.length, typed: true, note: `rule: typed${origin ? ` (${origin})` : ''}` };
}

/** JSON with one record per line, so a review shows up as a one-line diff. */
function serialize(d: TypedData): string {
  const t = d.transcripts.map(
    (x) =>
      `  {"file": ${JSON.stringify(x.file)}, "entries": ${x.entries}, "records": [\n${x.records.map((r) => `    ${JSON.stringify(r)}`).join(',\n')}\n  ]}`,
  );
  return `{"about": ${JSON.stringify(d.about)},\n "transcripts": [\n${t.join(',\n')}\n]}\n`;
}

async function main(): Promise<void> {
  const root = path.resolve(__dirname, '../../..');
  const { dir, files } = transcriptFiles();
  if (!dir) {
    console.log('No shared transcripts found (../shared/transcripts or $CONTEXT_KEEPER_SHARED): nothing to draft.');
    return;
  }
  const file = typedDataPath(root);
  const old: TypedData | undefined = fs.existsSync(file) ? readTypedData(file) : undefined;
  const reviewed = new Map<string, TypedRecord>();
  for (const t of old?.transcripts ?? []) for (const r of t.records) reviewed.set(`${t.file}\0${r.id}\0${r.sha256}`, r);
  const transcripts: TypedTranscript[] = [];
  for (const f of files) {
    const s = await loadSession(f);
    const rel = path.relative(dir, f).split(path.sep).join('/');
    const records: TypedRecord[] = [];
    s.entries.forEach((e, index) => {
      const role = e.message.role;
      // Cline sends the user's answers to its questions and feedback on denied actions inside tool results.
      const clineTool = s.transcript.format === 'cline' && role === 'tool';
      if (role !== 'user' && !clineTool) return;
      const text = messageText(e.message);
      const spans = clineTool ? tagged(text) : spansOf(s.transcript.format, text);
      for (const sp of spans) {
        const span = text.slice(sp.start, sp.start + sp.length);
        const r: TypedRecord = {
          index,
          id: e.id,
          start: sp.start,
          length: sp.length,
          sha256: fingerprint(span),
          words: words(span).length,
          typed: sp.typed,
          note: sp.note,
        };
        const prev = reviewed.get(`${rel}\0${r.id}\0${r.sha256}`);
        records.push(prev && !prev.note.startsWith('rule:') ? { ...r, typed: prev.typed, note: prev.note } : r);
      }
    });
    transcripts.push({ file: rel, entries: s.entries.length, records });
    console.log(`${rel}: ${records.filter((r) => r.typed).length} typed of ${records.length} candidates`);
  }
  const data: TypedData = {
    about:
      'Typed user messages of the shared transcripts, as locators (entry index and id, character span of the entry text, SHA-256 of the normalized span, word count); no transcript text. Drafted by bench/quality/candidates.ts, reviewed by hand: "reviewed:" notes are the reviewer\'s own verdicts; "reviewed, rule:" means the reviewer read the span and kept the rule\'s verdict.',
    transcripts,
  };
  fs.writeFileSync(file, serialize(data));
  console.log(`Wrote ${path.relative(process.cwd(), file)}.`);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
