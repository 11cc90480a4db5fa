/**
 * Which messages to clip in the middle when summaries and collapses still leave the request over
 * the input budget: the largest ones outside the plan, each down to what the excess requires.
 */
import type { ContextItem } from '../types';
import type { Plan } from './planner';

/** A clipped message keeps at least this many tokens. */
export const CLIP_MIN_TOKENS = 1000;

/** Picks messages to clip when the plan still leaves the request over the input budget. */
export function planClips(
  items: readonly ContextItem[],
  perItem: readonly number[],
  plan: Plan,
  inputBudget: number,
  target: number,
): Array<{ index: number; maxTokens: number }> {
  if (plan.estimatedAfter <= inputBudget) return [];
  const inSpan = new Uint8Array(items.length);
  for (const s of plan.spans) inSpan.fill(1, s.start, s.end);
  for (const i of plan.collapse) inSpan[i] = 1;
  const candidates: number[] = [];
  for (let i = plan.shape.leadEnd; i < items.length; i++) {
    const it = items[i];
    const role = it.message.role;
    if (inSpan[i] || it.pinned || it.kind === 'summary') continue;
    // Any shape: string content, text parts, long string values in tool-call arguments.
    if ((role === 'tool' || role === 'user' || role === 'assistant') && perItem[i] > CLIP_MIN_TOKENS)
      candidates.push(i);
  }
  candidates.sort((a, b) => perItem[b] - perItem[a]);
  let excess = plan.estimatedAfter - target;
  const out: Array<{ index: number; maxTokens: number }> = [];
  for (const i of candidates) {
    if (excess <= 0) break;
    const maxTokens = Math.max(CLIP_MIN_TOKENS, perItem[i] - excess);
    out.push({ index: i, maxTokens });
    excess -= perItem[i] - maxTokens;
  }
  return out;
}
