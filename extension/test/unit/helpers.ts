/** Test doubles shared by the unit tests: a scripted sidecar client and chat request/context builders. */
import * as vscode from 'vscode';
import type { CouncilClient } from '../../src/client';
import type { MethodTypes, TurnResult } from '../../src/wire';
import type { TurnRegistry } from '../../src/turns';
import { SID } from './fixtures';

export interface Call {
  method: string;
  params: any;
  token?: vscode.CancellationToken;
}

type Script = (call: Call) => unknown;

export class FakeClient implements CouncilClient {
  readonly calls: Call[] = [];
  generation = 1;
  /** What a restart does: set by tests that kill the sidecar under a turn. */
  onWhenReady: () => Promise<void> = async () => {
    this.generation++;
  };
  whenReadyAfter(generation: number): Promise<void> {
    return this.generation > generation ? Promise.resolve() : this.onWhenReady();
  }
  constructor(private readonly script: Script = () => turnResult()) {}
  async request<M extends keyof MethodTypes>(method: M, params: MethodTypes[M]['params'], token?: vscode.CancellationToken): Promise<MethodTypes[M]['result']> {
    const call = { method, params, token };
    this.calls.push(call);
    return (await this.script(call)) as MethodTypes[M]['result'];
  }
  callsTo(method: string): Call[] {
    return this.calls.filter((c) => c.method === method);
  }
}

export function turnResult(overrides: Partial<TurnResult> = {}): TurnResult {
  return { sessionId: SID, intent: 'new_problem', status: 'completed', awaiting: 'nothing', canExtend: false, limitReached: false, stopped: false, duplicate: false, language: 'en', revisit: [], ...overrides };
}

export interface FakeModel {
  id: string;
  name: string;
  vendor: string;
  family: string;
  version: string;
  maxInputTokens: number;
  sendRequest: (...args: any[]) => Promise<{ text: AsyncIterable<string>; stream: AsyncIterable<unknown> }>;
  countTokens: () => Promise<number>;
  requests: { messages: any[]; options: any; token: vscode.CancellationToken }[];
}

export function fakeModel(
  chunks: string[] | ((token: vscode.CancellationToken) => AsyncIterable<string>) = ['{"ok"', ': true}'],
  info: Partial<Pick<FakeModel, 'id' | 'name' | 'vendor' | 'family'>> = {},
): FakeModel {
  const model: FakeModel = {
    id: 'fake-model',
    name: 'Fake Model',
    vendor: 'fake',
    family: 'fake',
    ...info,
    version: '1',
    maxInputTokens: 1000,
    requests: [],
    countTokens: () => Promise.resolve(1),
    sendRequest: (messages: any[], options: any, token: vscode.CancellationToken) => {
      model.requests.push({ messages, options, token });
      const gen = typeof chunks === 'function' ? chunks(token) : (async function* () { for (const c of chunks) yield c; })();
      return Promise.resolve({ text: gen, stream: gen });
    },
  };
  return model;
}

export function chatRequest(prompt: string, extra: Partial<vscode.ChatRequest> & { model?: any } = {}): vscode.ChatRequest {
  return {
    prompt,
    command: undefined,
    references: [],
    toolReferences: [],
    toolInvocationToken: undefined as never,
    model: fakeModel(),
    ...extra,
  };
}

export function chatContext(history: unknown[] = []): vscode.ChatContext {
  return { history } as unknown as vscode.ChatContext;
}

export function responseTurn(metadata: unknown, participant = 'council.chat'): vscode.ChatResponseTurn {
  const Ctor = vscode.ChatResponseTurn as unknown as new (...args: unknown[]) => vscode.ChatResponseTurn;
  return new Ctor([], { metadata }, participant);
}

/** Emits events into the registry the way the sidecar's notifications would, while a request is pending. */
export function emitter(turns: TurnRegistry<any>) {
  return (...events: any[]) => {
    for (const e of events) turns.dispatch(e);
  };
}
