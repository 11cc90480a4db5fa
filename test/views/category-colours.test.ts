/**
 * The gauge's categories have distinct colours in every built-in theme: read from media/main.css as
 * the webview resolves them (the theme's body class, else :root), each colour is at least 3:1 against
 * the theme's side bar background (WCAG 2.2, 1.4.11 non-text contrast) and at least 20 apart from
 * every other category (CIE76 ΔE in CIELAB; about 2.3 is the smallest difference people notice, and 20
 * reads as another colour at a glance on a 6 px bar). Backgrounds are the built-in themes' own
 * `sideBar.background` values.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';

const css = readFileSync(path.join(__dirname, '../../../media/main.css'), 'utf8');

/** Built-in themes: the body class VS Code gives the webview, and the side bar's background. */
const THEMES: Array<{ name: string; bodyClass: string; background: string }> = [
  { name: 'Dark Modern', bodyClass: 'vscode-dark', background: '#181818' },
  { name: 'Dark+', bodyClass: 'vscode-dark', background: '#252526' },
  { name: 'Light Modern', bodyClass: 'vscode-light', background: '#f8f8f8' },
  { name: 'Light+', bodyClass: 'vscode-light', background: '#f3f3f3' },
  { name: 'Dark High Contrast', bodyClass: 'vscode-high-contrast', background: '#000000' },
  { name: 'Light High Contrast', bodyClass: 'vscode-high-contrast-light', background: '#ffffff' },
];

/** The gauge's categories, in the order the sidebar draws them (src/webview/panels.ts). */
const CATEGORIES = ['system', 'instructions', 'tools', 'history', 'summaries', 'currentTask'];

/** The custom properties one rule block sets, by the block's exact selector. */
function propertiesOf(selector: string): Map<string, string> {
  const out = new Map<string, string>();
  const escaped = selector.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  for (const block of css.matchAll(new RegExp(`(?:^|\\n)${escaped}\\s*\\{([^}]*)\\}`, 'g')))
    for (const [, name, value] of block[1].matchAll(/(--[\w-]+)\s*:\s*([^;]+);/g)) out.set(name, value.trim());
  return out;
}

/** The variable a category's segment is painted with (`.segment-history { background: var(--ck-history) }`). */
function variableOf(category: string): string {
  const rule = new RegExp(`\\.segment-${category}\\s*\\{[^}]*background:\\s*var\\((--[\\w-]+)\\)`).exec(css);
  assert.ok(rule, `.segment-${category} is painted with a variable`);
  return rule[1];
}

function rgb(hex: string): [number, number, number] {
  const m = /^#([0-9a-f]{6})$/i.exec(hex);
  assert.ok(m, `${hex} is a literal #rrggbb colour (a theme variable could not be checked)`);
  return [0, 2, 4].map((i) => parseInt(m[1].slice(i, i + 2), 16) / 255) as [number, number, number];
}

const linear = (c: number) => (c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);

/** WCAG relative luminance. */
function luminance(hex: string): number {
  const [r, g, b] = rgb(hex).map(linear);
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** WCAG contrast ratio, 1 to 21. */
function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

/** CIELAB (D65) of an sRGB colour. */
function lab(hex: string): [number, number, number] {
  const [r, g, b] = rgb(hex).map(linear);
  const x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047;
  const y = 0.2126 * r + 0.7152 * g + 0.0722 * b;
  const z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883;
  const f = (t: number) => (t > 216 / 24389 ? Math.cbrt(t) : (24389 / 27 / 116) * t + 16 / 116);
  return [116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))];
}

/** CIE76 colour difference. */
function deltaE(a: string, b: string): number {
  const [p, q] = [lab(a), lab(b)];
  return Math.hypot(p[0] - q[0], p[1] - q[1], p[2] - q[2]);
}

test('the measures are right on known colours', () => {
  assert.equal(Math.round(contrast('#000000', '#ffffff') * 100) / 100, 21);
  assert.equal(contrast('#777777', '#777777'), 1);
  // Orange and yellow of Light Modern's own chart colours: the pair users could not tell apart.
  assert.ok(deltaE('#d18616', '#bf8803') < 20, `${deltaE('#d18616', '#bf8803')}`);
  assert.ok(Math.abs(lab('#ffffff')[0] - 100) < 0.01 && Math.abs(lab('#ffffff')[1]) < 0.01);
});

test('every category has its own colour, readable on the side bar, in every built-in theme', () => {
  const root = propertiesOf(':root');
  const problems: string[] = [];
  for (const theme of THEMES) {
    const own = propertiesOf(`body.${theme.bodyClass}`);
    const colours = CATEGORIES.map((category) => {
      const variable = variableOf(category);
      const value = own.get(variable) ?? root.get(variable);
      assert.ok(value, `${theme.name}: ${variable} is set`);
      return { category, value };
    });
    for (const { category, value } of colours) {
      const ratio = contrast(value, theme.background);
      if (ratio < 3)
        problems.push(`${theme.name}: ${category} ${value} is ${ratio.toFixed(2)}:1 on ${theme.background}`);
    }
    for (let i = 0; i < colours.length; i++)
      for (let j = i + 1; j < colours.length; j++) {
        const d = deltaE(colours[i].value, colours[j].value);
        if (d < 20)
          problems.push(
            `${theme.name}: ${colours[i].category} ${colours[i].value} and ${colours[j].category} ${colours[j].value} are ${d.toFixed(1)} apart`,
          );
      }
  }
  assert.deepEqual(problems, []);
});
