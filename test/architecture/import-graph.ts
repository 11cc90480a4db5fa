/**
 * The import graph of src/, read from the syntax of every module: static imports (including
 * `import type`), `export ... from`, `import x = require()`, `require()`, dynamic `import()` and
 * `import('...')` type queries. Type-only edges count: a circle of types still ties the modules together.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/** Module -> the modules it imports; keys and values are paths relative to the root, with `/` separators. */
export type ImportGraph = Map<string, Set<string>>;

/** Every .ts file under `dir` (absolute), as absolute paths. */
function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sourceFiles(full));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) out.push(full);
  }
  return out;
}

/** Module specifiers written in `text`, in every import form listed in the module comment. */
export function importSpecifiers(text: string, fileName = 'module.ts'): string[] {
  const file = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) {
      if (ts.isStringLiteral(node.moduleSpecifier)) found.push(node.moduleSpecifier.text);
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      const expression = node.moduleReference.expression;
      if (ts.isStringLiteral(expression)) found.push(expression.text);
    } else if (ts.isCallExpression(node)) {
      const isImport = node.expression.kind === ts.SyntaxKind.ImportKeyword;
      const isRequire = ts.isIdentifier(node.expression) && node.expression.text === 'require';
      const [first] = node.arguments;
      if ((isImport || isRequire) && first && ts.isStringLiteralLike(first)) found.push(first.text);
    } else if (ts.isImportTypeNode(node)) {
      const argument = node.argument;
      if (ts.isLiteralTypeNode(argument) && ts.isStringLiteral(argument.literal)) found.push(argument.literal.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

/**
 * The file a relative specifier names, or undefined for packages and for paths that name no file
 * (`./x`, `./x.js` and `./x/index` all resolve to the `.ts` source).
 */
function resolve(fromFile: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const base = path.resolve(path.dirname(fromFile), specifier).replace(/\.js$/, '');
  for (const candidate of [`${base}.ts`, path.join(base, 'index.ts')]) if (fs.existsSync(candidate)) return candidate;
  return undefined;
}

/** The import graph of every .ts file under `root` (absolute); edges leave out packages and files outside it. */
export function importGraph(root: string): ImportGraph {
  const graph: ImportGraph = new Map();
  const key = (file: string) => path.relative(root, file).split(path.sep).join('/');
  for (const file of sourceFiles(root)) {
    const targets = new Set<string>();
    for (const specifier of importSpecifiers(fs.readFileSync(file, 'utf8'), file)) {
      const target = resolve(file, specifier);
      if (target && target.startsWith(root + path.sep)) targets.add(key(target));
    }
    graph.set(key(file), targets);
  }
  return graph;
}

/**
 * The import circles of `graph`: one per strongly connected component of two or more modules (or one
 * module importing itself), each as a closed path `[a, b, ..., a]` through that component, so a failure
 * names the files to untie. Tarjan's algorithm, iterative so deep graphs do not overflow the stack.
 */
export function findCycles(graph: ImportGraph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const components: string[][] = [];
  let counter = 0;
  const successors = (node: string) => [...(graph.get(node) ?? [])];

  for (const start of [...graph.keys()].sort()) {
    if (index.has(start)) continue;
    const work: Array<{ node: string; next: number }> = [{ node: start, next: 0 }];
    index.set(start, counter);
    low.set(start, counter++);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const frame = work[work.length - 1];
      const targets = successors(frame.node);
      if (frame.next < targets.length) {
        const target = targets[frame.next++];
        if (!index.has(target)) {
          index.set(target, counter);
          low.set(target, counter++);
          stack.push(target);
          onStack.add(target);
          work.push({ node: target, next: 0 });
        } else if (onStack.has(target)) {
          low.set(frame.node, Math.min(low.get(frame.node)!, index.get(target)!));
        }
        continue;
      }
      work.pop();
      if (work.length > 0) {
        const parent = work[work.length - 1].node;
        low.set(parent, Math.min(low.get(parent)!, low.get(frame.node)!));
      }
      if (low.get(frame.node) === index.get(frame.node)) {
        const component: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.node);
        if (component.length > 1 || graph.get(frame.node)?.has(frame.node)) components.push(component);
      }
    }
  }
  return components.map((component) => cycleThrough(graph, new Set(component)));
}

/** A closed path through the members of one strongly connected component, starting at its first member by name. */
function cycleThrough(graph: ImportGraph, members: Set<string>): string[] {
  const start = [...members].sort()[0];
  // Breadth-first from start back to start, staying inside the component: the shortest circle through it.
  const previous = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift()!;
    for (const target of [...(graph.get(node) ?? [])].sort()) {
      if (!members.has(target)) continue;
      if (target === start) {
        const chain: string[] = [];
        for (let at = node; at !== start; at = previous.get(at)!) chain.unshift(at);
        return [start, ...chain, start];
      }
      if (!previous.has(target)) {
        previous.set(target, node);
        queue.push(target);
      }
    }
  }
  return [start, start];
}
