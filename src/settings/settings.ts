/**
 * Typed access to the `contextKeeper.*` settings. Every key is documented in package.json
 * (`contributes.configuration`); this module is the only place that reads them. Changes reach the
 * rest of the extension through one path, {@link Settings.onDidChange}, so nothing needs a reload.
 */
import * as vscode from 'vscode';
import { DisposableStore } from '../lifecycle/disposables';
import { IgnoredSettingsNotice, userScoped, type InspectableConfiguration } from './user-scoped-settings';

/** The section all keys live under. */
export const SETTINGS_SECTION = 'contextKeeper';

/** A resolved snapshot of every setting. */
export interface ContextKeeperSettings {
  baseUrl: string;
  model: string;
  /** `vscode`: a chat model VS Code offers (`vscode.lm`) instead of the endpoint. */
  modelSource: 'endpoint' | 'vscode';
  /** 0 means: use the model's known window. */
  contextWindow: number;
  maxOutputTokens: number;
  summary: {
    baseUrl: string;
    model: string;
    contextWindow: number;
    instruction: string;
  };
  compactAt: number;
  compactTo: number;
  keepRecentSteps: number;
  /** Share of the compaction target for typed requests kept verbatim. */
  userBudget: number;
  /** Share of the compaction target for a summary's notes and ledger. */
  summaryBudget: number;
  /** Share of the compaction target for files re-attached after a summary; 0 turns re-attaching off. */
  reattachBudget: number;
  /** Most files re-attached after one summary; 0 turns re-attaching off. */
  reattachMaxFiles: number;
  autoCompact: boolean;
  previewSummary: boolean;
  maxSummaryCalls: number;
  /** Most images per request; 0 means no limit. */
  maxImagesPerRequest: number;
  tools: { autoApprove: boolean };
}

/**
 * Reads the settings from a configuration object; clamps values the service cannot use. Endpoint URLs,
 * auto-approve and the summary instruction come from user settings only (`user-scoped-settings.ts`).
 */
export function readSettings(workspaceConfig: InspectableConfiguration): ContextKeeperSettings {
  const config = userScoped(workspaceConfig);
  const num = (key: string, fallback: number, min: number, max: number): number => {
    const value = config.get<number>(key, fallback);
    return typeof value === 'number' && Number.isFinite(value) ? Math.min(max, Math.max(min, value)) : fallback;
  };
  const str = (key: string, fallback: string): string => {
    const value = config.get<string>(key, fallback);
    return typeof value === 'string' ? value.trim() : fallback;
  };
  const compactAt = num('compactAt', 0.8, 0.1, 0.99);
  const compactTo = Math.min(num('compactTo', 0.5, 0.05, 0.95), compactAt - 0.01);
  return {
    baseUrl: str('baseUrl', ''),
    model: str('model', 'gpt-4o-mini'),
    modelSource: str('modelSource', 'endpoint') === 'vscode' ? 'vscode' : 'endpoint',
    contextWindow: num('contextWindow', 0, 0, 10_000_000),
    maxOutputTokens: num('maxOutputTokens', 4096, 16, 1_000_000),
    summary: {
      baseUrl: str('summary.baseUrl', ''),
      model: str('summary.model', ''),
      contextWindow: num('summary.contextWindow', 0, 0, 10_000_000),
      instruction: str('summary.instruction', ''),
    },
    compactAt,
    compactTo,
    keepRecentSteps: Math.round(num('keepRecentSteps', 1, 0, 100)),
    userBudget: num('userBudget', 0.25, 0.01, 1),
    summaryBudget: num('summaryBudget', 0.25, 0.01, 1),
    reattachBudget: num('reattachBudget', 0.1, 0, 1),
    reattachMaxFiles: Math.round(num('reattachMaxFiles', 5, 0, 50)),
    autoCompact: config.get<boolean>('autoCompact', true) !== false,
    previewSummary: config.get<boolean>('previewSummary', false) === true,
    maxSummaryCalls: Math.round(num('maxSummaryCalls', 4, 1, 64)),
    maxImagesPerRequest: Math.round(num('maxImagesPerRequest', 0, 0, 1000)),
    tools: { autoApprove: config.get<boolean>('tools.autoApprove', false) === true },
  };
}

/** Holds the current settings and announces changes to `contextKeeper.*`. */
export class Settings implements vscode.Disposable {
  private readonly store = new DisposableStore();
  private readonly _onDidChange = this.store.add(new vscode.EventEmitter<ContextKeeperSettings>());
  /** Fires with the new settings after any `contextKeeper.*` key changed. */
  readonly onDidChange = this._onDidChange.event;
  private current: ContextKeeperSettings;

  private readonly notice = new IgnoredSettingsNotice((message) => void vscode.window.showWarningMessage(message));

  constructor() {
    this.current = this.read();
    this.store.add(vscode.workspace.onDidChangeConfiguration((event) => {
      if (!event.affectsConfiguration(SETTINGS_SECTION)) return;
      this.current = this.read();
      this._onDidChange.fire(this.current);
    }));
    // Trusting the folder turns the agent and the summarizer endpoint on: rebuild as after a change.
    this.store.add(vscode.workspace.onDidGrantWorkspaceTrust(() => {
      this.current = this.read();
      this._onDidChange.fire(this.current);
    }));
  }

  private read(): ContextKeeperSettings {
    const config = vscode.workspace.getConfiguration(SETTINGS_SECTION);
    this.notice.check(config);
    return readSettings(config);
  }

  /** The settings in force now. */
  get value(): ContextKeeperSettings {
    return this.current;
  }

  dispose(): void {
    this.store.dispose();
  }
}
