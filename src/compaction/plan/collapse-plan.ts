/**
 * Which tool results the collapse tier may turn into one-line records, and what a record is counted
 * as while planning (the records themselves are written in `rewrite/collapse.ts`).
 */
import type { ContextItem } from '../types';
import { KIND, type UnitTable } from './structure';

/** Tool results smaller than this many tokens are not worth collapsing (the record is ~40). */
export const COLLAPSE_MIN_TOKENS = 200;

/** Estimated tokens of a collapsed record, used for planning before records are written. */
export const COLLAPSED_RECORD_TOKENS = 60;

/**
 * Indices of tool results that may be collapsed: raw, not pinned, inside eligible units (so never
 * in the newest steps, never anchors), at least `minTokens` tokens.
 */
export function collapseCandidates(
  items: readonly ContextItem[],
  table: UnitTable,
  perItem: readonly number[],
  minTokens = COLLAPSE_MIN_TOKENS,
): number[] {
  const out: number[] = [];
  for (let k = 0; k < table.count; k++) {
    if (!table.eligible[k] || (table.kind[k] !== KIND.turn && table.kind[k] !== KIND.step)) continue;
    for (let i = table.start[k]; i < table.end[k]; i++) {
      const it = items[i];
      if (it.kind === 'raw' && !it.pinned && it.message.role === 'tool' && perItem[i] >= minTokens) out.push(i);
    }
  }
  return out;
}
