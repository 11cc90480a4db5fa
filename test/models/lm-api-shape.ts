/**
 * Compile-time check: the real VS Code API (the @types/vscode version in package.json) satisfies the
 * structural {@link LmApi} the adapter is written against. Type-only: nothing here runs.
 */
import type * as vscode from 'vscode';
import type { LmApi } from '../../src/models/lm/api';

export type RealApiFits = typeof vscode extends LmApi ? true : never;
export const realApiFits: RealApiFits = true;
