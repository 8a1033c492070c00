import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import * as vscode from 'vscode';
import { ResponseError } from 'vscode-jsonrpc';
import { serveCompletion, toChatMessages } from '../../src/completion';
import { ChatModels } from '../../src/models';
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
  turns.begin(SID, { model, token: chatToken, onEvent: () => {} });
  const deltas: CompleteDelta[] = [];
  return { turns, deltas, deps: { turns, sendDelta: (d: CompleteDelta) => deltas.push(d) } };
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

  it('no consent on the chat model: a permission error whose reason (no_consent) the sidecar words', async () => {
    const model = fakeModel(() => {
      throw vscode.LanguageModelError.NoPermissions('user declined');
    });
    const { deps } = setup(model);
    await assert.rejects(serveCompletion(params, new vscode.CancellationTokenSource().token, deps), (e: unknown) => {
      assert.ok(e instanceof ResponseError);
      assert.equal(e.code, -32001);
      assert.equal((e.data).code, 'permission');
      assert.equal((e.data).details.reason, 'no_consent');
      assert.equal((e.data).details.modelId, 'fake-model');
      return true;
    });
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

const mock = (vscode as unknown as { __mock: any }).__mock;
const failing = (err: () => Error, info: Parameters<typeof fakeModel>[1]) =>
  fakeModel(() => {
    throw err();
  }, info);

/** A turn whose chat model is `chat`, with the window's chat models `others` (plus the chat's) behind `ChatModels`. */
function seated(chat: any, ...others: any[]) {
  mock.chatModels.push(chat, ...others);
  const base = setup(chat);
  const models = new ChatModels();
  return { ...base, models, deps: { ...base.deps, models } };
}

const reasonOf = (e: unknown) => (e instanceof ResponseError ? (e.data).details : undefined);

describe('council/complete served by the model the sidecar names (seats on several models)', () => {
  beforeEach(() => mock.reset());

  it('no modelId, or the chat model\'s id: the chat model; another id: that model, looked up by id', async () => {
    const chat = fakeModel(['chat'], { id: 'gpt-5', name: 'GPT-5', vendor: 'copilot' });
    const claude = fakeModel(['{"position": "claude"}'], { id: 'claude-sonnet-4', name: 'Claude Sonnet 4', vendor: 'copilot' });
    const { deps, deltas } = seated(chat, claude);
    const t = new vscode.CancellationTokenSource().token;
    assert.equal((await serveCompletion(params, t, deps)).model, 'gpt-5');
    assert.equal((await serveCompletion({ ...params, modelId: 'gpt-5' }, t, deps)).model, 'gpt-5');
    assert.deepEqual(await serveCompletion({ ...params, streamId: 's2', modelId: 'claude-sonnet-4' }, t, deps), { text: '{"position": "claude"}', model: 'claude-sonnet-4' });
    assert.equal(chat.requests.length, 2);
    assert.equal(claude.requests.length, 1);
    assert.match(claude.requests[0].options.justification, /council\.models/);
    assert.deepEqual(deltas.at(-1), { streamId: 's2', text: '{"position": "claude"}' });
  });

  it('a model that is gone: model_unavailable, nothing is sent', async () => {
    const chat = fakeModel(['chat'], { id: 'gpt-5' });
    const { deps } = seated(chat);
    await assert.rejects(serveCompletion({ ...params, modelId: 'gemini-2.5-pro' }, new vscode.CancellationTokenSource().token, deps), (e: unknown) => {
      assert.deepEqual(reasonOf(e), { reason: 'model_unavailable', modelId: 'gemini-2.5-pro', purpose: "Devil's Advocate" });
      assert.equal(((e as ResponseError<any>).data).code, 'validation');
      return true;
    });
    assert.equal(chat.requests.length, 0);
  });

  it('consent refused: no_consent, remembered for the window (the next call is answered at once, never asked again)', async () => {
    const chat = fakeModel(['chat'], { id: 'gpt-5' });
    const claude = failing(() => vscode.LanguageModelError.NoPermissions('the user declined'), { id: 'claude', name: 'Claude' });
    const { deps, models } = seated(chat, claude);
    const t = new vscode.CancellationTokenSource().token;
    for (let i = 0; i < 2; i++) {
      await assert.rejects(serveCompletion({ ...params, modelId: 'claude' }, t, deps), (e: unknown) => {
        assert.equal(reasonOf(e).reason, 'no_consent');
        assert.equal(reasonOf(e).modelId, 'claude');
        assert.equal(((e as ResponseError<any>).data).code, 'permission');
        return true;
      });
    }
    assert.equal(claude.requests.length, 1, 'asked once');
    assert.equal(models.isRefused('claude'), true);
  });

  it('a failing model: model_failed; a model VS Code no longer finds while answering: model_unavailable', async () => {
    const chat = fakeModel(['chat'], { id: 'gpt-5' });
    const broken = failing(() => new Error('HTTP 529 overloaded'), { id: 'broken' });
    const vanished = failing(() => vscode.LanguageModelError.NotFound('no such model'), { id: 'vanished' });
    const { deps, models } = seated(chat, broken, vanished);
    const t = new vscode.CancellationTokenSource().token;
    await assert.rejects(serveCompletion({ ...params, modelId: 'broken' }, t, deps), (e: unknown) => reasonOf(e).reason === 'model_failed' && /529 overloaded/.test((e as Error).message));
    await assert.rejects(serveCompletion({ ...params, modelId: 'vanished' }, t, deps), (e: unknown) => reasonOf(e).reason === 'model_unavailable');
    assert.equal(models.isRefused('broken'), false, 'a failure is not a refusal: the next session may try it again');
  });

  it("the chat's own model refused: no_consent too, and the extension writes nothing (the sidecar words it)", async () => {
    const chat = failing(() => vscode.LanguageModelError.NoPermissions('declined'), { id: 'gpt-5', name: 'GPT-5' });
    const { deps } = seated(chat);
    await assert.rejects(serveCompletion(params, new vscode.CancellationTokenSource().token, deps), (e: unknown) => {
      assert.equal(reasonOf(e).reason, 'no_consent');
      return ((e as ResponseError<any>).data).code === 'permission';
    });
  });

  it('cancelling a seat model call answers RequestCancelled, not a fallback reason', async () => {
    const chat = fakeModel(['chat'], { id: 'gpt-5' });
    const slow = slowModel();
    Object.assign(slow, { id: 'slow' });
    const { deps } = seated(chat, slow);
    const req = new vscode.CancellationTokenSource();
    const p = serveCompletion({ ...params, modelId: 'slow' }, req.token, deps);
    setTimeout(() => req.cancel(), 20);
    await assert.rejects(p, (e: unknown) => e instanceof ResponseError && e.code === -32800);
  });
});
