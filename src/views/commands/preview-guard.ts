/**
 * A summary preview belongs to the session it was proposed in: leaving that session (switch, new
 * session, import) would orphan its review document and progress notification, and an Apply pressed
 * there afterwards would write nothing. Leaving is refused with a warning that offers to discard it.
 */
import * as vscode from 'vscode';
import { Commands } from './command-ids';
import type { SessionController } from '../session-controller';

/**
 * True when the shown session has no waiting preview, or the user chose to discard it (it is
 * discarded then); false when the user kept it (nothing happens). `leaving`: what the user asked
 * for, as a verb phrase ("switching sessions", "importing a transcript").
 */
export async function leavePreview(controller: SessionController, leaving: string): Promise<boolean> {
  if (!controller.current?.getPreview()) return true;
  const action = await vscode.window.showWarningMessage(
    `ContextKeeper: a summary preview is waiting in this session: apply or discard it before ${leaving}.`,
    'Discard Preview',
  );
  if (action !== 'Discard Preview') return false;
  await vscode.commands.executeCommand(Commands.discardPreview);
  return true;
}
