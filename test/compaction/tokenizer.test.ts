/**
 * The token counter against the reference tokenizers: js-tiktoken (`encode(text).length`) on every
 * class of text and on single pieces up to 8,000 characters (its merge is quadratic above), and the
 * `tiktoken` package (WASM) on pieces of 8,000-50,000 characters. Every count must be equal.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createTokenCounter, type EncodingName } from '../../src/tokenizer/tokenizer';
import { RankTable } from '../../src/tokenizer/rank-table';
import { classText, longPiece, TEXT_CLASSES } from '../support/token-corpus';
import { sharedTranscriptsDir } from '../support/shared';

/* eslint-disable @typescript-eslint/no-require-imports */
function jsTiktoken(name: EncodingName): (t: string) => number {
  const { Tiktoken } = require('js-tiktoken/lite') as {
    Tiktoken: new (r: unknown) => { encode(t: string, a: string[], d: string[]): number[] };
  };
  const ranks = require(`js-tiktoken/ranks/${name}`) as { default?: unknown };
  const enc = new Tiktoken(ranks.default ?? ranks);
  return (t) => enc.encode(t, [], []).length;
}
function wasmTiktoken(name: EncodingName): { count: (t: string) => number; free: () => void } {
  const { get_encoding } = require('tiktoken') as {
    get_encoding(n: string): { encode_ordinary(t: string): Uint32Array; free(): void };
  };
  const enc = get_encoding(name);
  return { count: (t) => enc.encode_ordinary(t).length, free: () => enc.free() };
}
/* eslint-enable @typescript-eslint/no-require-imports */

const ENCODINGS: EncodingName[] = ['o200k_base', 'cl100k_base'];
const KINDS = ['camel', 'letters', 'base64', 'cjk', 'cyrillic', 'spaces'] as const;

for (const name of ENCODINGS) {
  test(`${name}: counts equal js-tiktoken on code, prose, JSON, minified JS and multilingual text`, () => {
    const ours = createTokenCounter(name);
    const ref = jsTiktoken(name);
    for (const cls of TEXT_CLASSES) {
      for (let seed = 1; seed <= 12; seed++) {
        const text = classText(cls, seed * 31 + name.length, 200 + seed * 700);
        assert.equal(ours.countText(text), ref(text), `${cls} seed ${seed}`);
      }
    }
    for (const edge of [
      '',
      ' ',
      '\n',
      'a',
      '🙂',
      '\ud800',
      'x\udc00y',
      '   \n\n\t  end',
      '<|endoftext|> is plain text here',
      '1234567890123',
      "don't WON'T I'm",
    ]) {
      assert.equal(ours.countText(edge), ref(edge), JSON.stringify(edge));
    }
  });

  test(`${name}: single pieces just over 2,048 characters equal js-tiktoken (no chunking)`, () => {
    // js-tiktoken takes seconds per piece this long (its merge is quadratic); the benchmark compares
    // pieces up to 8,000 characters with it, and every length up to 50,000 with tiktoken below.
    const ours = createTokenCounter(name);
    const ref = jsTiktoken(name);
    for (const kind of name === 'cl100k_base' ? (['camel'] as const) : (['cjk'] as const)) {
      const piece = longPiece(kind, 2049, 2049);
      assert.equal(ours.countText(piece), ref(piece), `${kind} × 2049`);
    }
  });

  test(`${name}: single pieces of 2,000-50,000 characters equal the tiktoken package (WASM)`, () => {
    const ours = createTokenCounter(name);
    const ref = wasmTiktoken(name);
    try {
      for (const kind of KINDS) {
        for (const chars of kind === 'letters' || kind === 'cjk' ? [2049, 12_000, 50_000] : [4100, 12_000]) {
          const piece = longPiece(kind, chars + 1, chars);
          assert.equal(ours.countText(piece), ref.count(piece), `${kind} × ${chars}`);
        }
      }
      // A long piece inside ordinary text, and minified code on one line.
      const mixed = `${classText('prose', 5, 3000)} ${longPiece('letters', 9, 20_000)}\n${classText('minified', 6, 40_000)}`;
      assert.equal(ours.countText(mixed), ref.count(mixed));
    } finally {
      ref.free();
    }
  });
}

