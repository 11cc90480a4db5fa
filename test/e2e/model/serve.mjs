// Scripted OpenAI-compatible model for the end-to-end agent checks, on 127.0.0.1 (a random port).
// Bundled with esbuild by run.sh (it imports the project's TypeScript loopback server).
//
// The script keys on the task (the latest user message that starts with "Task:"), counting the
// requests made for it, so compaction rewriting older messages cannot change the course of a task:
// five read_file calls over big workspace files (enough to cross compactAt in an 8k window), one
// write_file that needs the user's approval, then a final streamed answer ("read only": no write). A task that says "quick"
// gets a direct answer; one that says "slow" streams its answer slowly (for cancellation); one that
// says "fail" gets an HTTP 400; one that says "long stream" streams 800 small pieces, 40 ms apart (for the
// responsiveness checks: clicks and focus while the sidebar applies a delta per piece). One that says
// "look up" calls search_history for a line every design note holds, then answers from the result it got
// ("Recall: found it" with the citation and the text, or "Recall: not found"). One that says "flaky" gets
// an HTTP 400 the first time and a direct answer ("Retried: …") after that (for Retry). One that says
// "missing model" gets Ollama's HTTP 404 for a model it has not pulled, naming the requested model.
// Writes its base URL to the file named by argv[2]; with argv[3], appends one JSON line per chat request
// there: the task and how many user messages in the request carry its text. Stops on SIGTERM.
import fs from 'node:fs';
import { start } from '../../../src/demo/modelserver/wire';

const READS = 5;
/** Line 1 of every design note (fixtures/make-workspace.mjs), read by the first task and compacted since. */
const RECALLED_PHRASE = 'keeps invariant 2 when message 7 is replaced';
const served = new Map();

/** The current task's text: the latest user message starting with "Task:". */
function taskOf(messages) {
  for (let i = messages.length - 1; i >= 0; i--) {
    const { role, content } = messages[i];
    if (role === 'user' && typeof content === 'string' && content.startsWith('Task:')) return content;
  }
  return '';
}

function responder(body) {
  const task = taskOf(body.messages ?? []);
  const done = served.get(task) ?? 0;
  served.set(task, done + 1);
  if (process.argv[3]) {
    const copies = (body.messages ?? []).filter((m) => m.role === 'user' && m.content === task).length;
    fs.appendFileSync(process.argv[3], `${JSON.stringify({ task, copies })}\n`);
  }
  if (/flaky/i.test(task)) {
    return done === 0
      ? { type: 'status', status: 400, message: 'scripted failure: the model is flaky this once' }
      : { content: 'Retried: the task completed after the failed call.' };
  }
  // Ollama's answer for a model it has not pulled (HTTP 404), naming the requested model id.
  if (/missing model/i.test(task)) {
    return { type: 'status', status: 404, message: `model "${body.model}" not found, try pulling it first` };
  }
  if (/fail/i.test(task)) {
    return { type: 'status', status: 400, message: 'scripted failure: the model refused the request' };
  }
  if (/long stream/i.test(task)) {
    const pieces = Array.from({ length: 800 }, (_, i) => `piece${i} `);
    return { content: pieces.join(''), chunks: pieces, chunkDelayMs: 40 };
  }
  if (/slow/i.test(task)) {
    const words = Array.from({ length: 60 }, (_, i) => `word${i} `);
    return { content: words.join(''), chunks: words, chunkDelayMs: 250 };
  }
  if (/look up/i.test(task)) return lookUp(body, done);
  if (/quick/i.test(task)) {
    return { content: 'notes.md lists the five parts of the design notes.' };
  }
  if (done < READS) {
    const part = done + 1;
    return {
      content: `Reading part ${part} of the design notes.`,
      toolCalls: [
        {
          id: `call_read_${part}_${Date.now()}`,
          name: 'read_file',
          arguments: JSON.stringify({ path: `docs/part${part}.md` }),
        },
      ],
    };
  }
  // "read only": the same reads, then an answer without the write (no approval needed).
  if (done === READS && /read only/i.test(task)) {
    return { content: 'The design notes are read again; nothing was written.' };
  }
  if (done === READS) {
    return {
      content: 'Writing the summary of the notes.',
      toolCalls: [
        {
          id: `call_write_${Date.now()}`,
          name: 'write_file',
          arguments: JSON.stringify({ path: 'notes.md', content: '# Notes\n\nAll five parts were read.\n' }),
        },
      ],
    };
  }
  const answer = 'All five parts are read and notes.md is written. The budget held thanks to the checkpoint.';
  return { content: answer, chunks: answer.match(/.{1,12}/g), chunkDelayMs: 40 };
}

/** A "look up" task: search the history, then answer with the first hit a checkpoint replaced. */
function lookUp(body, done) {
  if (done === 0) {
    return {
      content: 'Looking it up in the history.',
      toolCalls: [
        {
          id: `call_recall_${Date.now()}`,
          name: 'search_history',
          arguments: JSON.stringify({ query: RECALLED_PHRASE }),
        },
      ],
    };
  }
  const result = [...(body.messages ?? [])].reverse().find((m) => m.role === 'tool');
  const text = typeof result?.content === 'string' ? result.content : '';
  const lines = text.split('\n');
  const at = lines.findIndex((l) => /replaced by checkpoint/.test(l));
  const quoted = at >= 0 ? (lines[at + 1] ?? '').trim() : '';
  return {
    content:
      at >= 0 && quoted.includes(RECALLED_PHRASE)
        ? `Recall: found it. ${lines[at].trim()}: ${quoted}`
        : `Recall: not found. ${text.slice(0, 300)}`,
  };
}

const server = await start({ responder, models: ['e2e-scripted'] });
fs.writeFileSync(process.argv[2], server.url);
console.log(`scripted model on ${server.url}`);
const stop = async () => {
  await server.close();
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
