import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import { ResponseError } from 'vscode-jsonrpc';
import * as vscode from 'vscode';
import type { ToolDeps } from '../../src/tools';
import { MCP_PROVIDER_ID, TOOL_NAMES, agentToolsMode, chatModelForTools, consultTool, councilMcpProvider, definePersonasTool, personaConsultTool, registerCouncilMcp, registerCouncilTools, reviewTool, toolError } from '../../src/tools';
import { ChatModels } from '../../src/models';
import { TurnRegistry } from '../../src/turns';
import { FakeClient, fakeModel } from './helpers';

const mock = (vscode as unknown as { __mock: any }).__mock;
const PLAN = { council: { personas: ['Security Expert'], reason: 'asked', method: 'override', user_override: true }, depth: 'brief', max_cycles: 1, model_calls_min: 4, model_calls_max: 4, markdown: 'Security Expert (brief depth): 4 model calls.' };

function deps(script: ConstructorParameters<typeof FakeClient>[0], model?: unknown): ToolDeps & { client: FakeClient } {
  return { client: new FakeClient(script), turns: new TurnRegistry<vscode.LanguageModelChat>(), chooseModel: () => Promise.resolve(model as vscode.LanguageModelChat | undefined) };
}

const token = () => new vscode.CancellationTokenSource().token;
const textOf = (r: vscode.LanguageModelToolResult | null | undefined) => (r!.content[0] as vscode.LanguageModelTextPart).value;

