/**
 * What reads as a person's prose in a message: sentences outside code blocks and code lines, and the
 * sentences that state a rule or a decision. Used by the extractive summarizer; pure.
 */

/** A sentence that states a rule or preference ("never commit unless asked", "don't over-engineer"). */
export const RULE =
  /\b(must|never|always|do not|don't|dont|should not|shouldn't|only|avoid|prefer|instead of|make sure|required?|no longer|keep it|stick to|from now on|remember to|without)\b/i;
/** A sentence that gives a decision with its reason. */
export const DECISION =
  /\b(because|since|so that|instead of|rather than|decided|switch(ed)? to|chose|went with|due to|in order to|the reason)\b/i;

/** A line that reads as prose a person wrote (not code, a listing, a heading or tool output). */
export function isProse(line: string): boolean {
  const t = line.trim();
  return (
    t.length > 8 &&
    t.length < 400 &&
    /^[\p{L}"'(]/u.test(t) &&
    !/^\d+\t/.test(t) &&
    !/[│┌└├]/.test(t) &&
    /\s/.test(t) &&
    !looksLikeCode(t)
  );
}

/**
 * A line of source code rather than a sentence: a call or assignment at its start, a statement end,
 * an arrow or strict comparison, or dense code punctuation (over one character in eight).
 */
function looksLikeCode(t: string): boolean {
  if (
    /^[\w$.]+\s*\(|^(const|let|var|return|import|export|function|if|for|while)\b[^,]*[=({]|[;{}]\s*$|=>|[!=]==|\bconsole\.\w/.test(
      t,
    )
  )
    return true;
  const punctuation = t.match(/[(){}[\];=<>`$\\|&]/g)?.length ?? 0;
  return punctuation * 8 > t.length;
}

/** Text without fenced code blocks (what is between ``` lines is code or output, not sentences). */
function withoutFences(text: string): string {
  return text.includes('```') ? text.replace(/^\s*```[^\n]*\n[\s\S]*?^\s*```[^\n]*$/gm, '') : text;
}

export function sentences(text: string): string[] {
  return withoutFences(text)
    .split(/(?<=[.!?])\s+|\n+/)
    .map((s) => s.trim())
    .filter(Boolean);
}

/**
 * The sentences of a typed request that state a rule. A rule that ends in a colon ("options must
 * include:") takes the list lines that follow it, so it is never quoted without what it requires.
 */
export function ruleSentences(typed: string): string[] {
  const lines = withoutFences(typed).split('\n');
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const parts = lines[i]
      .split(/(?<=[.!?])\s+/)
      .map((s) => s.trim())
      .filter(Boolean);
    for (let k = 0; k < parts.length; k++) {
      let s = parts[k];
      if (!isProse(s) || !RULE.test(s)) continue;
      if (k === parts.length - 1 && s.endsWith(':')) {
        const list: string[] = [];
        for (let j = i + 1; j < lines.length && list.length < 8; j++) {
          const item = lines[j].trim();
          if (!item) {
            if (list.length) break;
            continue;
          }
          if (!/^(?:[-*•]|\d+[.)])\s+\S/.test(item)) break;
          list.push(item);
        }
        if (list.length) s = `${s} ${list.join(' ')}`;
      }
      out.push(s);
    }
  }
  return out;
}
