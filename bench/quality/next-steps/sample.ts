/**
 * The hand check of the needed-token rules: draws a fixed sample of needed tokens over every shared
 * recording (round robin over the recordings, seeded), prints each with the call that used it and
 * its last occurrence in the replaced span, and, with the reviewed verdicts of
 * bench/quality/needed-sample.json, reports the rules' precision.
 *
 * The data file stores locators, never the tokens (the recordings may not be copied into the
 * project): recording, window, point, message index of the use, kind, SHA-256 and length of the token.
 *
 * `npm run bench:needed` prints the sample and the precision; `-- --draft` writes the draft file
 * (verdicts empty) when there is none.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { transcriptFiles } from '../../corpus';
import { loadSession } from '../../../src/cli/load';
import { textWithPlaceholders } from '../../../src/compaction/content-text';
import { agentCalls, argStrings } from '../../../src/compaction/retention';
import { readTypedData, typedDataPath } from '../typed';
import { evaluateRecording } from './evaluate';
import type { NeededToken } from './needed';

/** Size of the sample. */
export const SAMPLE = 40;

/** One reviewed sample item. */
export interface SampleItem {
  file: string;
  window: number;
  point: string;
  /** Message index of the call that used the token. */
  usedAt: number;
  kind: NeededToken['kind'];
  sha256: string;
  length: number;
  /** true: the rule is right (the agent needed this from the span); false: it is not; null: not reviewed. */
  correct: boolean | null;
  /** The reviewer's reason, in words that do not quote the recording. */
  note: string;
}

/** The data file. */
export interface SampleData {
  method: string;
  items: SampleItem[];
}

export const samplePath = (root: string) => path.join(root, 'bench/quality/needed-sample.json');
export const tokenHash = (t: string) => createHash('sha256').update(t).digest('hex');

/** A deterministic generator (mulberry32). */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A candidate with what a reviewer reads. */
export interface Candidate {
  item: SampleItem;
  token: string;
  index: number;
  span: number[];
}

/** Every needed token of every point, in a stable order. */
export async function candidates(root: string): Promise<{ dir: string | undefined; all: Candidate[] }> {
  const { dir, files } = transcriptFiles();
  if (!dir) return { dir, all: [] };
  const data = readTypedData(typedDataPath(root));
  const all: Candidate[] = [];
  for (const f of files) {
    const name = path.relative(dir, f).split(path.sep).join('/');
    const r = await evaluateRecording(
      f,
      name,
      data.transcripts.find((t) => t.file === name),
      () => {},
    );
    for (const p of r.points) {
      const g = r.golds.get(p);
      if (!g) continue;
      for (const t of g.needed) {
        all.push({
          item: {
            file: name,
            window: p.window,
            point: p.point,
            usedAt: t.usedAt,
            kind: t.kind,
            sha256: tokenHash(t.token),
            length: t.token.length,
            correct: null,
            note: '',
          },
          token: t.token,
          index: p.index,
          span: [],
        });
      }
    }
  }
  return { dir, all };
}

/** Draws {@link SAMPLE} distinct tokens (by recording and token), round robin over the recordings, seeded. */
export function draw(all: readonly Candidate[], seed = 26): Candidate[] {
  const byFile = new Map<string, Candidate[]>();
  const seen = new Set<string>();
  for (const c of all) {
    const key = `${c.item.file}\u0000${c.item.sha256}`;
    if (seen.has(key)) continue;
    seen.add(key);
    byFile.set(c.item.file, [...(byFile.get(c.item.file) ?? []), c]);
  }
  const r = rng(seed);
  for (const list of byFile.values()) {
    for (let i = list.length - 1; i > 0; i--) {
      const j = Math.floor(r() * (i + 1));
      [list[i], list[j]] = [list[j], list[i]];
    }
  }
  const out: Candidate[] = [];
  const lists = [...byFile.values()];
  for (let round = 0; out.length < SAMPLE && lists.some((l) => l.length > round); round++)
    for (const l of lists) if (l[round] && out.length < SAMPLE) out.push(l[round]);
  return out;
}

