/** What the chat participant and the commands need from the sidecar connection (implemented by Sidecar). */
import type { CancellationToken } from 'vscode';
import type { MethodTypes } from './wire';

export interface CouncilClient {
  request<M extends keyof MethodTypes>(
    method: M,
    params: MethodTypes[M]['params'],
    token?: CancellationToken,
  ): Promise<MethodTypes[M]['result']>;
  /** How many sidecar processes became ready so far (the current process's number). */
  readonly generation: number;
  /** Resolves once a process newer than `generation` is ready (sessions restored); rejects if none comes. */
  whenReadyAfter(generation: number, timeoutMs?: number): Promise<void>;
}

/** Thrown when the sidecar cannot be started or reached; the message says how to fix it. */
export class SidecarUnavailableError extends Error {
  override name = 'SidecarUnavailableError';
}
