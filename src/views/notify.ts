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
 * Shows `text` at `level` with the given action buttons; resolves to the action chosen. A long text
 * gets a "Show Details" button that opens the detail (then the dialog's own buttons offer the actions
 * again, never a second "Show Details") and is not returned. When `actions` holds "Show Details"
 * itself, the caller has its own details (the log, say): the toast shows that one button only and
 * returns it when chosen.
 */
export async function notify(level: NoticeLevel, text: string, actions: readonly string[] = [], log?: vscode.LogOutputChannel): Promise<string | undefined> {
  const show = level === 'error' ? vscode.window.showErrorMessage : level === 'warning' ? vscode.window.showWarningMessage : vscode.window.showInformationMessage;
  const { short, detail } = splitNotice(text);
  if (!detail) return show(text, ...actions);
  if (actions.includes(SHOW_DETAILS)) {
    log?.info(detail);
    return show(short, ...actions);
  }
  const choice = await show(short, ...actions, SHOW_DETAILS);
  if (choice !== SHOW_DETAILS) return choice;
  log?.info(detail);
  return show(short, { modal: true, detail }, ...actions);
}