function around(text: string, token: string, width = 160): string {
  const at = text.indexOf(token);
  if (at < 0) return '(not found verbatim)';
  return text
    .slice(Math.max(0, at - width), at + token.length + width)
    .replace(/\s+/g, ' ')
    .trim();
}

async function main(): Promise<void> {
  // Bundled to out/bench/quality/next-steps/sample.js.
  const root = path.resolve(__dirname, '../../../..');
  const { dir, all } = await candidates(root);
  if (!dir) {
    console.log('needed-token sample: skipped, no shared transcripts');
    return;
  }
  const sample = draw(all);
  const file = samplePath(root);
  const reviewed = fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as SampleData) : undefined;
  for (const [k, c] of sample.entries()) {
    const s = await loadSession(path.join(dir, c.item.file));
    const use = agentCalls(s.entries).find(
      (x) => x.index === c.item.usedAt && argStrings(x.args).some((a) => a.includes(c.token)),
    );
    let last = -1;
    for (let i = 0; i < c.index; i++) {
      const m = s.entries[i].message;
      const text = `${textWithPlaceholders(m.content)}\n${(m as { tool_calls?: Array<{ function?: { arguments?: string } }> }).tool_calls?.map((t) => t.function?.arguments ?? '').join('\n') ?? ''}`;
      if (text.includes(c.token)) last = i;
    }
    const lastText = last >= 0 ? s.entries[last].message : undefined;
    const verdict = reviewed?.items.find((x) => x.file === c.item.file && x.sha256 === c.item.sha256);
    console.log(
      `\n#${k + 1} ${c.item.file} @${c.item.window / 1000}k ${c.item.point} (point ${c.index}) ${c.item.kind}: ${c.token}`,
    );
    console.log(
      `  used at ${c.item.usedAt} by ${use?.name ?? '?'}: ${use ? around(argStrings(use.args).join(' | '), c.token) : ''}`,
    );
    if (lastText)
      console.log(
        `  last before the point: message ${last} (${lastText.role}): ${around(`${textWithPlaceholders(lastText.content)} ${JSON.stringify((lastText as { tool_calls?: unknown }).tool_calls ?? '')}`, c.token)}`,
      );
    if (verdict)
      console.log(
        `  verdict: ${verdict.correct === null ? 'not reviewed' : verdict.correct ? 'correct' : 'wrong'} — ${verdict.note}`,
      );
  }
  if (!reviewed && process.argv.includes('--draft')) {
    const draft: SampleData = {
      method: 'draft: verdicts not reviewed yet',
      items: sample.map((c) => c.item),
    };
    fs.writeFileSync(file, `${JSON.stringify(draft, null, 2)}\n`);
    console.log(`\nwrote the draft ${file}`);
  }
  if (reviewed) {
    const p = samplePrecision(reviewed, all);
    console.log(
      `\nprecision of the needed-token rules on the reviewed sample: ${p.correct}/${p.reviewed}; on the ${p.stillProduced} tokens the current rules still produce: ${p.correctStillProduced}/${p.stillProduced}`,
    );
  }
}

/** Precision figures of the reviewed sample, as sampled and on the tokens the current rules still produce. */
export interface SamplePrecision {
  reviewed: number;
  correct: number;
  stillProduced: number;
  correctStillProduced: number;
}

/** Precision of `data`'s verdicts; `all` are the current rules' candidates (to tell which items they still produce). */
export function samplePrecision(data: SampleData, all: readonly Candidate[]): SamplePrecision {
  const produced = new Set(all.map((c) => `${c.item.file}\u0000${c.item.sha256}`));
  const done = data.items.filter((x) => x.correct !== null);
  const still = done.filter((x) => produced.has(`${x.file}\u0000${x.sha256}`));
  return {
    reviewed: done.length,
    correct: done.filter((x) => x.correct).length,
    stillProduced: still.length,
    correctStillProduced: still.filter((x) => x.correct).length,
  };
}

if (require.main === module)
  main().catch((e: unknown) => {
    console.error(e);
    process.exit(1);
  });
