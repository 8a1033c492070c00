/**
 * A chat turn that outlives its sidecar: when the sidecar process dies under a turn, wait for the new process
 * (which gets the kept sessions back through `council/restore`) and send the turn again; when the sidecar does not
 * know the session (the window was reloaded, or the session expired), start a new session instead of dead-ending.
 *
 * What is sent again is exactly what was sent: the new sidecar holds the session as it was after the previous turn
 * (the journal kept then), so the same turn means the same thing there.
 */
import { ResponseError } from 'vscode-jsonrpc';
import type { CouncilClient } from './client';
import { isErrorData } from './protocol';

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

export interface RecoveryHooks<T> {
  /** Send the turn (again). */
  send(): Promise<T>;
  /** The sidecar died under the turn; a new one is ready with the sessions restored: say so, reset the turn's view. */
  onRestarted(): void;
  /**
   * The sidecar does not know the session: switch the turn to a new session (return true), or give up (false).
   * Called at most once.
   */
  onUnknownSession(why: 'unknown' | 'expired'): boolean;
}

/** Send with one recovery from each of: a lost sidecar, an unknown session. */
export async function sendWithRecovery<T>(client: CouncilClient, hooks: RecoveryHooks<T>, cancelled: () => boolean): Promise<T> {
  let restarted = false;
  let renewed = false;
  for (;;) {
    const generation = client.generation;
    try {
      return await hooks.send();
    } catch (err) {
      if (cancelled()) throw err;
      if (!restarted && isConnectionLost(err)) {
        restarted = true;
        await client.whenReadyAfter(generation);
        hooks.onRestarted();
        continue;
      }
      const unknown = isUnknownSession(err);
      if (!renewed && unknown && hooks.onUnknownSession(unknown)) {
        renewed = true;
        continue;
      }
      throw err;
    }
  }
}
