/**
 * Child process of the extension benchmark: loads dist/extension.js with a stub of the `vscode`
 * module, calls activate(), and prints one JSON line with timings (ms) and heap growth (bytes).
 * Run as `node --expose-gc out/bench/activate.js <dist/extension.js> [--encoder] [--count]`; with
 * `--encoder` it instead times loading js-tiktoken's o200k_base rank table and building its encoder
 * (the reference cost activation must not pay); with `--count` it counts `Map.prototype.set` calls
 * instead of timing (building a rank table makes about 200,000; activation should make few).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import Module from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** A value for any API the stub does not model: callable, constructible, every property another stub. */
function anything(name: string): unknown {
  const fn = function () {} as unknown as object;
  return new Proxy(fn, {
    get(_t, key) {
      if (key === 'then') return undefined;
      if (key === Symbol.toPrimitive) return () => `stub:${name}`;
      if (key === Symbol.iterator) return function* () {};
      if (key === 'toString' || key === 'toJSON') return () => `stub:${name}`;
      return anything(`${name}.${String(key)}`);
    },
    set: () => true,
    defineProperty: () => true,
    apply: () => anything(`${name}()`),
    construct: () => anything(`new ${name}`) as object,
  });
}

class EventEmitter<T> {
  private listeners: Array<(e: T) => void> = [];
  readonly event = (listener: (e: T) => void) => {
    this.listeners.push(listener);
    return { dispose: () => void (this.listeners = this.listeners.filter((l) => l !== listener)) };
  };
  fire(e: T): void {
    for (const l of this.listeners) l(e);
  }
  dispose(): void {
    this.listeners = [];
  }
}

class Disposable {
  constructor(private readonly fn: () => void = () => {}) {}
  static from(...ds: Array<{ dispose(): void }>): Disposable {
    return new Disposable(() => ds.forEach((d) => d.dispose()));
  }
  dispose(): void {
    this.fn();
  }
}

/** Namespaces and classes of the `vscode` API that the bundle may touch at load or activation. */
const API_NAMES = [
  'window',
  'commands',
  'env',
  'languages',
  'extensions',
  'l10n',
  'debug',
  'tasks',
  'scm',
  'authentication',
  'chat',
  'lm',
  'Uri',
  'ThemeColor',
  'ThemeIcon',
  'MarkdownString',
  'RelativePattern',
  'CancellationTokenSource',
  'CancellationError',
  'StatusBarAlignment',
  'ViewColumn',
  'ProgressLocation',
  'ConfigurationTarget',
  'TreeItem',
  'TreeItemCollapsibleState',
  'Range',
  'Position',
  'Selection',
  'WorkspaceEdit',
  'TextEdit',
  'FileType',
  'FileSystemError',
  'LogLevel',
  'QuickPickItemKind',
];

/** A plain object (the bundle copies its own properties) with the API surface activation uses. */
function vscodeStub(): Record<string, unknown> {
  const config = {
    get: (_k: string, d?: unknown) => d,
    has: () => false,
    inspect: () => undefined,
    update: async () => {},
  };
  const stub: Record<string, unknown> = {};
  for (const name of API_NAMES) stub[name] = anything(name);
  stub.EventEmitter = EventEmitter;
  stub.Disposable = Disposable;
  const workspace = {
    getConfiguration: () => config,
    workspaceFolders: undefined,
    onDidChangeConfiguration: () => new Disposable(),
  };
  stub.workspace = new Proxy(workspace, {
    get: (t, k) => (k in t ? (t as Record<string | symbol, unknown>)[k] : anything(`workspace.${String(k)}`)),
  });
  return stub;
}

const storageFolder = mkdtempSync(path.join(tmpdir(), 'ck-bench-storage-'));
process.on('exit', () => rmSync(storageFolder, { recursive: true, force: true }));

