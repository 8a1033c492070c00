/**
 * Agent-mode tools: the council's consult and review tools as VS Code language model tools (contributed in
 * package.json, generated from the sidecar's tool specs), each confirmed first with the sidecar's plan and answered
 * with its compact markdown; and the same tools as `council mcp` through the MCP server definition provider API.
 * `council.agentTools` offers one surface or the other, so agent mode never sees the same tool twice. See README,
 * 'As tools: MCP and agents'.
 */
import { randomUUID } from 'node:crypto';
import * as vscode from 'vscode';
import type { CouncilClient } from './client';
import { describeError } from './log';
import { isErrorData } from './protocol';
import type { ChatModels } from './models';
import { clientCapabilities } from './models';
import type { TurnRegistry } from './turns';
import { reviewParams } from './review';
import type { ConfigReader, ModelsSetting, SidecarCommand } from './settings';
import { pick } from './settings';
import type { ConsultPlanParams, ConsultRequest, ConsultResult, CouncilRequest, DefinePersonasParams, PersonaConsultRequest } from './wire';

/** What the agent passes (seed 000's input); the session id and the lent model are the extension's to add. */
export type ConsultInput = Omit<ConsultRequest, 'session_id' | 'client_model'>;
export type PersonaConsultInput = Omit<PersonaConsultRequest, 'session_id' | 'client_model'>;

export const TOOL_NAMES = {
  consult: 'council_consult',
  personaConsult: 'persona_consult',
  definePersonas: 'council_define_personas',
  review: 'council_review',
} as const;

export type AgentToolsMode = 'languageModelTools' | 'mcp' | 'off';

/** `council.agentTools`: which surface serves the consult tools to agent mode (one, never both). */
export function agentToolsMode(config: ConfigReader): AgentToolsMode {
  return pick(config.get('agentTools'), ['languageModelTools', 'mcp', 'off'], 'languageModelTools');
}

export interface ToolDeps {
  client: CouncilClient;
  turns: TurnRegistry<vscode.LanguageModelChat>;
  /** The chat model a consult may borrow (undefined: the sidecar's configured provider answers). */
  chooseModel(): Promise<vscode.LanguageModelChat | undefined>;
  /** `council.models`, `council.maxModelCalls` and `council.debate.speculate` (unset: the sidecar's defaults). */
  settings?(): { models: ModelsSetting; maxModelCalls?: number; speculate?: 'auto' | 'always' | 'never' };
  /** The user's chat models, offered to seat personas on (none: only the borrowed model). */
  models?: ChatModels;
}

/** The consult's input with `council.maxModelCalls` as the default budget and `council.debate.speculate` as its default. */
function withBudget<T extends { max_model_calls?: number; speculate?: 'auto' | 'always' | 'never' }>(deps: ToolDeps, input: T): T {
  const settings = deps.settings?.();
  const budget = settings?.maxModelCalls;
  const out = input.max_model_calls === undefined && budget !== undefined ? { ...input, max_model_calls: budget } : input;
  const speculate = settings?.speculate;
  return out.speculate === undefined && speculate !== undefined && speculate !== 'auto' ? { ...out, speculate } : out;
}

function textResult(markdown: string): vscode.LanguageModelToolResult {
  return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(markdown)]);
}

/**
 * A refused or failed call, as the tool error the agent reads: the sidecar's sentence (what failed, why, what to do),
 * then the machine-readable code (and `details.reason`, when there is one) on a line of its own.
 */
export function toolError(err: unknown): Error {
  const data = (err as { data?: unknown } | undefined)?.data;
  if (!isErrorData(data)) return err instanceof Error ? err : new Error(String(err));
  const reason = typeof data.details?.reason === 'string' ? `, reason: ${data.details.reason}` : '';
  return new Error(`${data.text || data.message}\n\n(Council error code: ${data.code}${reason})`);
}

async function call<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    throw toolError(err);
  }
}

