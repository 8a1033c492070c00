/**
 * Serves the sidecar's `council/complete` requests: with the chat's own model (`request.model` of the chat request
 * that is running the session) or, when the call names one (`modelId`, a seat on another of the user's models),
 * with that model — found by id, consent asked by VS Code once per model (a refused model is answered at once),
 * failures answered with the reason the sidecar falls back on (`model_unavailable`, `no_consent`, `model_failed`).
 * Streams `council/completeDelta` and honours both the sidecar's `$/cancelRequest` and the chat's stop button.
 */
import * as vscode from 'vscode';
import { ResponseError } from 'vscode-jsonrpc';
import { REQUEST_CANCELLED } from './errors';
import { describeError, log } from './log';
import type { ChatModels } from './models';
import { isNoPermissions } from './models';
import type { ChatMessage, CompleteDelta, CompleteErrorDetails, CompleteParams, CompleteResult, ErrorCode, ErrorData } from './wire';
import { JSONRPC_CODES } from './wire';
import type { ActiveTurn, TurnRegistry } from './turns';

export function completionError(code: ErrorCode, message: string, details: Record<string, unknown> = {}): ResponseError<ErrorData> {
  return new ResponseError<ErrorData>(JSONRPC_CODES[code], message, { code, message, details });
}

export function toChatMessages(messages: readonly ChatMessage[]): vscode.LanguageModelChatMessage[] {
  // The LM API (1.95) has no system role: system text goes first as a user message.
  return messages.map((m) =>
    m.role === 'assistant' ? vscode.LanguageModelChatMessage.Assistant(m.content) : vscode.LanguageModelChatMessage.User(m.content),
  );
}

/** Map a model failure to the protocol's error kinds (refusals and missing consent are `permission`). */
export function classifyModelError(err: unknown): { code: ErrorCode; reason: string } {
  if (err instanceof vscode.LanguageModelError) {
    const permission = err.code === vscode.LanguageModelError.NoPermissions.name || err.code === vscode.LanguageModelError.Blocked.name;
    return { code: permission ? 'permission' : 'internal', reason: `${err.code}: ${err.message}` };
  }
  return { code: 'internal', reason: describeError(err) };
}

export interface CompletionDeps {
  turns: TurnRegistry<vscode.LanguageModelChat>;
  sendDelta(delta: CompleteDelta): void;
  /** The window's chat models (a `modelId` other than the chat's is served from them; none: only the chat's model). */
  models?: ChatModels;
}

type SeatReason = CompleteErrorDetails['reason'];
const REASON_CODE: Record<SeatReason, ErrorCode> = { model_unavailable: 'validation', no_consent: 'permission', model_failed: 'internal' };

/** The error the sidecar falls back on: the model it named cannot serve this call, and why. */
export function seatError(reason: SeatReason, modelId: string, message: string, purpose: string): ResponseError<ErrorData> {
  const details: CompleteErrorDetails & { purpose: string } = { reason, modelId, purpose };
  return completionError(REASON_CODE[reason], message, { ...details });
}

export function seatReason(err: unknown): SeatReason {
  if (isNoPermissions(err)) return 'no_consent';
  if (err instanceof vscode.LanguageModelError && err.code === vscode.LanguageModelError.NotFound.name) return 'model_unavailable';
  return 'model_failed';
}

const JUSTIFICATION = {
  chat: 'The council personas answer with the chat model you selected.',
  seat: 'Council seats some of its personas on your other chat models, so that different models debate (setting council.models).',
};

/** The model that serves this call: the chat's, or the seat's model the call names (or the error saying why not). */
async function modelFor(params: CompleteParams, turn: ActiveTurn<vscode.LanguageModelChat> | undefined, deps: CompletionDeps): Promise<vscode.LanguageModelChat> {
  const chat = turn?.handlers.model;
  const id = params.modelId;
  if (turn && chat && (id === undefined || id === chat.id)) return chat;
  if (!turn || id === undefined) {
    throw completionError(
      'permission',
      turn
        ? 'The chat model is not available to Council for this turn; use the configured provider.'
        : 'No chat request is running for this session: the chat model only serves the council during a chat turn.',
      { sessionId: params.sessionId, purpose: params.purpose },
    );
  }
  const model = await deps.models?.byId(id);
  if (!model) throw seatError('model_unavailable', id, `The chat model ${id} is not available (any more).`, params.purpose);
  if (!deps.models?.usable(model)) throw seatError('no_consent', id, `Council may not use the model ${id} (refused earlier in this window).`, params.purpose);
  return model;
}

export async function serveCompletion(params: CompleteParams, token: vscode.CancellationToken, deps: CompletionDeps): Promise<CompleteResult> {
  const turn = deps.turns.forSession(params.sessionId);
  const model = await modelFor(params, turn, deps);
  const handlers = turn!.handlers; // modelFor answers a call without a turn with an error
  const seat = model !== handlers.model; // another of the user's models than the chat's
  const source = new vscode.CancellationTokenSource();
  const subs = [token.onCancellationRequested(() => source.cancel()), handlers.token.onCancellationRequested(() => source.cancel())];
  if (token.isCancellationRequested || handlers.token.isCancellationRequested) source.cancel();
  const started = Date.now();
  try {
    const send = () => model.sendRequest(toChatMessages(params.messages), { justification: seat ? JUSTIFICATION.seat : JUSTIFICATION.chat }, source.token);
    const response = seat && deps.models ? await deps.models.start(model, send) : await send(); // the chat's model: allowed with the turn
    if (!response) throw seatError('no_consent', model.id, `Council may not use ${model.name} (refused in this window).`, params.purpose);
    let text = '';
    for await (const chunk of response.text) {
      if (source.token.isCancellationRequested) break;
      text += chunk;
      deps.sendDelta({ streamId: params.streamId, text: chunk });
    }
    if (source.token.isCancellationRequested) throw new ResponseError(REQUEST_CANCELLED, 'cancelled');
    log.trace(`council/complete ${params.purpose}: ${text.length} chars from ${model.id} in ${Date.now() - started} ms`);
    return { text, model: model.id };
  } catch (err) {
    if (err instanceof ResponseError) throw err;
    if (source.token.isCancellationRequested || err instanceof vscode.CancellationError) {
      throw new ResponseError(REQUEST_CANCELLED, 'cancelled');
    }
    if (isNoPermissions(err)) deps.models?.refuse(model.id);
    const { code, reason } = classifyModelError(err);
    log.warn(`council/complete for ${params.purpose} failed on ${model.id}: ${reason}`);
    // A seat's model: the sidecar moves its personas to the chat's model and writes the note.
    if (seat) throw seatError(seatReason(err), model.id, `The chat model ${model.name} failed: ${reason}`, params.purpose);
    // The chat's model: the sidecar words it (a refusal names the model and how to allow it).
    const details: Record<string, unknown> = { model: model.id, purpose: params.purpose };
    if (params.modelId !== undefined || code === 'permission') Object.assign(details, { reason: seatReason(err), modelId: model.id });
    throw completionError(code, `The chat model ${model.name} failed: ${reason}`, details);
  } finally {
    for (const s of subs) s.dispose();
    source.dispose();
  }
}
