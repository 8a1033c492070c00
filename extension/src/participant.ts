/**
 * The @council chat participant: forwards each chat turn to the sidecar and prints what it answers with (the
 * events' markdown while the turn runs, then the result's `message`). All session state lives in the sidecar; the
 * only thing carried between turns is the session id in the ChatResult metadata.
 */
import { randomUUID } from 'node:crypto';
import * as vscode from 'vscode';
import type { AnswerButtonArgs, PendingAnswers } from './buttons';
import { questionButtons } from './buttons';
import type { CouncilClient } from './client';
import { handleError, isCancellation } from './errors';
import { log } from './log';
import type { ReferenceReader } from './references';
import { collectReferences } from './references';
import type { TurnState } from './render';
import { EventRenderer } from './render';
import type { CouncilSettings } from './settings';
import { sessionOptions, usesChatModel } from './settings';
import type { TurnRegistry } from './turns';
import type { Awaiting, ClarificationQuestion, ClientCapabilities, Intent, SessionStatus, TurnCommand, TurnParams, TurnResult } from './wire';
import { MAX_TEXT, TURN_COMMANDS } from './wire';

export const PARTICIPANT_ID = 'council.chat';
export const PARTICIPANT_NAME = 'council';

/** What a council ChatResult carries to the next turn and to the followup provider. */
export interface CouncilResultMetadata {
  sessionId: string;
  status: SessionStatus;
  awaiting: Awaiting;
  questionId?: string;
  choices?: string[];
  canExtend?: boolean;
  error?: string;
}

export interface CouncilChatResult extends vscode.ChatResult {
  metadata?: CouncilResultMetadata;
}

export function isCouncilMetadata(value: unknown): value is CouncilResultMetadata {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v.sessionId === 'string' && v.sessionId !== '' && typeof v.status === 'string' && (v.awaiting === 'answer' || v.awaiting === 'nothing');
}

type HistoryItem = vscode.ChatRequestTurn | vscode.ChatResponseTurn;

/** The session id in the most recent council result of the conversation, if any. */
export function sessionIdFromHistory(history: readonly HistoryItem[]): string | undefined {
  for (let i = history.length - 1; i >= 0; i--) {
    const item = history[i] as Partial<vscode.ChatResponseTurn>;
    if (item.participant !== undefined && item.participant !== PARTICIPANT_ID) continue;
    const metadata = item.result?.metadata;
    if (isCouncilMetadata(metadata)) return metadata.sessionId;
  }
  return undefined;
}

/** Slash command name → TurnCommand (undefined: not forwarded as a command). */
export function mapCommand(command: string | undefined): TurnCommand | undefined {
  if (!command) return undefined;
  const aliases: Record<string, TurnCommand> = { skipall: 'skipAll', 'skip-all': 'skipAll', extenddebate: 'extend' };
  if ((TURN_COMMANDS as readonly string[]).includes(command)) return command as TurnCommand;
  return aliases[command.toLowerCase()];
}

export interface ModelChoice {
  model: vscode.LanguageModelChat | undefined;
  notice?: string;
}

