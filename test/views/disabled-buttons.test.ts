/**
 * Every kind of button the sidebar draws looks disabled when it is: read from media/main.css with the
 * cascade a browser applies to simple selectors (specificity, then order), a disabled button of each
 * kind is faded, takes the theme's disabled colour and a not-allowed cursor, and does not change on hover.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';

const css = readFileSync(path.join(__dirname, '../../../media/main.css'), 'utf8').replace(/\/\*[\s\S]*?\*\//g, '');

interface Rule {
  selectors: string[];
  declarations: Map<string, string>;
  order: number;
}

/** Top-level rules only: rules inside @media (reduced motion, high contrast) apply to other settings. */
function topLevelRules(): Rule[] {
  const rules: Rule[] = [];
  let depth = 0;
  let start = 0;
  let prelude = '';
  for (let i = 0; i < css.length; i++) {
    if (css[i] === '{') {
      if (depth === 0) prelude = css.slice(start, i).trim();
      depth++;
      start = i + 1;
    } else if (css[i] === '}') {
      depth--;
      if (depth === 0) {
        if (!prelude.startsWith('@')) {
          const declarations = new Map<string, string>();
          for (const [, name, value] of css.slice(start, i).matchAll(/([\w-]+)\s*:\s*([^;]+);?/g))
            declarations.set(name, value.trim());
          rules.push({ selectors: prelude.split(',').map((s) => s.trim()), declarations, order: rules.length });
        }
        start = i + 1;
      }
    }
  }
  return rules;
}

interface Element {
  classes: string[];
  states: string[];
}

const TOKEN = /^[a-z]+|\.[\w-]+|:not\(([^)]*)\)|:[\w-]+|\[[^\]]+\]/g;

/** [ids, classes, types] of a compound selector, or undefined when it does not match `element`. */
function matches(selector: string, element: Element): [number, number, number] | undefined {
  if (/[\s>+~]/.test(selector)) return undefined; // only compound selectors on the button itself
  const tokens = selector.match(TOKEN) ?? [];
  if (tokens.join('') !== selector) return undefined;
  const spec: [number, number, number] = [0, 0, 0];
  for (const token of tokens) {
    if (/^[a-z]/.test(token)) {
      if (token !== 'button') return undefined;
      spec[2]++;
    } else if (token.startsWith('.')) {
      if (!element.classes.includes(token.slice(1))) return undefined;
      spec[1]++;
    } else if (token.startsWith(':not(')) {
      const inner = matches(token.slice(5, -1), element);
      if (inner) return undefined;
      spec[1]++;
    } else if (token.startsWith(':')) {
      if (!element.states.includes(token.slice(1))) return undefined;
      spec[1]++;
    } else return undefined;
  }
  return spec;
}

/** The value of `property` the cascade gives `element`, or undefined when no rule sets it. */
function computed(rules: Rule[], element: Element, property: string): string | undefined {
  let best: { spec: [number, number, number]; order: number; value: string } | undefined;
  for (const rule of rules) {
    const value = rule.declarations.get(property);
    if (value === undefined) continue;
    for (const selector of rule.selectors) {
      const spec = matches(selector, element);
      if (!spec) continue;
      const wins =
        !best ||
        spec[0] > best.spec[0] ||
        (spec[0] === best.spec[0] &&
          (spec[1] > best.spec[1] ||
            (spec[1] === best.spec[1] &&
              (spec[2] > best.spec[2] || (spec[2] === best.spec[2] && rule.order >= best.order)))));
      if (wins) best = { spec, order: rule.order, value };
    }
  }
  return best?.value;
}

/** The kinds of button the webview draws (src/webview: primary, secondary, icon and link buttons). */
const KINDS: Record<string, string[]> = {
  primary: [],
  secondary: ['secondary'],
  icon: ['icon-button'],
  link: ['link'],
};

for (const [kind, classes] of Object.entries(KINDS)) {
  test(`a disabled ${kind} button looks disabled: faded, in the theme's disabled colour, not-allowed cursor, no hover`, () => {
    const rules = topLevelRules();
    const disabled: Element = { classes, states: ['disabled'] };
    const enabled: Element = { classes, states: ['enabled'] };
    const opacity = Number(computed(rules, disabled, 'opacity') ?? '1');
    assert.ok(opacity < 1 && opacity >= 0.3, `opacity ${opacity}: faded yet legible`);
    assert.equal(computed(rules, disabled, 'color'), 'var(--vscode-disabledForeground)');
    assert.equal(computed(rules, disabled, 'cursor'), 'not-allowed');
    assert.notEqual(computed(rules, enabled, 'cursor'), 'not-allowed', 'an enabled one keeps its cursor');
    assert.equal(Number(computed(rules, enabled, 'opacity') ?? '1'), 1, 'an enabled one is not faded');
    const hovered: Element = { classes, states: ['disabled', 'hover'] };
    for (const property of ['background', 'color', 'text-decoration', 'opacity'])
      assert.equal(computed(rules, hovered, property), computed(rules, disabled, property), `${property} on hover`);
  });
}
