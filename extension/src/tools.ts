/**
 * Agent-mode tools: the council's consult tools as VS Code language model tools, answered by the sidecar
 * (`council/consult`, `council/personaConsult`, `council/definePersonas`). Names, descriptions and input schemas
 * are contributed in package.json (generated from the sidecar's tool specs); `prepareInvocation` shows which
 * personas will sit and how many model calls the consult makes; results come back as the sidecar's compact
 * markdown. With `council.provider: chat` the consult borrows a chat model, as a chat turn does (the tool call
 * registers as a turn, so `council/complete` and the session's events find it). Cancelling the tool call cancels
 * the session and every model call. `council_review` (seed 004's CouncilRequest in) answers with the review
 * decision's compact markdown: an agent that changed code can have the review council judge its diff.
 */
import { randomUUID } from 'node:crypto';
import * as vscode from 'vscode';
import type { CouncilClient } from './client';
import { log } from './log';
import { isErrorData } from './protocol';
import type { TurnRegistry } from './turns';
import { reviewParams } from './review';
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
export function agentToolsMode(config: { get<T>(key: string): T | undefined }): AgentToolsMode {
  const value = config.get<string>('agentTools');
  return value === 'mcp' || value === 'off' ? value : 'languageModelTools';
}

export interface ToolDeps {
  client: CouncilClient;
  turns: TurnRegistry<vscode.LanguageModelChat>;
  /** The chat model a consult may borrow (undefined: the sidecar's configured provider answers). */
  chooseModel(): Promise<vscode.LanguageModelChat | undefined>;
}

function textResult(markdown: string): vscode.LanguageModelToolResult {
  return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(markdown)]);
}

/** A refused or failed call, as the tool error the agent reads: the contract's `{"error": {code, message, details}}`. */
export function toolError(err: unknown): Error {
  const data = (err as { data?: unknown } | undefined)?.data;
  if (isErrorData(data)) return new Error(JSON.stringify({ error: { code: data.code, message: data.message, details: data.details ?? {} } }));
  return err instanceof Error ? err : new Error(String(err));
}

async function call<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    throw toolError(err);
  }
}

/** What a consult is about to do (personas, depth, model calls), shown while it runs; a plan that fails shows nothing extra. */
async function prepare(deps: ToolDeps, input: ConsultPlanParams, token: vscode.CancellationToken): Promise<vscode.PreparedToolInvocation> {
  try {
    const plan = await deps.client.request('council/consultPlan', input, token);
    return { invocationMessage: new vscode.MarkdownString(plan.markdown) };
  } catch {
    return {}; // the invocation itself reports the problem
  }
}

/** Run one consult as a registered turn: its own session id, the borrowed model (if any), the tool's cancellation. */
async function consult(
  deps: ToolDeps,
  method: 'council/consult' | 'council/personaConsult',
  input: ConsultInput | PersonaConsultInput,
  token: vscode.CancellationToken,
): Promise<vscode.LanguageModelToolResult> {
  const model = await deps.chooseModel();
  const turn = deps.turns.begin(undefined, { model, token, onEvent: () => undefined, notify: (markdown) => log.warn(markdown.trim()) });
  turn.proposedSessionId = `tool-${randomUUID()}`;
  const params = { ...input, session_id: turn.proposedSessionId, ...(model ? { client_model: model.name } : {}) };
  try {
    const result: ConsultResult = await call(() =>
      method === 'council/consult'
        ? deps.client.request(method, params as ConsultRequest, token)
        : deps.client.request(method, params as PersonaConsultRequest, token),
    );
    return textResult(result.markdown);
  } finally {
    deps.turns.end(turn);
  }
}

export function consultTool(deps: ToolDeps): vscode.LanguageModelTool<ConsultInput> {
  return {
    prepareInvocation: (options, token) => prepare(deps, options.input, token),
    invoke: (options, token) => consult(deps, 'council/consult', options.input, token),
  };
}

export function personaConsultTool(deps: ToolDeps): vscode.LanguageModelTool<PersonaConsultInput> {
  return {
    prepareInvocation: (options, token) => prepare(deps, options.input, token),
    invoke: (options, token) => consult(deps, 'council/personaConsult', options.input, token),
  };
}

/** With `council.provider: chat`, the first chat model VS Code offers Council (none: the configured provider). */
export async function chatModelForTools(useChatModel: boolean): Promise<vscode.LanguageModelChat | undefined> {
  if (!useChatModel) return undefined;
  const models = await vscode.lm.selectChatModels().then(undefined, () => []);
  return models[0];
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

/** A review runs as a registered turn under its review id (`council/complete` and its progress events find it). */
export function reviewTool(deps: ToolDeps): vscode.LanguageModelTool<CouncilRequest> {
  return {
    prepareInvocation: (options) => ({
      invocationMessage: new vscode.MarkdownString(`Council review of \`${options.input.request_id}\` (${options.input.change_type})`),
    }),
    async invoke(options, token) {
      const model = await deps.chooseModel();
      const turn = deps.turns.begin(`review:${options.input.request_id}`, { model, token, onEvent: () => undefined, notify: (markdown) => log.warn(markdown.trim()) });
      try {
        const result = await call(() => deps.client.request('council/review', reviewParams(options.input, model), token));
        return textResult(result.compactMarkdown);
      } finally {
        deps.turns.end(turn);
      }
    },
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
