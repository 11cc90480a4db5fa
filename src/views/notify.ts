/**
 * Notifications that fit a toast: a text longer than {@link NOTICE_MAX_CHARS} is shown as a short
 * message with a "Show Details" button that opens the whole text in a modal dialog (and writes it to
 * the log), instead of being cut by the toast's width.
 */
import * as vscode from 'vscode';
import { splitNotice } from './notices';

/** Severity of a notification. */
export type NoticeLevel = 'info' | 'warning' | 'error';

const SHOW_DETAILS = 'Show Details';

/**
 * Shows `text` at `level` with the given action buttons; resolves to the action chosen (never
 * "Show Details": that one opens the detail, then the dialog's own buttons offer the actions again).
 */
export async function notify(level: NoticeLevel, text: string, actions: readonly string[] = [], log?: vscode.LogOutputChannel): Promise<string | undefined> {
  const show = level === 'error' ? vscode.window.showErrorMessage : level === 'warning' ? vscode.window.showWarningMessage : vscode.window.showInformationMessage;
  const { short, detail } = splitNotice(text);
  if (!detail) return show(text, ...actions);
  const choice = await show(short, ...actions, SHOW_DETAILS);
  if (choice !== SHOW_DETAILS) return choice;
  log?.info(detail);
  return show(short, { modal: true, detail }, ...actions);
}