function context(extensionPath: string): unknown {
  const memento = {
    get: (_k: string, d?: unknown) => d,
    update: async () => {},
    keys: () => [],
    setKeysForSync: () => {},
  };
  return new Proxy(
    {
      subscriptions: [] as Array<{ dispose(): void }>,
      secrets: {
        get: async () => undefined,
        store: async () => {},
        delete: async () => {},
        onDidChange: () => new Disposable(),
      },
      workspaceState: memento,
      globalState: memento,
      extension: { packageJSON: { version: '0.0.0-bench' } },
      extensionPath,
      extensionUri: anything('extensionUri'),
      // A real folder: activation derives the sessions folder from it.
      globalStorageUri: { fsPath: storageFolder, scheme: 'file' },
      storageUri: undefined,
      logUri: anything('logUri'),
    },
    { get: (t, k) => (k in t ? (t as Record<string | symbol, unknown>)[k] : anything(`context.${String(k)}`)) },
  );
}

/** Heap plus memory held outside it (array buffers, external strings), in bytes, after a GC when exposed. */
function heap(): number {
  (globalThis as { gc?: () => void }).gc?.();
  const m = process.memoryUsage();
  return m.heapUsed + m.external;
}

/** Counts `Map.prototype.set` calls while `fn` runs: building a rank table makes hundreds of thousands. */
function countMapSets(fn: () => void): number {
  // eslint-disable-next-line @typescript-eslint/unbound-method -- called below with the right `this`
  const original = Map.prototype.set;
  let n = 0;
  Map.prototype.set = function (this: Map<unknown, unknown>, k: unknown, v: unknown) {
    n++;
    return original.call(this, k, v);
  };
  try {
    fn();
  } finally {
    Map.prototype.set = original;
  }
  return n;
}

function main(): void {
  const file = path.resolve(process.argv[2] ?? 'dist/extension.js');
  const now = () => Number(process.hrtime.bigint()) / 1e6;
  if (process.argv.includes('--encoder')) {
    const load = () => {
      /* eslint-disable @typescript-eslint/no-require-imports */
      const { Tiktoken } = require('js-tiktoken/lite') as {
        Tiktoken: new (r: unknown) => { encode(t: string): number[] };
      };
      const ranks = require('js-tiktoken/ranks/o200k_base') as { default?: unknown };
      return new Tiktoken(ranks.default ?? ranks).encode('hello world');
      /* eslint-enable @typescript-eslint/no-require-imports */
    };
    if (process.argv.includes('--count')) {
      process.stdout.write(`${JSON.stringify({ mapSets: countMapSets(() => void load()) })}\n`);
      return;
    }
    const h0 = heap();
    const t0 = now();
    const tokens = load();
    const ms = now() - t0;
    process.stdout.write(`${JSON.stringify({ encoderMs: ms, encoderHeap: heap() - h0, tokens: tokens.length })}\n`);
    return;
  }
  const stub = vscodeStub();
  const loader = Module as unknown as { _load: (request: string, parent: unknown, isMain: boolean) => unknown };
  const original = loader._load;
  loader._load = function (request, parent, isMain) {
    if (request === 'vscode') return stub;
    return original.call(this, request, parent, isMain);
  };
  const ctx = context(path.dirname(path.dirname(file))) as { subscriptions: Array<{ dispose(): void }> };
  if (process.argv.includes('--count')) {
    const mapSets = countMapSets(() => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      (require(file) as { activate(c: unknown): unknown }).activate(ctx);
    });
    process.stdout.write(`${JSON.stringify({ mapSets, subscriptions: ctx.subscriptions.length })}\n`);
  } else {
    const h0 = heap();
    const t0 = now();
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const ext = require(file) as { activate(c: unknown): unknown; deactivate?(): void };
    const t1 = now();
    ext.activate(ctx);
    const t2 = now();
    const heapGrowth = heap() - h0;
    process.stdout.write(
      `${JSON.stringify({ requireMs: t1 - t0, activateMs: t2 - t1, totalMs: t2 - t0, heap: heapGrowth, subscriptions: ctx.subscriptions.length })}\n`,
    );
  }
  for (const d of ctx.subscriptions) {
    try {
      d.dispose();
    } catch {
      // A stub object may not dispose cleanly; irrelevant to the measurement.
    }
  }
  setTimeout(() => process.exit(0), 50);
}

main();