/** What the user confirms before a consult runs: who sits (or that the council chooses), the depth, the model calls. */
async function prepare(deps: ToolDeps, input: ConsultPlanParams, token: vscode.CancellationToken): Promise<vscode.PreparedToolInvocation> {
  const title = input.persona_name ? `Consult the Council's ${input.persona_name}?` : 'Consult the Council?';
  try {
    const model = await deps.chooseModel(); // the consult runs on it: the plan counts its calls there
    const params = model ? { ...withBudget(deps, input), client_model: model.id } : withBudget(deps, input);
    const plan = await deps.client.request('council/consultPlan', params, token);
    const cut = plan.budget_cut ? `\n\nPlanned smaller ${plan.budget_cut}.` : ''; // the sidecar's words for what the budget cut
    return { invocationMessage: new vscode.MarkdownString(plan.markdown), confirmationMessages: { title, message: new vscode.MarkdownString(plan.markdown + cut) } };
  } catch (err) {
    const who = input.persona_name ?? (input.selected_personas?.length ? input.selected_personas.join(', ') : 'personas chosen by the council');
    return { confirmationMessages: { title, message: withoutEstimate(`${who} (${input.depth ?? 'standard'} depth).`, err) } };
  }
}

/** A confirmation when the sidecar could not plan: who would sit, and why there is no estimate (the invocation reports the problem itself). */
function withoutEstimate(who: string, err: unknown): vscode.MarkdownString {
  const data = (err as { data?: unknown } | undefined)?.data;
  const why = isErrorData(data) ? data.message : describeError(err);
  return new vscode.MarkdownString(`${who} The model calls could not be estimated: ${why}.`);
}

/**
 * Run a tool call as a registered turn (`council/complete` and its events find it): the borrowed model (if any), the
 * tool's cancellation (which cancels the session and every model call), its markdown as the result.
 */
async function asTurn(
  deps: ToolDeps,
  ids: { sessionId?: string; proposedSessionId?: string },
  token: vscode.CancellationToken,
  run: (model: vscode.LanguageModelChat | undefined) => Promise<string>,
): Promise<vscode.LanguageModelToolResult> {
  const model = await deps.chooseModel();
  const turn = deps.turns.begin(ids.sessionId, { model, token, onEvent: () => undefined });
  turn.proposedSessionId = ids.proposedSessionId;
  try {
    return textResult(await call(() => run(model)));
  } finally {
    deps.turns.end(turn);
  }
}

/** One consult under its own session id, with the lent models. */
function consult(
  deps: ToolDeps,
  method: 'council/consult' | 'council/personaConsult',
  input: ConsultInput | PersonaConsultInput,
  token: vscode.CancellationToken,
): Promise<vscode.LanguageModelToolResult> {
  const sessionId = `tool-${randomUUID()}`;
  return asTurn(deps, { proposedSessionId: sessionId }, token, async (model) => {
    const params = { ...withBudget(deps, input), session_id: sessionId, ...(await lentModels(deps, model)) };
    const result: ConsultResult =
      method === 'council/consult'
        ? await deps.client.request(method, params, token)
        : await deps.client.request(method, params as PersonaConsultRequest, token);
    return result.markdown;
  });
}

/**
 * The consult's client fields: none without a model; the model's name when it is the only one; with the user's
 * models on offer, the chat's model's id among them and the seating (`council.models`).
 */
async function lentModels(deps: ToolDeps, model: vscode.LanguageModelChat | undefined): Promise<Pick<ConsultRequest, 'client_model' | 'client_models' | 'seating'>> {
  const caps = await clientCapabilities(model, deps.models);
  if (!model || !caps.models || !caps.chatModelId) return model ? { client_model: caps.completionModel } : {};
  const seating = deps.settings?.().models;
  return { client_model: caps.chatModelId, client_models: caps.models, ...(seating !== undefined ? { seating } : {}) };
}

function consultingTool<I extends ConsultInput | PersonaConsultInput>(
  deps: ToolDeps, method: 'council/consult' | 'council/personaConsult',
): vscode.LanguageModelTool<I> {
  return {
    prepareInvocation: (options, token) => prepare(deps, options.input, token),
    invoke: (options, token) => consult(deps, method, options.input, token),
  };
}

export const consultTool = (deps: ToolDeps) => consultingTool<ConsultInput>(deps, 'council/consult');
export const personaConsultTool = (deps: ToolDeps) => consultingTool<PersonaConsultInput>(deps, 'council/personaConsult');

/** With `council.provider: chat`, the first chat model VS Code offers Council that was not refused (none: the configured provider). */
export async function chatModelForTools(useChatModel: boolean, chatModels?: ChatModels): Promise<vscode.LanguageModelChat | undefined> {
  if (!useChatModel) return undefined;
  const models = await vscode.lm.selectChatModels().then(undefined, () => []);
  return models.find((m) => chatModels?.usable(m) ?? true);
}

