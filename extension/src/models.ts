/**
 * The user's chat models as the council's seats: each turn offers the sidecar the models Council may use (bounded, in
 * a stable order, the chat's own model first) and `council/complete` names one by id. VS Code asks once per model; a
 * model the user refused is remembered for the window, so no call prompts twice, until VS Code says it is allowed
 * again. See README, 'Different models at the table'.
 */
import * as vscode from 'vscode';
import type { CouncilSettings } from './settings';
import type { ClientCapabilities, ClientModel } from './wire';
import { LIMITS } from './wire';

const FIELD = LIMITS.ClientModel;
const MAX_MODELS = LIMITS.ClientCapabilities.models.maxItems;

/** What the wire needs of a chat model (a structural subset of vscode.LanguageModelChat). */
export interface ModelInfo {
  readonly id: string;
  readonly vendor: string;
  readonly family: string;
  readonly name: string;
}

/** One model as the wire's ClientModel (fields cut to the wire's limits). */
export function clientModel(m: ModelInfo): ClientModel {
  const out: ClientModel = { id: m.id };
  if (m.vendor) out.vendor = m.vendor.slice(0, FIELD.vendor.maxLength);
  if (m.family) out.family = m.family.slice(0, FIELD.family.maxLength);
  if (m.name) out.name = m.name.slice(0, FIELD.name.maxLength);
  return out;
}

/**
 * The models to offer: the chat's model first, then the others grouped by vendor (vendors in name order: the order
 * in which providers register depends on extension activation; within a vendor, its provider's own order), each id
 * once, only usable ones, at most the wire's 50 (ids longer than the wire allows are left out).
 */
export function offeredModels<M extends ModelInfo>(all: readonly M[], chat: M, usable: (m: M) => boolean): ClientModel[] {
  const seen = new Set<string>([chat.id]);
  const others: M[] = [];
  for (const m of all) {
    if (!m.id || m.id.length > FIELD.id.maxLength || seen.has(m.id) || !usable(m)) continue;
    seen.add(m.id);
    others.push(m);
  }
  others.sort((a, b) => (a.vendor < b.vendor ? -1 : a.vendor > b.vendor ? 1 : 0)); // stable: a vendor's order is kept
  return [chat, ...others].slice(0, MAX_MODELS).map(clientModel);
}

/**
 * What a turn whose chat model is `model` can serve `council/complete` with: that model (none: nothing) and, given
 * the window's `models`, the user's other models to seat personas on.
 */
export async function clientCapabilities(model: vscode.LanguageModelChat | undefined, models?: ChatModels): Promise<ClientCapabilities> {
  if (!model) return { completion: false };
  const caps: ClientCapabilities = { completion: true, completionModel: model.name.slice(0, LIMITS.ClientCapabilities.completionModel.maxLength) };
  if (!models || model.id.length > LIMITS.ClientCapabilities.chatModelId.maxLength) return caps; // one model
  return { ...caps, models: await models.offer(model), chatModelId: model.id };
}

/** The part of `vscode.lm` used here (tests pass their own). */
export interface ModelSource {
  selectChatModels(selector?: vscode.LanguageModelChatSelector): Thenable<vscode.LanguageModelChat[]>;
}

/** The window's chat models: what a turn offers, the model a `council/complete` names, and the refused ones. */
export class ChatModels {
  private readonly refused = new Set<string>();
  /** Models a request already started on: VS Code's consent for them is settled. */
  private readonly allowed = new Set<string>();
  /** The first request on a model whose consent is not settled yet (later ones wait for it: one prompt, not one per call). */
  private readonly asking = new Map<string, Promise<unknown>>();

  constructor(
    private readonly access?: Pick<vscode.LanguageModelAccessInformation, 'canSendRequest'>,
    private readonly source: ModelSource = vscode.lm,
  ) {}

  /** Whether Council may still try this model: VS Code says it may (the user allowed it, maybe after refusing), or
   * it was not refused in this window and VS Code does not say it is refused. */
  usable(model: vscode.LanguageModelChat): boolean {
    const allowed = this.access?.canSendRequest(model);
    if (allowed === true) this.refused.delete(model.id);
    return allowed === true || (allowed !== false && !this.refused.has(model.id));
  }

  isRefused(modelId: string): boolean {
    return this.refused.has(modelId);
  }

  /** The user refused this model (NoPermissions): answer `no_consent` at once from now on, in this window. */
  refuse(modelId: string): void {
    this.refused.add(modelId);
  }

  /**
   * Start a request on `model` (`start` calls its `sendRequest`). While the first request on a model whose consent
   * is not settled is pending (VS Code may be asking the user), others on it wait, then start — or, when the user
   * refused, do not start at all (`undefined`: answer `no_consent`). A NoPermissions failure is remembered.
   */
  async start<T>(model: vscode.LanguageModelChat, start: () => Thenable<T>): Promise<T | undefined> {
    for (let p = this.asking.get(model.id); p; p = this.asking.get(model.id)) await p.then(undefined, () => undefined);
    if (!this.usable(model)) {
      this.refuse(model.id);
      return undefined;
    }
    if (this.allowed.has(model.id) || this.access?.canSendRequest(model) === true) return start();
    const first = Promise.resolve(start());
    this.asking.set(model.id, first);
    try {
      const out = await first;
      this.allowed.add(model.id);
      return out;
    } catch (err) {
      if (isNoPermissions(err)) this.refuse(model.id);
      throw err;
    } finally {
      this.asking.delete(model.id);
    }
  }

  /** `ClientCapabilities.models` for a turn whose chat model is `chat` (a failing listing offers only `chat`). */
  async offer(chat: vscode.LanguageModelChat): Promise<ClientModel[]> {
    const all = await Promise.resolve(this.source.selectChatModels()).then(undefined, () => [] as vscode.LanguageModelChat[]);
    return offeredModels(all, chat, (m) => this.usable(m));
  }

  async byId(modelId: string): Promise<vscode.LanguageModelChat | undefined> {
    const found = await Promise.resolve(this.source.selectChatModels({ id: modelId })).then(undefined, () => [] as vscode.LanguageModelChat[]);
    return found.find((m) => m.id === modelId);
  }
}

export function isNoPermissions(err: unknown): boolean {
  return err instanceof vscode.LanguageModelError && err.code === vscode.LanguageModelError.NoPermissions.name;
}

/** Which model serves this turn: the chat's model when the settings and consent allow it. */
export function chooseModel(
  request: vscode.ChatRequest,
  settings: CouncilSettings,
  access: Pick<vscode.LanguageModelAccessInformation, 'canSendRequest'> | undefined,
): { model: vscode.LanguageModelChat | undefined; notice?: string } {
  if (settings.provider !== 'chat') return { model: undefined }; // the chat's own model is offered only with `chat`
  const model = (request as Partial<vscode.ChatRequest>).model;
  if (!model) {
    return {
      model: undefined,
      notice: '> ℹ️ No chat model is selected, so the council uses its configured provider (`council.http.*`).\n\n',
    };
  }
  if (access?.canSendRequest(model) === false) {
    return {
      model: undefined,
      notice:
        `> ℹ️ Council has no permission to use **${model.name}**, so the council uses its configured provider ` +
        '(`council.http.*`). Allow it with **Manage Language Model Access**.\n\n',
    };
  }
  return { model };
}
