/**
 * The check New Agent Task (palette and the sidebar's Run) makes before taking a task: with no
 * endpoint set up, the task would go to the OpenAI default with no key and fail after the fact, so
 * the user is told first and offered the steps that set one up.
 */
import * as vscode from 'vscode';
import { Commands } from './command-ids';

/** The buttons the notice offers, in order. */
export type SetupAction = 'Choose Endpoint' | 'Set API Key';

/**
 * What to say when no endpoint is set up, or undefined when one is. "Set up" follows the welcome
 * view's rule (the `contextKeeper.needsSetup` key, `composition/root.ts`): a base URL is set, or a
 * key is stored for the OpenAI default. With neither, the default endpoint is OpenAI, which needs a
 * key, so Set API Key is offered beside Choose Endpoint.
 */
export function missingEndpointNotice(
  hasKey: boolean,
  baseUrl: string,
): { text: string; actions: SetupAction[] } | undefined {
  if (hasKey || baseUrl.trim() !== '') return undefined;
  return {
    text: 'ContextKeeper: no endpoint is set up yet, so the agent cannot take a task. Choose an endpoint (OpenAI, a local server or any OpenAI-compatible URL); OpenAI and most hosted endpoints also need an API key.',
    actions: ['Choose Endpoint', 'Set API Key'],
  };
}

const ACTION_COMMANDS: Record<SetupAction, string> = {
  'Choose Endpoint': Commands.pickEndpoint,
  'Set API Key': Commands.setApiKey,
};

/**
 * Shows the notice when no endpoint is set up (see {@link missingEndpointNotice}) and runs the step
 * the user picks. Resolves to true when the task must not be taken. `whenKeysLoaded` settles once
 * the secret storage was read (a stored key is known only then).
 */
export async function refuseWithoutEndpoint(
  keys: { readonly hasKey: boolean; readonly whenLoaded: Promise<void> },
  baseUrl: string,
  log: vscode.LogOutputChannel,
): Promise<boolean> {
  await keys.whenLoaded;
  const notice = missingEndpointNotice(keys.hasKey, baseUrl);
  if (!notice) return false;
  log.warn('New Agent Task refused: no endpoint is set up (no base URL, no API key).');
  // eslint-disable-next-line no-restricted-syntax -- bounded: a few notification buttons
  void vscode.window.showWarningMessage(notice.text, ...notice.actions).then((choice) => {
    if (choice) void vscode.commands.executeCommand(ACTION_COMMANDS[choice]);
  });
  return true;
}