/** Drafts run unasked (they write nothing); applying one (`confirm`) asks the user first, showing the draft. */
export function definePersonasTool(deps: ToolDeps): vscode.LanguageModelTool<DefinePersonasParams> {
  return {
    async prepareInvocation(options, token) {
      const { confirm, overrides } = options.input;
      if (!confirm) return {};
      let preview = '';
      if (overrides) {
        const draft = await deps.client.request('council/definePersonas', { overrides }, token).catch(() => undefined);
        preview = draft?.draft?.id === confirm ? draft.draft.preview : '';
      }
      return { confirmationMessages: { title: 'Write persona overrides?', message: new vscode.MarkdownString(preview || `Apply draft \`${confirm}\` to \`.council/personas\`.`) } };
    },
    invoke: async (options, token) => textResult((await call(() => deps.client.request('council/definePersonas', options.input, token))).markdown),
  };
}

/** A review runs as a registered turn under its review id. */
export function reviewTool(deps: ToolDeps): vscode.LanguageModelTool<CouncilRequest> {
  return {
    async prepareInvocation(options, token) {
      const { request_id: id, change_type: changeType } = options.input;
      const title = `Review ${id} with the Council?`; // a dialog title is plain text
      const invocationMessage = new vscode.MarkdownString(`Council review of \`${id}\` (${changeType})`);
      try {
        const plan = await deps.client.request('council/reviewPlan', { changeType }, token);
        return { invocationMessage, confirmationMessages: { title, message: new vscode.MarkdownString(plan.markdown) } };
      } catch (err) {
        return { invocationMessage, confirmationMessages: { title, message: withoutEstimate(`The review council for ${changeType}.`, err) } };
      }
    },
    invoke: (options, token) =>
      asTurn(deps, { sessionId: `review:${options.input.request_id}` }, token, async (model) =>
        (await deps.client.request('council/review', reviewParams(options.input, model), token)).compactMarkdown,
      ),
  };
}

/** Register the four tools (package.json's `when` clause hides them unless `council.agentTools` selects them). */
export function registerCouncilTools(context: vscode.ExtensionContext, deps: ToolDeps): void {
  context.subscriptions.push(
    vscode.lm.registerTool(TOOL_NAMES.consult, consultTool(deps)),
    vscode.lm.registerTool(TOOL_NAMES.personaConsult, personaConsultTool(deps)),
    vscode.lm.registerTool(TOOL_NAMES.definePersonas, definePersonasTool(deps)),
    vscode.lm.registerTool(TOOL_NAMES.review, reviewTool(deps)),
  );
}

export const MCP_PROVIDER_ID = 'council.mcp';

export interface McpDeps {
  version: string;
  mode: () => AgentToolsMode;
  /** How to run `council mcp` (the sidecar's Python, arguments and environment). */
  resolveLaunch: () => Promise<SidecarCommand>;
}

export interface CouncilMcpProvider extends vscode.McpServerDefinitionProvider<vscode.McpStdioServerDefinition> {
  readonly changed: vscode.EventEmitter<void>;
}

export function councilMcpProvider(deps: McpDeps): CouncilMcpProvider {
  const changed = new vscode.EventEmitter<void>();
  return {
    changed,
    onDidChangeMcpServerDefinitions: changed.event,
    provideMcpServerDefinitions: () => (deps.mode() === 'mcp' ? [new vscode.McpStdioServerDefinition('Council', 'council', ['mcp'], {}, deps.version)] : []),
    async resolveMcpServerDefinition(server) {
      const launch = await deps.resolveLaunch();
      server.command = launch.command;
      server.args = launch.args;
      server.env = { ...server.env, ...launch.env };
      if (launch.cwd) server.cwd = vscode.Uri.file(launch.cwd);
      return server;
    },
  };
}

/** Register the provider; a change to `council.*` settings makes VS Code ask for the definitions again. */
export function registerCouncilMcp(context: vscode.ExtensionContext, deps: McpDeps): void {
  const provider = councilMcpProvider(deps);
  context.subscriptions.push(
    vscode.lm.registerMcpServerDefinitionProvider(MCP_PROVIDER_ID, provider),
    provider.changed,
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('council')) provider.changed.fire();
    }),
  );
}
