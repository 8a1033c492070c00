/** The one error path of the extension: known failures become readable chat markdown with the fix; the rest is logged. */
import { ResponseError } from 'vscode-jsonrpc';
import { SidecarUnavailableError } from './client';
import { describeError, log } from './log';
import { isErrorData } from './protocol';
import { isConnectionLost } from './recovery';
import type { ResponseSink } from './render';
import type { ErrorData } from './wire';

export const REQUEST_CANCELLED = -32800;

export function isCancellation(err: unknown): boolean {
  if (err instanceof ResponseError) return err.code === REQUEST_CANCELLED || err.code === -32802; // ServerCancelled
  return err instanceof Error && (err.name === 'Canceled' || err.name === 'CancellationError');
}

const WHAT: Record<ErrorData['code'], string> = {
  validation: 'The council could not accept that',
  permission: 'The council was not allowed to do that',
  internal: 'The council hit a problem',
};
const FIX: Record<ErrorData['code'], string> = {
  validation: '',
  permission: ' Check that Council may use the selected chat model (**Manage Language Model Access**), or configure `council.http.*`.',
  internal: ' Details are in **Council: Show Logs**.',
};

/** A refused or failed request, in plain words, with what to do about it. */
function sidecarErrorMarkdown(data: ErrorData): string {
  const message = /[.!?]$/.test(data.message) ? data.message : `${data.message}.`;
  return `> ⚠️ ${WHAT[data.code]}: ${message}${FIX[data.code]}\n\n`;
}

/** Whether trying the same step again may work (an internal failure or a lost sidecar, not a refusal). */
export function isRetryable(err: unknown): boolean {
  if (err instanceof SidecarUnavailableError || isConnectionLost(err)) return true;
  if (err instanceof ResponseError && isErrorData(err.data)) return err.data.code === 'internal';
  return !(err instanceof ResponseError);
}

/** Render `err` into the chat response and return a one-line description for the result metadata. */
export function handleError(err: unknown, stream: ResponseSink): string {
  if (err instanceof SidecarUnavailableError) {
    stream.markdown(`> ⚠️ The council sidecar is not running: ${err.message}\n\n`);
    stream.button({ command: 'council.restartSidecar', title: 'Restart Sidecar' });
    stream.button({ command: 'council.showLogs', title: 'Show Logs' });
    return err.message;
  }
  if (isConnectionLost(err)) {
    const message = 'the council sidecar stopped while it worked on this, and again after it was restarted';
    log.error(`${message}: ${describeError(err)}`);
    stream.markdown(`> ⚠️ The council sidecar stopped while it worked on this, and again after it was restarted. Details are in **Council: Show Logs**.\n\n`);
    stream.button({ command: 'council.restartSidecar', title: 'Restart Sidecar' });
    stream.button({ command: 'council.showLogs', title: 'Show Logs' });
    return message;
  }
  if (err instanceof ResponseError && isErrorData(err.data)) {
    if (err.data.code === 'internal') log.error(`sidecar error: ${err.data.message}`, err.data.details ?? {});
    stream.markdown(sidecarErrorMarkdown(err.data));
    return err.data.message;
  }
  const message = describeError(err);
  log.error(err instanceof Error ? err : message);
  if (err instanceof ResponseError) {
    stream.markdown(`> ⚠️ The council sidecar failed (${err.code}): ${message}. Details are in **Council: Show Logs**.\n\n`);
  } else {
    stream.markdown(`> ⚠️ Something went wrong: ${message}. Details are in **Council: Show Logs**.\n\n`);
  }
  stream.button({ command: 'council.showLogs', title: 'Show Logs' });
  return message;
}
