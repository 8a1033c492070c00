/**
 * The one error path of the extension: known failures become readable chat markdown with the fix; the rest is logged.
 * The sidecar's message is its own (in the session's language); the words around it are the extension's, through
 * `vscode.l10n` (VS Code's display language).
 */
import * as vscode from 'vscode';
import { ResponseError } from 'vscode-jsonrpc';
import { SidecarUnavailableError } from './client';
import { describeError, log } from './log';
import { isErrorData } from './protocol';
import type { ResponseSink } from './render';
import type { ErrorData } from './wire';

export const REQUEST_CANCELLED = -32800;

/** vscode-jsonrpc: a pending request whose connection went away (-32097), or a client that is not running (-32096). */
const CONNECTION_CODES = new Set([-32097, -32096, -32099]);

/** The sidecar process went away under the request (crash, kill, restart). */
export function isConnectionLost(err: unknown): boolean {
  if (err instanceof ResponseError) return CONNECTION_CODES.has(err.code);
  if (!(err instanceof Error)) return false;
  return /connection (?:got |is )?(?:disposed|closed)|client is not running|pending response rejected/i.test(err.message);
}

/** The sidecar does not know the session (a sidecar without it: reload, or an expired session). */
export function isUnknownSession(err: unknown): 'unknown' | 'expired' | undefined {
  if (!(err instanceof ResponseError) || !isErrorData(err.data) || err.data.code !== 'validation') return undefined;
  const details = (err.data.details ?? {});
  if (details.reason === 'expired') return 'expired';
  if (details.reason === 'unknown_session') return 'unknown';
  return undefined;
}

export function isCancellation(err: unknown): boolean {
  if (err instanceof ResponseError) return err.code === REQUEST_CANCELLED || err.code === -32802; // ServerCancelled
  return err instanceof Error && (err.name === 'Canceled' || err.name === 'CancellationError');
}

const WHAT: Record<ErrorData['code'], () => string> = {
  validation: () => vscode.l10n.t('The council could not accept that'),
  permission: () => vscode.l10n.t('The council was not allowed to do that'),
  internal: () => vscode.l10n.t('The council hit a problem'),
};
const LOGS = (): string => vscode.l10n.t('Details are in **Council: Show Logs**.');
const FIX: Record<ErrorData['code'], () => string> = {
  validation: () => '',
  permission: () =>
    ' ' + vscode.l10n.t('Check that Council may use the selected chat model (**Manage Language Model Access**), or configure `council.http.*`.'),
  internal: () => ` ${LOGS()}`,
};
const RESTART = (): string => vscode.l10n.t('Restart Sidecar');
const SHOW_LOGS = (): string => vscode.l10n.t('Show Logs');

/** Whether trying the same step again may work (an internal failure or a lost sidecar, not a refusal). */
export function isRetryable(err: unknown): boolean {
  if (err instanceof SidecarUnavailableError || isConnectionLost(err)) return true;
  if (err instanceof ResponseError && isErrorData(err.data)) return err.data.code === 'internal';
  return !(err instanceof ResponseError);
}

/** Render `err` into the chat response and return a one-line description for the result metadata. */
export function handleError(err: unknown, stream: ResponseSink): string {
  if (err instanceof SidecarUnavailableError) {
    stream.markdown(`> ⚠️ ${vscode.l10n.t('The council sidecar is not running: {0}', err.message)}\n\n`);
    stream.button({ command: 'council.restartSidecar', title: RESTART() });
    stream.button({ command: 'council.showLogs', title: SHOW_LOGS() });
    return err.message;
  }
  if (isConnectionLost(err)) {
    const message = 'the council sidecar stopped while it worked on this, and again after it was restarted';
    log.error(`${message}: ${describeError(err)}`);
    stream.markdown(`> ⚠️ ${vscode.l10n.t('The council sidecar stopped while it worked on this, and again after it was restarted.')} ${LOGS()}\n\n`);
    stream.button({ command: 'council.restartSidecar', title: RESTART() });
    stream.button({ command: 'council.showLogs', title: SHOW_LOGS() });
    return message;
  }
  if (err instanceof ResponseError && isErrorData(err.data)) {
    if (err.data.code === 'internal') log.error(`sidecar error: ${err.data.message}`, err.data.details ?? {});
    // a refusal in plain words, with the fix
    const message = /[.!?]$/.test(err.data.message) ? err.data.message : `${err.data.message}.`;
    stream.markdown(`> ⚠️ ${WHAT[err.data.code]()}: ${message}${FIX[err.data.code]()}\n\n`);
    return err.data.message;
  }
  const message = describeError(err);
  log.error(err instanceof Error ? err : message);
  if (err instanceof ResponseError) {
    stream.markdown(`> ⚠️ ${vscode.l10n.t('The council sidecar failed ({0}): {1}.', err.code, message)} ${LOGS()}\n\n`);
  } else {
    stream.markdown(`> ⚠️ ${vscode.l10n.t('Something went wrong: {0}.', message)} ${LOGS()}\n\n`);
  }
  stream.button({ command: 'council.showLogs', title: SHOW_LOGS() });
  return message;
}