/** Which model serves this turn: the chat's model when the settings and consent allow it. */
export function chooseModel(
  request: vscode.ChatRequest,
  settings: CouncilSettings,
  access: Pick<vscode.LanguageModelAccessInformation, 'canSendRequest'> | undefined,
): ModelChoice {
  if (!usesChatModel(settings)) return { model: undefined };
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

export interface ParticipantDeps {
  client: CouncilClient;
  turns: TurnRegistry<vscode.LanguageModelChat>;
  pending: PendingAnswers;
  settings(): CouncilSettings;
  access?: Pick<vscode.LanguageModelAccessInformation, 'canSendRequest'>;
  references?: ReferenceReader;
  /** Told about every session a turn reached (palette commands act on the latest one). */
  onSession?(sessionId: string, status: SessionStatus): void;
}

const EXAMPLE = 'Should we split our monolith into services this quarter?';

export function createHandler(deps: ParticipantDeps): vscode.ChatRequestHandler {
  return async (request, context, stream, token): Promise<CouncilChatResult> => {
    const settings = deps.settings();
    const historySession = sessionIdFromHistory(context.history);
    const command = mapCommand(request.command);
    const prompt = request.prompt.trim();

    if (request.command === 'transcript') return showTranscript(deps.client, historySession, stream, token);
    if (!prompt && (!request.command || command === 'new')) {
      stream.markdown(`Ask the council a hard question, for example: _${EXAMPLE}_\n`);
      return historySession ? { metadata: { sessionId: historySession, status: 'created', awaiting: 'nothing' } } : {};
    }

    const submission = deps.pending.take(historySession, request.prompt, request.command);
    const { model, notice } = chooseModel(request, settings, deps.access);
    const caps: ClientCapabilities = model ? { completion: true, completionModel: model.name } : { completion: false };
    const renderer = new EventRenderer(stream, (type) => log.warn(`ignoring unknown event type ${type}`));
    const notices = new Set<string>();
    const turn = deps.turns.begin(submission ? submission.sessionId : command === 'new' ? undefined : historySession, {
      model,
      token,
      onEvent: (e) => renderer.render(e),
      notify: (md) => {
        if (!notices.has(md)) {
          notices.add(md);
          stream.markdown(md);
        }
      },
    });
    if (notice) stream.markdown(notice);

    const cancel = token.onCancellationRequested(() => {
      const sessionId = turn.sessionId;
      if (!sessionId) return;
      deps.client.request('council/cancel', { sessionId }).then(
        (r) => log.info(`cancelled session ${sessionId}: ${r.cancelledCalls ?? 0} calls stopped`),
        (err: unknown) => log.warn(`council/cancel failed: ${String(err)}`),
      );
    });
    try {
      let result: TurnResult | null | undefined;
      if (submission) {
        result = await submitAnswer(deps.client, submission, caps, token);
      } else {
        const params: TurnParams = {
          text: request.prompt.slice(0, MAX_TEXT),
          references: await collectReferences(request.references, settings.referencesMaxChars, deps.references),
          options: sessionOptions(settings, model?.name),
          client: caps,
        };
        if (turn.sessionId) params.sessionId = turn.sessionId;
        turn.proposedSessionId = randomUUID();
        params.newSessionId = turn.proposedSessionId;
        if (command) params.command = command;
        if (request.command && !command) params.text = `/${request.command} ${params.text}`.trim();
        result = await deps.client.request('council/turn', params, token);
      }
      deps.turns.end(turn);
      if (!result) throw new vscode.CancellationError();
      if (result.sessionId && result.status) deps.onSession?.(result.sessionId, result.status);
      if (renderer.state.errors > 0) log.info(`turn ended with ${renderer.state.errors} error event(s)`);
      return finish(result, renderer.state, stream);
    } catch (err) {
      deps.turns.end(turn);
      const sessionId = turn.sessionId ?? historySession;
      if (token.isCancellationRequested || isCancellation(err)) {
        if (renderer.state.status !== 'cancelled') stream.markdown('\n\n_Cancelled: the council stopped this session._\n');
        return sessionId ? { metadata: { sessionId, status: 'cancelled', awaiting: 'nothing' } } : {};
      }
      const message = handleError(err, stream);
      return sessionId
        ? { metadata: { sessionId, status: renderer.state.status ?? 'created', awaiting: 'nothing', error: message } }
        : { errorDetails: { message } };
    } finally {
      cancel.dispose();
    }
  };
}

async function submitAnswer(
  client: CouncilClient,
  args: AnswerButtonArgs,
  caps: ClientCapabilities,
  token: vscode.CancellationToken,
): Promise<TurnResult> {
  log.info(`submitting ${args.action} for question ${args.questionId} (key ${args.idempotencyKey})`);
  const params = { sessionId: args.sessionId, questionId: args.questionId, action: args.action, client: caps, idempotencyKey: args.idempotencyKey };
  return client.request('council/answer', args.choice !== undefined ? { ...params, choice: args.choice } : params, token);
}

/** Intents that run the council (and may finish it); the others only report (status, personas) or cancel. */
const RUNS_THE_COUNCIL: ReadonlySet<Intent> = new Set<Intent>([
  'new_problem', 'answer', 'skip', 'skip_all', 'defer', 'more_questions', 'extend_debate', 'retry',
]);

/** Sidecar markdown as its own block (it is printed as is; only the separation from what follows is ours). */
const block = (markdown: string): string => (markdown.endsWith('\n\n') ? markdown : `${markdown.replace(/\n?$/, '')}\n\n`);

/** The question the session waits for. None once the session is cancelled: a cancelled question is never shown again. */
function pendingQuestion(result: TurnResult): ClarificationQuestion | undefined {
  if (result.intent === 'cancel' || result.status === 'cancelled' || result.awaiting !== 'answer') return undefined;
  return result.question;
}

/**
 * Complete the response once the turn returned: the sidecar's note, the buttons of a question asked in an earlier
 * turn, the final answer if this turn finished the council but its event was not printed, and the metadata.
 */
function finish(result: TurnResult, state: TurnState, stream: vscode.ChatResponseStream): CouncilChatResult {
  if (result.duplicate) stream.markdown('_That answer was already submitted._\n\n');
  if (result.message) stream.markdown(block(result.message));
  const question = pendingQuestion(result);
  if (question && state.question?.questionId !== question.questionId) {
    for (const b of questionButtons(question)) stream.button(b);
  }
  if (result.finalAnswer && !state.finalAnswer && !result.duplicate && RUNS_THE_COUNCIL.has(result.intent)) {
    stream.markdown(block(result.finalAnswer));
  }
  if (!result.sessionId) return {};
  const metadata: CouncilResultMetadata = { sessionId: result.sessionId, status: result.status ?? 'created', awaiting: question ? 'answer' : 'nothing' };
  if (question) {
    metadata.questionId = question.questionId;
    metadata.choices = (question.choices ?? []).map((c) => c.label);
  }
  if (result.canExtend || state.canExtend) metadata.canExtend = true;
  return { metadata };
}

async function showTranscript(
  client: CouncilClient,
  sessionId: string | undefined,
  stream: vscode.ChatResponseStream,
  token: vscode.CancellationToken,
): Promise<CouncilChatResult> {
  if (!sessionId) {
    stream.markdown('There is no council session in this conversation yet.\n');
    return {};
  }
  try {
    const snap = await client.request('council/snapshot', { sessionId }, token);
    stream.markdown(snap.transcriptMarkdown);
    stream.button({ command: 'council.showTranscript', title: 'Open as document', arguments: [sessionId] });
    return { metadata: { sessionId, status: snap.session.status, awaiting: snap.session.status === 'clarifying' ? 'answer' : 'nothing' } };
  } catch (err) {
    return { metadata: { sessionId, status: 'created', awaiting: 'nothing', error: handleError(err, stream) } };
  }
}

/** Followups that make sense next: answer suggestions while clarifying; extend / transcript / new afterwards. */
export function followupsFor(result: CouncilChatResult): vscode.ChatFollowup[] {
  const m = result.metadata;
  if (!isCouncilMetadata(m)) return [];
  if (m.awaiting === 'answer') {
    return [
      ...(m.choices ?? []).slice(0, 4).map((c) => ({ prompt: c, label: c })),
      { prompt: '', command: 'skip', label: 'Skip this question' },
      { prompt: '', command: 'skipAll', label: 'Skip all questions' },
    ];
  }
  const out: vscode.ChatFollowup[] = [];
  if (m.canExtend) out.push({ prompt: '', command: 'extend', label: 'Extend the debate' });
  if (m.status === 'completed' || m.status === 'final' || m.status === 'cancelled') {
    out.push({ prompt: '', command: 'transcript', label: 'Show transcript' });
  }
  out.push({ prompt: '', command: 'new', label: 'Ask a new question' });
  return out;
}

/** Register @council; one register function per participant. */
export function registerCouncilParticipant(context: vscode.ExtensionContext, deps: ParticipantDeps): vscode.ChatParticipant {
  const participant = vscode.chat.createChatParticipant(PARTICIPANT_ID, createHandler(deps));
  participant.iconPath = vscode.Uri.joinPath(context.extensionUri, 'media', 'icon.png');
  participant.followupProvider = { provideFollowups: (result: CouncilChatResult) => followupsFor(result) };
  context.subscriptions.push(participant);
  return participant;
}