describe('agent-mode tools', () => {
  beforeEach(() => mock.reset());

  it('prepareInvocation asks to confirm, naming the personas, the depth and the model calls from council/consultPlan', async () => {
    const d = deps(() => PLAN);
    const prepared = await personaConsultTool(d).prepareInvocation!({ input: { user_problem: 'Rotate keys?', persona_name: 'security' } }, token());
    assert.equal((prepared!.invocationMessage as vscode.MarkdownString).value, PLAN.markdown);
    assert.equal(prepared!.confirmationMessages!.title, "Consult the Council's security?");
    assert.equal((prepared!.confirmationMessages!.message as vscode.MarkdownString).value, PLAN.markdown);
    assert.deepEqual(d.client.calls[0].params, { user_problem: 'Rotate keys?', persona_name: 'security' });
    assert.equal(d.client.calls[0].method, 'council/consultPlan');
    const council = await consultTool(d).prepareInvocation!({ input: { user_problem: 'Split the monolith?' } }, token());
    assert.equal(council!.confirmationMessages!.title, 'Consult the Council?');
  });

  it('prepareInvocation plans on the model the consult will run on (the sidecar counts its calls there)', async () => {
    const d = deps(() => PLAN, { id: 'copilot-gpt-x', vendor: 'copilot', family: 'gpt-x', name: 'GPT X' });
    await consultTool(d).prepareInvocation!({ input: { user_problem: 'Split the monolith?' } }, token());
    assert.deepEqual(d.client.calls[0].params, { user_problem: 'Split the monolith?', client_model: 'copilot-gpt-x' });
  });

  it("what the budget cut is part of the confirmation, in the sidecar's words", async () => {
    const d = deps(() => ({ ...PLAN, budget_cut: 'to fit the budget of 5 model calls: fewer debate cycles (from 3)' }));
    const prepared = await consultTool(d).prepareInvocation!({ input: { user_problem: 'Split?', max_model_calls: 5 } }, token());
    assert.equal((prepared!.confirmationMessages!.message as vscode.MarkdownString).value, `${PLAN.markdown}\n\nPlanned smaller to fit the budget of 5 model calls: fewer debate cycles (from 3).`);
  });

  it('council.maxModelCalls is the default budget of a consult (the plan and the run); the input wins', async () => {
    const d = { ...deps(() => ({ ...PLAN, markdown: 'ok' })), settings: () => ({ models: 'diverse' as const, maxModelCalls: 12 }) };
    await consultTool(d).prepareInvocation!({ input: { user_problem: 'Split?' } }, token());
    await consultTool(d).invoke({ input: { user_problem: 'Split?' } } as any, token());
    await consultTool(d).invoke({ input: { user_problem: 'Split?', max_model_calls: 5 } } as any, token());
    assert.deepEqual(d.client.calls.map((c) => [c.method, c.params.max_model_calls]), [['council/consultPlan', 12], ['council/consult', 12], ['council/consult', 5]]);
  });

  it('council.debate.speculate is the default of a consult; the input wins', async () => {
    const d = { ...deps(() => ({ ...PLAN, markdown: 'ok' })), settings: () => ({ models: 'diverse' as const, speculate: 'always' as const }) };
    await consultTool(d).prepareInvocation!({ input: { user_problem: 'Split?' } }, token());
    await consultTool(d).invoke({ input: { user_problem: 'Split?' } } as any, token());
    await consultTool(d).invoke({ input: { user_problem: 'Split?', speculate: 'never' } } as any, token());
    assert.deepEqual(d.client.calls.map((c) => [c.method, c.params.speculate]), [['council/consultPlan', 'always'], ['council/consult', 'always'], ['council/consult', 'never']]);
  });

  it('a plan that fails still asks, naming who would sit (or that the council chooses) and why there is no estimate', async () => {
    const d = deps(() => {
      throw new ResponseError(-32602, 'bad', { code: 'validation', message: 'unknown persona Chef', details: {} });
    });
    const chosen = await consultTool(d).prepareInvocation!({ input: { user_problem: 'Split?', depth: 'brief' } }, token());
    assert.equal((chosen!.confirmationMessages!.message as vscode.MarkdownString).value, 'personas chosen by the council (brief depth). The model calls could not be estimated: unknown persona Chef.');
    const named = await consultTool(d).prepareInvocation!({ input: { user_problem: 'Split?', selected_personas: ['Chef', 'Security Expert'] } }, token());
    assert.match((named!.confirmationMessages!.message as vscode.MarkdownString).value, /^Chef, Security Expert \(standard depth\)/);
  });

  it("a consult offers the user's chat models with the seating: the chat model by id among them", async () => {
    const chat = fakeModel(['x'], { id: 'gpt-5', name: 'GPT-5', vendor: 'copilot', family: 'gpt-5' });
    mock.chatModels.push(chat, fakeModel(['x'], { id: 'claude-sonnet-4', name: 'Claude Sonnet 4', vendor: 'copilot', family: 'claude-sonnet-4' }));
    const d = { ...deps(() => ({ markdown: 'ok' }), chat), models: new ChatModels(), settings: () => ({ models: 'chat' as const }) };
    await consultTool(d).invoke({ input: { user_problem: 'Split?' } } as any, token());
    const p = d.client.callsTo('council/consult')[0].params;
    assert.equal(p.client_model, 'gpt-5');
    assert.deepEqual(p.client_models.map((m: { id: string }) => m.id), ['gpt-5', 'claude-sonnet-4']);
    assert.equal(p.seating, 'chat');
    assert.equal('max_model_calls' in p, false, 'no budget set: none sent');
  });

  it('a consult borrows the chat model, names its session and returns the compact markdown', async () => {
    const model = fakeModel();
    const d = deps((call) => {
      const turn = d.turns.forSession(call.params.session_id);
      assert.equal(turn?.handlers.model, model); // council/complete for this session finds the borrowed model
      return { markdown: '**Recommendation:** stage it.' };
    }, model);
    const t = token();
    const result = await consultTool(d).invoke({ input: { user_problem: 'Split the monolith?', depth: 'brief' } } as any, t);
    assert.equal(textOf(result), '**Recommendation:** stage it.');
    const call = d.client.callsTo('council/consult')[0];
    assert.match(call.params.session_id, /^tool-[0-9a-f-]{36}$/);
    assert.equal(call.params.client_model, 'Fake Model');
    assert.equal(call.params.depth, 'brief');
    assert.equal(call.token, t); // cancelling the tool call cancels the request
    assert.equal(d.turns.active.length, 0);
  });

  it('without a chat model the sidecar provider answers', async () => {
    const d = deps(() => ({ markdown: 'ok' }));
    await personaConsultTool(d).invoke({ input: { user_problem: 'x', persona_name: 'Devil’s Advocate' } } as any, token());
    assert.equal('client_model' in d.client.calls[0].params, false);
  });

  it("a refused consult reaches the agent as the sidecar's sentence, then the code", async () => {
    const text = 'The council refused the request: unknown persona. Fix `persona_name` and call again.';
    const data = { code: 'validation', message: 'unknown persona', details: { fields: { persona_name: 'unknown persona' } }, text };
    const d = deps(() => {
      throw new ResponseError(-32602, 'unknown persona', data);
    });
    await assert.rejects(Promise.resolve(personaConsultTool(d).invoke({ input: { user_problem: 'x', persona_name: 'Chef' } } as any, token())), (err: Error) => {
      assert.equal(err.message, `${text}\n\n(Council error code: validation)`);
      return true;
    });
    // an error without the sidecar's text (an older sidecar) still reads as its message, not as JSON
    assert.equal(toolError(new ResponseError(-32602, 'x', { code: 'validation', message: 'unknown persona', details: {} })).message, 'unknown persona\n\n(Council error code: validation)');
    assert.equal(d.turns.active.length, 0);
    assert.equal(toolError(new Error('boom')).message, 'boom');
  });

  it('define_personas asks before applying a draft, never before drafting', async () => {
    const d = deps((call) => ({ draft: { id: 'draft-0123456789abcdef', preview: 'create `.council/personas/x.toml`' }, personas: [], markdown: `done ${call.params.confirm ?? 'draft'}` }));
    const tool = definePersonasTool(d);
    assert.deepEqual(await tool.prepareInvocation!({ input: { overrides: { 'Devil’s Advocate': { focus: ['a'] } } } } as any, token()), {});
    const asked = await tool.prepareInvocation!({ input: { confirm: 'draft-0123456789abcdef', overrides: { 'Devil’s Advocate': { focus: ['a'] } } } }, token());
    assert.equal((asked!.confirmationMessages!.message as vscode.MarkdownString).value, 'create `.council/personas/x.toml`');
    const result = await tool.invoke({ input: { confirm: 'draft-0123456789abcdef' } } as any, token());
    assert.equal(textOf(result), 'done draft-0123456789abcdef');
  });

  it('a review borrows the chat model under its review id and returns the compact decision', async () => {
    const model = fakeModel();
    const request = { request_id: 'refactor-42', timestamp: '2026-01-05T09:30:00Z', proposer: 'Agent', change_type: 'CODE_REFACTOR' as const, context: { summary: 'Extract fees' } };
    const plan = { changeType: 'CODE_REFACTOR', roles: ['Code Reviewer', 'Security Expert'], modelCallsMin: 3, modelCallsMax: 5, markdown: 'The review council for CODE_REFACTOR: Code Reviewer and Security Expert, then the chair: 3–5 model calls.' };
    const d = deps((call) => {
      if (call.method === 'council/reviewPlan') return plan;
      assert.equal(d.turns.forSession('review:refactor-42')?.handlers.model, model);
      return { decision: {}, markdown: '## Council review: ✅ APPROVE', compactMarkdown: '**Council review: APPROVE** (request `refactor-42`)' };
    }, model);
    const tool = reviewTool(d);
    const prepared = await tool.prepareInvocation!({ input: request }, token());
    assert.equal((prepared!.invocationMessage as vscode.MarkdownString).value, 'Council review of `refactor-42` (CODE_REFACTOR)');
    assert.equal(prepared!.confirmationMessages!.title, 'Review refactor-42 with the Council?');
    assert.equal((prepared!.confirmationMessages!.message as vscode.MarkdownString).value, plan.markdown);
    assert.deepEqual(d.client.callsTo('council/reviewPlan')[0].params, { changeType: 'CODE_REFACTOR' });
    const t = token();
    const result = await tool.invoke({ input: request } as any, t);
    assert.equal(textOf(result), '**Council review: APPROVE** (request `refactor-42`)');
    const call = d.client.callsTo('council/review')[0];
    assert.deepEqual(call.params, { request, provider: 'client', model: 'Fake Model', client: { completion: true, completionModel: 'Fake Model' } });
    assert.equal(call.token, t);
    assert.equal(d.turns.active.length, 0);
  });

  it('a review that cannot be done is the contract error, never a verdict', async () => {
    const data = { code: 'internal', message: 'could not review: no verdict from Code Reviewer', details: { reason: 'roles_failed' } };
    const d = deps(() => {
      throw new ResponseError(-32603, data.message, data);
    });
    const input = { request_id: 'r1', timestamp: '2026-01-05T09:30:00Z', proposer: 'Agent', change_type: 'CODE_REFACTOR' as const, context: { summary: 'x' } };
    await assert.rejects(Promise.resolve(reviewTool(d).invoke({ input } as any, token())), (err: Error) => {
      assert.equal(err.message, `${data.message}\n\n(Council error code: internal, reason: roles_failed)`);
      return true;
    });
    assert.deepEqual(d.client.calls[0].params.client, { completion: false });
    assert.equal(d.turns.active.length, 0);
  });

  it('registers the four tools under their MCP names', () => {
    const context = { subscriptions: [] as { dispose(): unknown }[] } as unknown as vscode.ExtensionContext;
    registerCouncilTools(context, deps(() => undefined));
    assert.deepEqual([...mock.tools.keys()], [TOOL_NAMES.consult, TOOL_NAMES.personaConsult, TOOL_NAMES.definePersonas, TOOL_NAMES.review]);
    assert.deepEqual([...mock.tools.keys()], ['council_consult', 'persona_consult', 'council_define_personas', 'council_review']);
  });

  it('reads the agentTools setting and picks a chat model only in chat mode', async () => {
    assert.equal(agentToolsMode({ get: () => undefined }), 'languageModelTools');
    assert.equal(agentToolsMode({ get: () => 'mcp' as any }), 'mcp');
    assert.equal(agentToolsMode({ get: () => 'bogus' as any }), 'languageModelTools');
    mock.chatModels.push(fakeModel());
    assert.equal((await chatModelForTools(true))?.id, 'fake-model');
    assert.equal(await chatModelForTools(false), undefined);
    mock.chatModels.unshift(fakeModel(['x'], { id: 'refused' }));
    const models = new ChatModels();
    models.refuse('refused');
    assert.equal((await chatModelForTools(true, models))?.id, 'fake-model', 'a model refused in this window is skipped');
  });
});

