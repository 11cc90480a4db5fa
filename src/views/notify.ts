/**
 * Notifications that fit a toast: a text longer than {@link NOTICE_MAX_CHARS} (for an error,
 * {@link ERROR_NOTICE_MAX_CHARS}, so it keeps its reason) is shown as a short message with a "Show
 * Details" button that opens the whole text in a modal dialog (and writes it to the log), instead of
 * being cut by the toast's width. The short message is cut at white space only (see `splitNotice`).
 */
import * as vscode from 'vscode';
import { ERROR_NOTICE_MAX_CHARS, NOTICE_MAX_CHARS, splitNotice } from './notices';

/** Severity of a notification. */
export type NoticeLevel = 'info' | 'warning' | 'error';

const SHOW_DETAILS = 'Show Details';
/** A caller's button that opens the log: with `log` given, the whole text goes there, so it is the details button. */
const SHOW_LOG = 'Show Log';

/**
 * Shows `text` at `level` with the given action buttons; resolves to the action chosen. A long text
 * gets a "Show Details" button that opens the detail (then the dialog's own buttons offer the actions
 * again, never a second "Show Details") and is not returned. When `actions` holds "Show Details"
 * itself, or "Show Log" and `log` is given, the caller has its own details (the log, where the whole
 * text is written): the toast shows the caller's buttons only (one set, no second details button)
 * and returns the one chosen.
 */
export async function notify(
  level: NoticeLevel,
  text: string,
  actions: readonly string[] = [],
  log?: vscode.LogOutputChannel,
): Promise<string | undefined> {
  const show =
    level === 'error'
      ? vscode.window.showErrorMessage
      : level === 'warning'
        ? vscode.window.showWarningMessage
        : vscode.window.showInformationMessage;
  const { short, detail } = splitNotice(text, level === 'error' ? ERROR_NOTICE_MAX_CHARS : NOTICE_MAX_CHARS);
  // The spreads below pass a few notification buttons (bounded).
  /* eslint-disable no-restricted-syntax */
  if (!detail) return show(text, ...actions);
  if (actions.includes(SHOW_DETAILS) || (log && actions.includes(SHOW_LOG))) {
    log?.info(detail);
    return show(short, ...actions);
  }
  const choice = await show(short, ...actions, SHOW_DETAILS);
  if (choice !== SHOW_DETAILS) return choice;
  log?.info(detail);
  return show(short, { modal: true, detail }, ...actions);
  /* eslint-enable no-restricted-syntax */
}
