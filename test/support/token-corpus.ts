/**
 * Seeded texts for tokenizer tests and benchmarks, by class (code, prose, JSON, minified JS,
 * multilingual), and single pre-tokenizer pieces of a given length (long unbroken runs).
 */
import { rng } from './generate';

/** Text classes the tokenizer is measured on. */
export type TextClass = 'code' | 'prose' | 'json' | 'minified' | 'multilingual';
export const TEXT_CLASSES: readonly TextClass[] = ['code', 'prose', 'json', 'minified', 'multilingual'];

const PROSE =
  'the a to of and in is that for it with as was on be by this are not or from at we an but which can if will file function test error value return config path module class type result fixed update window meter summary checkpoint conversation'.split(
    ' ',
  );
const IDENTS = [
  'parseInput',
  'tokenCount',
  'contextWindow',
  'onDidChange',
  'maxOutputTokens',
  'i',
  'n',
  'result',
  'items',
  'CompactionPlan',
  'TOKENS_PER_MESSAGE',
  'fs',
  'path',
  'readFileSync',
  'err',
  'value',
];
const CODE_LINES = [
  'export function $(input: string): number {',
  '  const $ = input.split(/\\s+/).filter(Boolean);',
  '  if ($.length === 0) throw new Error(`empty ${$} at line ${$}`);',
  '  for (let i = 0; i < $.length; i++) total += $[i] * 0x1f;',
  '  return { ok: true, value: $.map((t) => t.trim()) };',
  '}',
  "import { $ } from './$';",
  '    at Object.<anonymous> (src/$.ts:42:13)',
  'def $(self, request):\n        return self.$(request)  # why: cache',
  '\t\tif (!$) {\n\t\t\treturn null;\n\t\t}',
];
/** Sentences in several scripts (Japanese, Chinese, Korean, Russian, Polish, Greek, Arabic, Hindi, emoji). */
const MULTI = [
  'トークン数を正確に数えるためのテキストです。会話が長くなると要約されます。',
  '上下文窗口中的令牌计数必须精确，否则压缩会过早触发。',
  '컨텍스트 창에 맞도록 대화를 요약합니다. 토큰 수는 정확해야 합니다.',
  'Счётчик токенов должен быть точным: иначе сжатие сработает слишком рано.',
  'Zażółć gęślą jaźń — licznik tokenów musi być dokładny, nawet dla długich wiadomości.',
  'Ο μετρητής διακριτικών πρέπει να είναι ακριβής.',
  'يجب أن يكون عداد الرموز دقيقًا حتى لا يبدأ الضغط مبكرًا.',
  'टोकन गणना सटीक होनी चाहिए ताकि संक्षेपण समय से पहले न हो।',
  'Emoji too 🙂🚀👩‍💻 and flags 🇵🇱🇯🇵, combining e\u0301 and a lone \ud800 surrogate.',
];

function pick<T>(r: () => number, xs: readonly T[]): T {
  return xs[Math.floor(r() * xs.length)];
}

/** One text of `cls` of about `chars` characters, seeded. */
export function classText(cls: TextClass, seed: number, chars: number): string {
  const r = rng(seed);
  let out = '';
  while (out.length < chars) {
    switch (cls) {
      case 'code':
        out += `${pick(r, CODE_LINES).replace(/\$/g, () => pick(r, IDENTS))}\n`;
        break;
      case 'prose': {
        const words = Array.from({ length: 6 + Math.floor(r() * 14) }, () => pick(r, PROSE));
        out += `${words[0][0].toUpperCase()}${words.join(' ').slice(1)}. `;
        if (r() < 0.15) out += '\n\n';
        break;
      }
      case 'json':
        out += `${JSON.stringify({ id: Math.floor(r() * 1e6), name: pick(r, IDENTS), tags: [pick(r, PROSE), pick(r, PROSE)], score: r(), path: `/src/${pick(r, IDENTS)}.ts` }, null, r() < 0.5 ? 2 : undefined)},\n`;
        break;
      case 'minified':
        out += `function ${pick(r, IDENTS)}(a,b){var c=a.${pick(r, IDENTS)}||{};for(var d=0;d<b.length;d++)c[b[d]]=(c[b[d]]|0)+${Math.floor(r() * 99)};return c}`;
        break;
      case 'multilingual':
        out += `${pick(r, MULTI)}${r() < 0.3 ? '\n' : ' '}`;
        break;
    }
  }
  return out;
}

/**
 * A run of `chars` UTF-16 code units that is one pre-tokenizer piece (camel and base64 only in
 * cl100k_base; o200k_base splits before capitals): a
 * camelCase run, random letters, base64 without padding, CJK, Cyrillic, or spaces.
 */
export function longPiece(
  kind: 'camel' | 'letters' | 'base64' | 'cjk' | 'cyrillic' | 'spaces',
  seed: number,
  chars: number,
): string {
  const r = rng(seed);
  const a: string[] = [];
  const lower = 'abcdefghijklmnopqrstuvwxyz';
  const b64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
  for (let i = 0; i < chars; i++) {
    switch (kind) {
      case 'camel':
        a.push(i % 7 === 0 ? pick(r, [...lower]).toUpperCase() : pick(r, [...'tokencountwindow']));
        break;
      case 'letters':
        a.push(pick(r, [...lower]));
        break;
      case 'base64':
        a.push(pick(r, [...b64]));
        break;
      case 'cjk':
        a.push(String.fromCharCode(0x4e00 + Math.floor(r() * 2000)));
        break;
      case 'cyrillic':
        a.push(String.fromCharCode(0x430 + Math.floor(r() * 32)));
        break;
      case 'spaces':
        a.push(' ');
        break;
    }
  }
  return a.join('');
}