test('a 2,049-character and a 30,000-character camelCase run are counted exactly (cl100k_base)', () => {
  const ours = createTokenCounter('cl100k_base');
  const ref = wasmTiktoken('cl100k_base');
  try {
    for (const chars of [2049, 30_000]) {
      const piece = longPiece('camel', 77, chars);
      assert.equal(ours.countText(piece), ref.count(piece));
    }
  } finally {
    ref.free();
  }
});

test('the rank table round-trips through its prebuilt form and rejects a damaged file by name', () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const mod = require('js-tiktoken/ranks/cl100k_base') as { default?: unknown };
  const table = RankTable.fromTiktokenRanks((mod.default ?? mod) as { pat_str: string; bpe_ranks: string });
  const copy = RankTable.deserialize(table.serialize(), 'cl100k_base.bin');
  assert.equal(copy.size, table.size);
  assert.deepEqual(copy.slots, table.slots, 'the slots are rebuilt as they were built');
  assert.equal(copy.pattern, table.pattern);
  const hi = new TextEncoder().encode('hi');
  assert.equal(copy.rank(hi, 0, 2), table.rank(hi, 0, 2));
  assert.ok(table.rank(hi, 0, 2) >= 0);
  assert.equal(table.rank(new Uint8Array([0xff, 0xfe, 0xfd, 0xfc, 0xfb, 0xfa]), 0, 6), -1);
  assert.ok(table.byteSize < 10e6, `table holds ${table.byteSize} bytes`);
  const damaged = table.serialize().slice(0, 1000);
  assert.throws(
    () => RankTable.deserialize(damaged, '/x/ranks/cl100k_base.bin'),
    /\/x\/ranks\/cl100k_base\.bin: rank table is 1000 bytes/,
  );
  const foreign = new Uint8Array(64);
  assert.throws(() => RankTable.deserialize(foreign, 'other.bin'), /other\.bin: not a rank table/);
});

test('the tables shipped in dist/ranks read back slot for slot as the tables built from js-tiktoken', async () => {
  for (const name of ['o200k_base', 'cl100k_base'] as const) {
    const file = path.resolve(__dirname, `../../../dist/ranks/${name}.bin`);
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const mod = require(`js-tiktoken/ranks/${name}`) as { default?: unknown };
    const built = RankTable.fromTiktokenRanks((mod.default ?? mod) as { pat_str: string; bpe_ranks: string });
    const data = fs.readFileSync(file);
    assert.ok(data.length < built.byteSize / 2, `${name}: the shipped file (${data.length} bytes) is the compact form`);
    for (const read of [
      RankTable.deserialize(data, file),
      await RankTable.deserializeInTurns(
        data,
        file,
        () => new Promise<void>((resolve) => setImmediate(resolve)),
        7_000,
      ),
    ]) {
      assert.equal(read.pattern, built.pattern, name);
      assert.deepEqual(read.starts, built.starts, `${name}: starts`);
      assert.deepEqual(read.bytes, built.bytes, `${name}: bytes`);
      assert.deepEqual(read.slots, built.slots, `${name}: slots`);
    }
  }
});

const dir = sharedTranscriptsDir();
test('counts equal the references on every line of every recorded transcript', (t) => {
  if (!dir)
    return t.skip('../shared/transcripts not found beside the repository; set CONTEXT_KEEPER_SHARED to run this');
  const ours = createTokenCounter('o200k_base');
  const ref = jsTiktoken('o200k_base');
  const wasm = wasmTiktoken('o200k_base');
  let texts = 0;
  for (const sub of fs.readdirSync(dir, { withFileTypes: true }).filter((d) => d.isDirectory())) {
    for (const f of fs.readdirSync(path.join(dir, sub.name))) {
      // Whole files as text: every string the transcripts hold, with their JSON framing.
      const text: string = fs.readFileSync(path.join(dir, sub.name, f), 'utf8');
      for (const line of text.split('\n').filter((l: string) => l.length > 0 && l.length < 200_000)) {
        texts++;
        const n = ours.countText(line);
        assert.equal(n, wasm.count(line), `${sub.name}/${f}`);
        // js-tiktoken's merge is quadratic in a piece's length: only lines it counts in reasonable time.
        if (line.length <= 8000) assert.equal(n, ref(line), `${sub.name}/${f}`);
      }
    }
  }
  wasm.free();
  assert.ok(texts > 0);
});
