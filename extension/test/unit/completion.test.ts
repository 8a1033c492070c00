import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as vscode from 'vscode';
import { ResponseError } from 'vscode-jsonrpc';
import { serveCompletion, toChatMessages } from '../../src/completion';
import type { CompleteDelta, CompleteParams } from '../../src/wire';
import { TurnRegistry } from '../../src/turns';
import { SID } from './fixtures';
import { fakeModel } from './helpers';

const params: CompleteParams = {
  sessionId: SID,
  streamId: 'st1',
  purpose: "Devil's Advocate",
  messages: [
    { role: 'system', content: 'You are a persona' },
    { role: 'user', content: 'Question' },
    { role: 'assistant', content: 'Earlier' },
  ],
  maxTokens: 100,
  temperature: 0.2,
};

function setup(model: any, chatToken = new vscode.CancellationTokenSource().token) {
  const turns = new TurnRegistry<any>();
  const notes: string[] = [];
  turns.begin(SID, { model, token: chatToken, onEvent: () => {}, notify: (m) => notes.push(m) });
  const deltas: CompleteDelta[] = [];
  return { turns, deltas, notes, deps: { turns, sendDelta: (d: CompleteDelta) => deltas.push(d) } };
}

function slowModel() {
  return fakeModel(async function* (token: vscode.CancellationToken) {
    yield '{"a":';
    await new Promise<void>((resolve) => {
      const t = setTimeout(resolve, 5000);
      token.onCancellationRequested(() => {
        clearTimeout(t);
        resolve();
      });
    });
    if (token.isCancellationRequested) throw new vscode.CancellationError();
    yield '1}';
  });
}

describe('council/complete served by the chat model', () => {
  it('maps messages (system → user) and streams deltas with the stream id', async () => {
    const model = fakeModel(['{"position":', ' "x"}']);
    const { deps, deltas } = setup(model);
    const result = await serveCompletion(params, new vscode.CancellationTokenSource().token, deps);
    assert.deepEqual(result, { text: '{"position": "x"}', model: 'fake-model' });
    assert.deepEqual(deltas, [{ streamId: 'st1', text: '{"position":' }, { streamId: 'st1', text: ' "x"}' }]);
    const msgs = model.requests[0].messages;
    assert.deepEqual(msgs.map((m: any) => [m.role, m.content]), [[1, 'You are a persona'], [1, 'Question'], [2, 'Earlier']]);
    assert.equal(toChatMessages([]).length, 0);
  });

  it("the sidecar's $/cancelRequest stops the model and answers RequestCancelled", async () => {
    const model = slowModel();
    const { deps } = setup(model);
    const req = new vscode.CancellationTokenSource();
    const p = serveCompletion(params, req.token, deps);
    setTimeout(() => req.cancel(), 20);
    await assert.rejects(p, (e: unknown) => e instanceof ResponseError && e.code === -32800);
    assert.equal(model.requests[0].token.isCancellationRequested, true);
  });

  it("the chat's stop button also stops the model", async () => {
    const chat = new vscode.CancellationTokenSource();
    const model = slowModel();
    const { deps } = setup(model, chat.token);
    const p = serveCompletion(params, new vscode.CancellationTokenSource().token, deps);
    setTimeout(() => chat.cancel(), 20);
    await assert.rejects(p, (e: unknown) => e instanceof ResponseError && e.code === -32800);
  });

  it('no consent: a permission error with data, and the user is told once', async () => {
    const model = fakeModel(() => {
      throw vscode.LanguageModelError.NoPermissions('user declined');
    });
    const { deps, notes } = setup(model);
    await assert.rejects(serveCompletion(params, new vscode.CancellationTokenSource().token, deps), (e: unknown) => {
      assert.ok(e instanceof ResponseError);
      assert.equal(e.code, -32001);
      assert.equal((e.data).code, 'permission');
      return true;
    });
    assert.match(notes[0], /may not use \*\*Fake Model\*\*.*configured provider/);
  });

  it('no turn for the session (or no model): permission error so the sidecar can fall back', async () => {
    const turns = new TurnRegistry<any>();
    await assert.rejects(
      serveCompletion(params, new vscode.CancellationTokenSource().token, { turns, sendDelta: () => {} }),
      (e: unknown) => e instanceof ResponseError && (e.data).code === 'permission',
    );
    const { deps } = setup(undefined);
    await assert.rejects(serveCompletion(params, new vscode.CancellationTokenSource().token, deps), /not available/);
  });

  it('other model failures are internal errors', async () => {
    const model = fakeModel(() => {
      throw new Error('rate limited');
    });
    const { deps } = setup(model);
    await assert.rejects(serveCompletion(params, new vscode.CancellationTokenSource().token, deps), (e: unknown) => e instanceof ResponseError && (e.data).code === 'internal');
  });
});
