import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import * as vscode from 'vscode';
import { ChatModels, clientCapabilities, offeredModels } from '../../src/models';
import { fakeModel } from './helpers';

const mock = (vscode as unknown as { __mock: any }).__mock;
const model = (id: string, vendor: string, family = id, name = id.toUpperCase()) => fakeModel(['{"ok": true}'], { id, vendor, family, name });

describe("the user's chat models offered to the sidecar", () => {
  beforeEach(() => mock.reset());

  it("the chat's model first, then grouped by vendor in each vendor's own order, each id once", () => {
    const chat = model('gpt-5', 'copilot', 'gpt-5', 'GPT-5');
    const all = [model('zeta-1', 'zeta'), model('claude-sonnet-4', 'copilot', 'claude-sonnet-4'), chat, model('alpha-2', 'alpha'), model('gemini-2.5-pro', 'copilot'), model('alpha-1', 'alpha'), model('claude-sonnet-4', 'copilot')];
    const offered = offeredModels(all, chat, () => true);
    assert.deepEqual(offered.map((m) => m.id), ['gpt-5', 'alpha-2', 'alpha-1', 'claude-sonnet-4', 'gemini-2.5-pro', 'zeta-1']);
    assert.deepEqual(offered[0], { id: 'gpt-5', vendor: 'copilot', family: 'gpt-5', name: 'GPT-5' });
    // The same models in another order (providers activated in another order) give the same list.
    assert.deepEqual(offeredModels([...all].reverse(), chat, () => true).map((m) => m.vendor), offered.map((m) => m.vendor));
  });

  it("bounded by the wire's 50 (the chat's model always in), refused and over-long ids left out", () => {
    const chat = model('chat', 'zz');
    const many = Array.from({ length: 70 }, (_, i) => model(`m${String(i).padStart(2, '0')}`, 'aa'));
    const offered = offeredModels([...many, chat], chat, (m) => m.id !== 'm01');
    assert.equal(offered.length, 50);
    assert.equal(offered[0].id, 'chat');
    assert.equal(offered.some((m) => m.id === 'm01'), false);
    assert.equal(offeredModels([model('x'.repeat(301), 'aa')], chat, () => true).length, 1);
  });

  it('capabilities: the chat model, every usable model and its id; no model: no completion', async () => {
    const chat = model('gpt-5', 'copilot');
    mock.chatModels.push(chat, model('claude-sonnet-4', 'copilot'), model('refused', 'other'));
    const models = new ChatModels({ canSendRequest: (m) => (m.id === 'refused' ? false : undefined) });
    assert.deepEqual(await clientCapabilities(chat as unknown as vscode.LanguageModelChat, models), {
      completion: true,
      completionModel: 'GPT-5',
      models: [{ id: 'gpt-5', vendor: 'copilot', family: 'gpt-5', name: 'GPT-5' }, { id: 'claude-sonnet-4', vendor: 'copilot', family: 'claude-sonnet-4', name: 'CLAUDE-SONNET-4' }],
      chatModelId: 'gpt-5',
    });
    assert.deepEqual(await clientCapabilities(undefined, models), { completion: false });
    assert.deepEqual(await clientCapabilities(chat as unknown as vscode.LanguageModelChat), { completion: true, completionModel: 'GPT-5' });
  });

  it('a model refused in this window is no longer offered', async () => {
    const chat = model('gpt-5', 'copilot');
    mock.chatModels.push(chat, model('claude-sonnet-4', 'copilot'));
    const models = new ChatModels();
    models.refuse('claude-sonnet-4');
    assert.deepEqual((await models.offer(chat as unknown as vscode.LanguageModelChat)).map((m) => m.id), ['gpt-5']);
  });

  it('a model is found by id, and a gone one is not', async () => {
    mock.chatModels.push(model('a', 'v1'), model('b', 'v2'));
    const models = new ChatModels();
    assert.equal((await models.byId('b'))?.id, 'b');
    assert.equal(await models.byId('c'), undefined);
  });
});

describe('consent is asked once per model, never per call', () => {
  it('concurrent first calls on a model wait for the first one (one prompt); a refusal stops the others unasked', async () => {
    const m = model('claude', 'other') as unknown as vscode.LanguageModelChat;
    const models = new ChatModels({ canSendRequest: () => undefined }); // VS Code has not asked yet
    let release!: (ok: boolean) => void;
    const calls: number[] = [];
    const first = models.start(m, () => {
      calls.push(1);
      return new Promise((resolve, reject) => (release = (ok) => (ok ? resolve('r1') : reject(vscode.LanguageModelError.NoPermissions('declined')))));
    });
    const second = models.start(m, () => {
      calls.push(2);
      return Promise.resolve('r2');
    });
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(calls, [1], 'the second call waits while the user is asked');
    release(false);
    await assert.rejects(first, /declined/);
    assert.equal(await second, undefined, 'refused: the second call is not sent');
    assert.deepEqual(calls, [1]);
    assert.equal(models.isRefused('claude'), true);
  });

  it('once allowed, calls run side by side', async () => {
    const m = model('gemini', 'other') as unknown as vscode.LanguageModelChat;
    const models = new ChatModels();
    assert.equal(await models.start(m, () => Promise.resolve('first')), 'first');
    const order: string[] = [];
    let release!: () => void;
    const slow = models.start(m, () => new Promise<string>((r) => (release = () => r('slow'))).then((v) => (order.push(v), v)));
    const fast = models.start(m, () => Promise.resolve('fast').then((v) => (order.push(v), v)));
    assert.equal(await fast, 'fast');
    release();
    assert.equal(await slow, 'slow');
    assert.deepEqual(order, ['fast', 'slow']);
  });

  it('a model refused in this window is usable again once the user allows it (VS Code then says so)', async () => {
    const m = model('claude', 'other') as unknown as vscode.LanguageModelChat;
    const vscodeSays: { allowed?: boolean } = {};
    const models = new ChatModels({ canSendRequest: () => vscodeSays.allowed });
    await assert.rejects(models.start(m, () => Promise.reject(vscode.LanguageModelError.NoPermissions('declined'))), /declined/);
    assert.equal(models.usable(m), false, 'refused: not asked again');
    vscodeSays.allowed = true; // Manage Language Model Access
    assert.equal(models.usable(m), true);
    assert.equal(await models.start(m, () => Promise.resolve('ok')), 'ok');
    assert.equal(models.isRefused('claude'), false);
  });

  it("a model VS Code says is refused is not called at all", async () => {
    const m = model('o3', 'other') as unknown as vscode.LanguageModelChat;
    const models = new ChatModels({ canSendRequest: () => false });
    let called = false;
    assert.equal(await models.start(m, () => ((called = true), Promise.resolve('x'))), undefined);
    assert.equal(called, false);
    assert.equal(models.isRefused('o3'), true);
  });
});