describe('MCP server definition provider', () => {
  beforeEach(() => mock.reset());

  it('offers council mcp only when agentTools is mcp, resolving the command lazily', async () => {
    let mode: 'languageModelTools' | 'mcp' | 'off' = 'languageModelTools';
    let resolved = 0;
    const provider = councilMcpProvider({
      version: '0.1.0',
      mode: () => mode,
      resolveLaunch: () => {
        resolved++;
        return Promise.resolve({ command: '/venv/bin/python', args: ['-m', 'council', 'mcp', '--workspace', '/ws'], env: { A: '1' }, cwd: '/ws' });
      },
    });
    assert.deepEqual(await provider.provideMcpServerDefinitions(token()), []);
    mode = 'mcp';
    const [server] = (await provider.provideMcpServerDefinitions(token())) as vscode.McpStdioServerDefinition[];
    assert.equal(server.label, 'Council');
    assert.equal(resolved, 0); // listing is instant; Python is resolved when VS Code starts the server
    const ready = (await provider.resolveMcpServerDefinition!(server, token())) as vscode.McpStdioServerDefinition;
    assert.equal(ready.command, '/venv/bin/python');
    assert.deepEqual(ready.args, ['-m', 'council', 'mcp', '--workspace', '/ws']);
    assert.deepEqual(ready.env, { A: '1' });
    assert.equal(ready.cwd?.fsPath, '/ws');
    let fired = 0;
    provider.onDidChangeMcpServerDefinitions!(() => fired++);
    provider.changed.fire();
    assert.equal(fired, 1);
  });

  it('registers under the contributed id', () => {
    const context = { subscriptions: [] as { dispose(): unknown }[] } as unknown as vscode.ExtensionContext;
    registerCouncilMcp(context, { version: '1', mode: () => 'mcp', resolveLaunch: () => Promise.reject(new Error('unused')) });
    assert.ok(mock.mcpProviders.has(MCP_PROVIDER_ID));
    assert.equal(context.subscriptions.length, 3);
  });
});
