/**
 * A lit-html directive that sets CSS properties through the CSSOM (`element.style.setProperty`),
 * never through a `style` attribute: the webview's Content-Security-Policy refuses inline style
 * attributes, and lit's own `styleMap` writes one on first render. Bind it to a `data-css` attribute
 * (which it leaves unset): `<div data-css=${cssProps({ width: '40%' })}>`.
 */
import { noChange } from 'lit-html';
import { Directive, directive, PartType } from 'lit-html/directive.js';
import type { AttributePart, PartInfo } from 'lit-html/directive.js';

class CssProps extends Directive {
  constructor(info: PartInfo) {
    super(info);
    if (info.type !== PartType.ATTRIBUTE) throw new Error('cssProps goes on an attribute (data-css)');
  }

  render(_props: Record<string, string>): typeof noChange {
    return noChange;
  }

  override update(part: AttributePart, [props]: [Record<string, string>]): typeof noChange {
    const style = part.element.style;
    for (const [name, value] of Object.entries(props))
      if (style.getPropertyValue(name) !== value) style.setProperty(name, value);
    return noChange;
  }
}

/** Sets each property of `props` (CSS names, e.g. `width`, `left`) on the element. */
export const cssProps = directive(CssProps);
