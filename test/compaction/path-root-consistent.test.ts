/**
 * A summary writes a folder one way: every path under a named folder is written from its name, a file
 * directly in it too, and so are the files and folders a command deletes or moves by a relative path
 * after `cd DIR &&` (they lie in DIR, and two folders' `.next` are two entries, not one). The
 * identifier lists write paths the same way, and leave out a relative path the files section names.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WRITERS, summaryOf, sectionOf, type Step } from '../support/recordings';

const filler = (n: number) => 'lorem ipsum dolor sit amet '.repeat(n);

/** The work, with paths under `root` (ending with its separator) written with `sep`. */
function work(root: string, sep: string): Step[] {
  const p = (...parts: string[]) => root + parts.join(sep);
  const deep = ['src', 'components', 'incidents'];
  return [
    { user: 'set up the incident pages and clean the build folders' },
    ...['IncidentList', 'IncidentForm', 'IncidentMap', 'IncidentDetails'].map((n): Step => ({
      tool: 'write',
      path: p(...deep, `${n}.tsx`),
      content: `export function ${n}() {}`,
    })),
    { tool: 'write', path: p('package.json'), content: '{ "name": "incidents" }' },
    {
      tool: 'bash',
      command: `cd ${p('terraform')} && rm -rf .terraform && cd .. && rm -rf .next && mv notes.txt ${['docs', 'notes.txt'].join(sep)}`,
      output: '',
      exit: 0,
    },
    { say: `Done. ${filler(2500)}` },
    { user: 'thanks' },
    { say: 'ok' },
  ];
}

const CASES = [
  { format: 'claude-code', root: '/home/someone/projects/marine-response-app/', sep: '/' },
  { format: 'codex', root: '/home/someone/projects/marine-response-app/', sep: '/' },
  { format: 'cline', root: 'c:\\Apps\\MarineResponseApp04242026\\', sep: '\\' },
] as const;

for (const { format, root, sep } of CASES) {
  test(`${format}: paths under a named folder, deleted and moved ones too, are all written from its name`, async () => {
    const { write, file } = WRITERS[format];
    const { summary } = await summaryOf(write(work(root, sep)), file);
    // The folder is named without its last separator, as a shell variable holds it.
    const written = root.slice(0, -1).replace(/[\\$.]/g, '\\$&');
    const name = new RegExp(`\\$([A-Z]) = ${written}(?:,|$)`, 'm').exec(summary)?.[1];
    assert.ok(name, `the folder is named:\n${summary}`);
    const files = sectionOf(summary, 'Files changed');
    const at = (...parts: string[]) => [`$${name}`, ...parts].join(sep);
    // A file is named on its own line or by its folder's (`- in $A/terraform/: deleted .terraform`).
    const named = (dir: string[], file: string, what: string) =>
      files.includes(`- ${at(...dir, file)}`) ||
      files.split('\n').some((l) => l.startsWith(`- in ${at(...dir)}${sep}: `) && l.includes(`${what} ${file}`));
    assert.ok(named([], 'package.json', 'created'), summary);
    assert.ok(named(['terraform'], '.terraform', 'deleted'), summary);
    assert.ok(named([], '.next', 'deleted'), summary);
    assert.ok(named(['docs'], 'notes.txt', 'moved here'), summary);
    assert.ok(!files.includes(root), `no path of the folder is written in full:\n${files}`);
  });
}

/** Work under `root` whose command names a folder under it and, relative to the project, a folder and a file the files section names. */
function listed(root: string, sep: string): Step[] {
  const p = (...parts: string[]) => root + parts.join(sep);
  const rel = (...parts: string[]) => parts.join(sep);
  // A long command: its quote under "Commands and outcomes" is cut before the paths at its end.
  const check = `echo ${'checking the incident components before the build '.repeat(5)}`;
  return [
    { user: 'set up the incident pages' },
    ...['IncidentList', 'IncidentForm', 'IncidentMap', 'IncidentDetails'].map((n): Step => ({
      tool: 'write',
      path: p('src', 'components', 'incidents', `${n}.tsx`),
      content: `export function ${n}() {}`,
    })),
    {
      tool: 'bash',
      command: `${check} && ls ${p('src', 'components', 'legacy')} && ls ${rel('src', 'components', 'incidents')} && ls ${rel('.', 'src', 'components', 'incidents', 'IncidentMap.tsx')}`,
      output: 'IncidentMap.tsx',
      exit: 0,
    },
    { say: `Done. ${filler(2500)}` },
    { user: 'thanks' },
    { say: 'ok' },
  ];
}

for (const { format, root, sep } of CASES) {
  test(`${format}: identifier lists write a path from the folder the files section names, and skip the files it names`, async () => {
    const { write, file } = WRITERS[format];
    const { summary } = await summaryOf(write(listed(root, sep)), file);
    const name = new RegExp(`\\$([A-Z]) = (\\S+)$`, 'm').exec(summary);
    assert.ok(name, `a folder is named:\n${summary}`);
    const ids = sectionOf(summary, 'Identifiers from tool-call arguments');
    const legacy = [...`${root}src${sep}components${sep}legacy`.slice(name[2].length + 1).split(sep)];
    assert.ok(ids.split('\n').includes(`- $${name[1]}${sep}${legacy.join(sep)}`), summary);
    assert.ok(!ids.includes(root), `no path of the named folder is written in full:\n${ids}`);
    // The relative folder and file are those the files section names (from the named folder).
    assert.doesNotMatch(ids, /incidents/, summary);
  });
}
