/**
 * Serves the sidecar's `council/complete` requests with the chat's own model (`request.model.sendRequest` of the
 * chat request that is running the session), streaming `council/completeDelta` and honouring both the sidecar's
 * `$/cancelRequest` and the chat's stop button.
 */
import * as vscode from 'vscode';
import { ResponseError } from 'vscode-jsonrpc';
import { REQUEST_CANCELLED } from './errors';
import { describeError, log } from './log';
import type { ChatMessage, CompleteDelta, CompleteParams, CompleteResult, ErrorCode, ErrorData } from './wire';
import { JSONRPC_CODES } from './wire';
import type { TurnRegistry } from './turns';

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
}

export async function serveCompletion(params: CompleteParams, token: vscode.CancellationToken, deps: CompletionDeps): Promise<CompleteResult> {
  const turn = deps.turns.forSession(params.sessionId);
  const model = turn?.handlers.model;
  if (!turn || !model) {
    throw completionError(
      'permission',
      turn
        ? 'The chat model is not available to Council for this turn; use the configured provider.'
        : 'No chat request is running for this session: the chat model only serves the council during a chat turn.',
      { sessionId: params.sessionId, purpose: params.purpose },
    );
  }
  const source = new vscode.CancellationTokenSource();
  const subs = [token.onCancellationRequested(() => source.cancel()), turn.handlers.token.onCancellationRequested(() => source.cancel())];
  if (token.isCancellationRequested || turn.handlers.token.isCancellationRequested) source.cancel();
  const started = Date.now();
  try {
    const response = await model.sendRequest(
      toChatMessages(params.messages),
      { justification: 'The council personas answer with the chat model you selected.' },
      source.token,
    );
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
    const { code, reason } = classifyModelError(err);
    log.warn(`council/complete for ${params.purpose} failed on ${model.id}: ${reason}`);
    if (code === 'permission') {
      turn.handlers.notify(
        `\n> ⚠️ Council may not use **${model.name}** (${reason}). The council falls back to its configured provider ` +
          '(`council.http.*`); allow the model with **Manage Language Model Access** to use it.\n\n',
      );
    }
    throw completionError(code, `The chat model ${model.name} failed: ${reason}`, { model: model.id, purpose: params.purpose });
  } finally {
    for (const s of subs) s.dispose();
    source.dispose();
  }
}
