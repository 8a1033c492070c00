/**
 * The @council chat participant: forwards each chat turn to the sidecar (its slash command as a TurnCommand) and prints what it answers with (the
 * events' markdown while the turn runs, then the result's `message`). All session state lives in the sidecar; the
 * only thing carried between turns is the session id in the ChatResult metadata.
 */
import * as vscode from 'vscode';
import type { PendingAnswers } from './buttons';
import { DEFAULT_LABELS, questionButtons, retryButton, transcriptButton } from './buttons';
import type { CouncilClient } from './client';
import { handleError, isCancellation, isRetryable } from './errors';
import { log } from './log';
import type { ReferenceReader } from './references';
import { collectReferences } from './references';
import type { SessionKeeper } from './keeper';
import type { ChatModels } from './models';
import { chooseModel, clientCapabilities } from './models';
import type { HistoryItem, RecoveryHooks } from './outgoing';
import { OutgoingTurn, earlierReplies, lastReplyInterrupted, sendWithRecovery } from './outgoing';
import { openTranscript } from './transcript';
import { reviewTurn } from './review';
import type { TurnState } from './render';
import { EventRenderer } from './render';
import type { CouncilSettings } from './settings';
import { sessionOptions } from './settings';
import type { TurnRegistry } from './turns';
import type { Awaiting, ChatLabels, ClarificationQuestion, EarlierAnswer, Intent, RevisitOffer, SessionStatus, TurnCommand, TurnResult } from './wire';
import { MAX_TEXT, TURN_COMMANDS } from './wire';

export const PARTICIPANT_ID = 'council.chat';
export const PARTICIPANT_NAME = 'council';

/**
 * The participant's own few texts, in VS Code's display language (`vscode.l10n`, `l10n/bundle.l10n.*.json`): where no
 * session exists yet, or where the sidecar that would write it is gone. Everything a session says is the sidecar's.
 */
const WORDS = {
  askExample: () =>
    vscode.l10n.t('Ask the council a hard question, for example: _{0}_', vscode.l10n.t('Should we split our monolith into services this quarter?')) + '\n',
  newQuestion: () => vscode.l10n.t('Type your new question: the council starts a new session for it (the earlier session stays as it is).') + '\n',
  duplicate: () => `_${vscode.l10n.t('That answer was already submitted.')}_\n\n`,
  stopped: () => `\n\n_${vscode.l10n.t('Stopped.')}_\n`,
  noSession: () => vscode.l10n.t('There is no council session in this conversation yet.') + '\n',
  transcriptOpen: () => `_${vscode.l10n.t('The transcript is open in a preview.')}_\n`,
  openTranscriptAgain: () => vscode.l10n.t('Open the transcript again'),
  restarted: () =>
    `> ↻ ${vscode.l10n.t('The council sidecar stopped unexpectedly. It was restarted with your session restored, and this step runs again.')}\n\n`,
  interrupted: () =>
    `> ⚠️ ${vscode.l10n.t('The previous reply was interrupted: VS Code was reloaded while the council was still writing it, so it is incomplete.')}\n\n`,
};

/** Slash command name → TurnCommand (undefined: not forwarded as a command). */
export function mapCommand(command: string | undefined): TurnCommand | undefined {
  if (!command) return undefined;
  const aliases: Record<string, TurnCommand> = { skipall: 'skipAll', 'skip-all': 'skipAll', extenddebate: 'extend' };
  if ((TURN_COMMANDS as readonly string[]).includes(command)) return command as TurnCommand;
  return aliases[command.toLowerCase()];
}

/** "@council @council …" (the chat input keeps the participant; people type it again): the prompt without the repeat. */
export function withoutRepeatedMention(request: vscode.ChatRequest): vscode.ChatRequest {
  const mention = new RegExp(`^\\s*@${PARTICIPANT_NAME}\\b\\s*`, 'i');
  if (!mention.test(request.prompt)) return request;
  const prompt = request.prompt.replace(mention, '');
  return new Proxy(request, { get: (target, key): unknown => (key === 'prompt' ? prompt : Reflect.get(target, key)) });
}

/** `/revisit <question id>` (a followup's prompt) sends `questionId`; a number or nothing is the sidecar's to read. */
export const revisitTarget = (command: TurnCommand | undefined, id: string): { questionId?: string } =>
  command === 'revisit' && /^[A-Za-z0-9_.:-]{8,100}$/.test(id.trim()) && !/^\d+$/.test(id.trim()) ? { questionId: id.trim() } : {};

/** What a council ChatResult carries to the next turn and to the followup provider. */
export interface CouncilResultMetadata {
  sessionId: string;
  status: SessionStatus;
  awaiting: Awaiting;
  questionId?: string;
  /** The open question's text (after a reload lost the session, the new one gets the reply to it). */ question?: string;
  choices?: string[];
  canExtend?: boolean;
  error?: string;
  /** The session's problem (to ask it again in a new session when the sidecar no longer has this one). */
  problem?: string;
  /** The session is stopped (paused): Resume continues it. */
  stopped?: boolean;
  /** The buttons' and followups' words in the session's language (the sidecar's). */
  labels?: ChatLabels;
  /** The skipped questions behind the assumptions the answer hinges on (most critical first): revisit followups. */
  revisit?: RevisitOffer[];
}

export interface CouncilChatResult extends vscode.ChatResult {
  metadata?: CouncilResultMetadata;
}

/** What a bare `/new` (the "Ask a new question" followup) leaves: the next turn's text starts a new session. */
export interface NewQuestionResult extends vscode.ChatResult {
  metadata: { newQuestion: true };
}

export function isCouncilMetadata(value: unknown): value is CouncilResultMetadata {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v.sessionId === 'string' && v.sessionId !== '' && typeof v.status === 'string' && (v.awaiting === 'answer' || v.awaiting === 'nothing');
}

/**
 * The metadata of the most recent council result of the conversation: the session the next turn continues. None
 * when a bare `/new` came after it (a new question is awaited), or when there is no council result.
 */
export function metadataFromHistory(history: readonly HistoryItem[], pastNewQuestion = false): CouncilResultMetadata | undefined {
  for (let i = history.length - 1; i >= 0; i--) {
    const item = history[i] as Partial<vscode.ChatResponseTurn>;
    if (item.participant !== undefined && item.participant !== PARTICIPANT_ID) continue;
    const metadata = item.result?.metadata;
    if (metadata?.newQuestion === true && !pastNewQuestion) return undefined;
    if (isCouncilMetadata(metadata)) return metadata;
  }
  return undefined;
}

/** The id of the conversation's most recent council session, even after a bare `/new` (what /transcript shows). */
export function sessionIdFromHistory(history: readonly HistoryItem[]): string | undefined {
  return metadataFromHistory(history, true)?.sessionId;
}

export interface ParticipantDeps {
  client: CouncilClient;
  turns: TurnRegistry<vscode.LanguageModelChat>;
  pending: PendingAnswers;
  settings(): CouncilSettings;
  access?: Pick<vscode.LanguageModelAccessInformation, 'canSendRequest'>;
  references?: ReferenceReader;
  /** Keeps each session's journal for a new sidecar (restore after a crash or restart). */
  keeper?: SessionKeeper;
  /** Told about every session a turn reached (palette commands act on the latest one). */
  onSession?(sessionId: string, status: SessionStatus): void;
  /** The user's chat models, offered to the sidecar to seat personas on (none: only the chat's model). */
  models?: ChatModels;
}

export function createHandler(deps: ParticipantDeps): vscode.ChatRequestHandler {
  return async (rawRequest, context, stream, token): Promise<CouncilChatResult | NewQuestionResult> => {
    const request = withoutRepeatedMention(rawRequest);
    const previous = metadataFromHistory(context.history);
    const command = mapCommand(request.command);
    if (request.command === 'transcript') {
      const shown = await showTranscript(deps.client, sessionIdFromHistory(context.history), stream, token);
      return !previous && shown.metadata ? { metadata: { newQuestion: true } } : shown; // still awaiting a new question
    }
    if (request.command === 'review') return reviewTurn(deps, request, stream, token);
    if (!request.prompt.trim() && command === 'new') {
      stream.markdown(WORDS.newQuestion()); // the question typed next starts a session, not a follow-up of this one
      return { metadata: { newQuestion: true } };
    }
    if (!request.prompt.trim() && !request.command) {
      stream.markdown(WORDS.askExample());
      return previous ? { metadata: { ...previous, awaiting: 'nothing' } } : {};
    }
    const settings = deps.settings();
    const { model, notice } = chooseModel(request, settings, deps.access);
    const outgoing = await outgoingTurn(deps, request, previous, command, model, settings, earlierReplies(context.history, previous?.sessionId, PARTICIPANT_ID));
    const renderer = new EventRenderer(stream, undefined, previous?.labels);
    const turn = deps.turns.begin(outgoing.params.sessionId, { model, token, onEvent: (e) => renderer.render(e) });
    turn.proposedSessionId = outgoing.proposedSessionId;
    if (notice) renderer.note(notice);
    if (lastReplyInterrupted(context.history, PARTICIPANT_ID)) renderer.note(WORDS.interrupted());
    const hooks: RecoveryHooks<TurnResult> = {
      send: () => outgoing.send(token),
      onRestarted: () => {
        turn.resetOrder();
        renderer.note(WORDS.restarted()); // not folded away under a later progress line (called once: one restart per turn)
      },
      onUnknownSession: (why) => {
        log.info(`session ${outgoing.params.sessionId ?? '?'} is ${why} to the sidecar; asking anew`);
        if (!outgoing.renew(why === 'expired' ? 'expired' : 'unknown_session')) return false; // the new session says it
        turn.sessionId = undefined;
        turn.proposedSessionId = outgoing.proposedSessionId;
        turn.resetOrder();
        return true;
      },
    };

    const cancel = token.onCancellationRequested(() => stopSession(deps.client, turn.sessionId));
    try {
      const result = await sendWithRecovery(deps.client, hooks, () => token.isCancellationRequested);
      deps.turns.end(turn);
      if (!result) throw new vscode.CancellationError();
      if (result.sessionId && result.status) deps.onSession?.(result.sessionId, result.status);
      if (renderer.state.errors > 0) log.info(`turn ended with ${renderer.state.errors} error event(s)`);
      if (result.sessionId && deps.keeper) await deps.keeper.remember(result.sessionId, (id) => snapshotOf(deps.client, id));
      const problem = result.intent === 'new_problem' ? outgoing.params.text : previous?.problem;
      return finish(result, renderer.state, stream, problem);
    } catch (err) {
      deps.turns.end(turn);
      return failed(err, token, stream, renderer.state, turn.sessionId ?? previous?.sessionId, previous);
    } finally {
      cancel.dispose();
    }
  };
}

async function outgoingTurn(
  deps: ParticipantDeps,
  request: vscode.ChatRequest,
  previous: CouncilResultMetadata | undefined,
  command: TurnCommand | undefined,
  model: vscode.LanguageModelChat | undefined,
  settings: CouncilSettings,
  earlier: EarlierAnswer[],
): Promise<OutgoingTurn> {
  const submission = deps.pending.take(previous?.sessionId, request.prompt, request.command);
  const caps = await clientCapabilities(model, deps.models);
  const text = request.command && !command ? `/${request.command} ${request.prompt}` : request.prompt;
  const sessionId = submission ? submission.sessionId : command === 'new' ? undefined : previous?.sessionId;
  const base = {
    text: text.trim().slice(0, MAX_TEXT),
    references: await collectReferences(request.references, settings.referencesMaxChars, deps.references),
    options: sessionOptions(settings, model?.name, vscode.env.language),
    client: caps,
    ...(command ? { command } : {}),
    ...revisitTarget(command, request.prompt),
  };
  return new OutgoingTurn(deps.client, base, sessionId, submission, previous, earlier);
}

/** A turn that ended in cancellation or an error: say it once, keep the session in the metadata. */
function failed(
  err: unknown,
  token: vscode.CancellationToken,
  stream: vscode.ChatResponseStream,
  state: TurnState,
  sessionId: string | undefined,
  previous: CouncilResultMetadata | undefined,
): CouncilChatResult {
  const base: CouncilResultMetadata | undefined = sessionId
    ? {
        sessionId,
        status: state.status ?? previous?.status ?? 'created',
        awaiting: 'nothing',
        ...(previous?.problem ? { problem: previous.problem } : {}),
        ...(state.labels ?? previous?.labels ? { labels: state.labels ?? previous?.labels } : {}),
      }
    : undefined;
  if (token.isCancellationRequested || isCancellation(err)) {
    // Stop pauses: the sidecar's `session.stopped` event said so (with Resume / Cancel); say it when it could not.
    if (!state.stopped && state.status !== 'cancelled') stream.markdown(WORDS.stopped());
    if (!base) return {};
    return { metadata: state.status === 'cancelled' ? { ...base, status: 'cancelled' } : { ...base, stopped: true } };
  }
  const message = handleError(err, stream);
  if (base && isRetryable(err)) stream.button(retryButton(base.sessionId, base.labels));
  return base ? { metadata: { ...base, error: message }, errorDetails: { message } } : { errorDetails: { message } };
}

/** The chat's Stop button pauses the session (only /cancel cancels it). */
function stopSession(client: CouncilClient, sessionId: string | undefined): void {
  if (!sessionId) return;
  client.request('council/stop', { sessionId }).then(
    (r) => log.info(`stopped session ${sessionId}: ${r.cancelledCalls ?? 0} calls stopped`),
    (err: unknown) => log.warn(`council/stop failed: ${String(err)}`),
  );
}

async function snapshotOf(client: CouncilClient, sessionId: string): Promise<{ journal?: Record<string, unknown>[] | null; status: SessionStatus; problem: string }> {
  const snap = await client.request('council/snapshot', { sessionId, includeJournal: true });
  return { journal: snap.journal, status: snap.session.status, problem: snap.session.requestText };
}

/** Intents that run the council (and may finish it); the others only report (status, personas) or cancel. */
const RUNS_THE_COUNCIL: ReadonlySet<Intent> = new Set<Intent>([
  'new_problem', 'answer', 'skip', 'skip_all', 'defer', 'more_questions', 'extend_debate', 'retry', 'revisit',
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
function finish(result: TurnResult, state: TurnState, stream: vscode.ChatResponseStream, problem: string | undefined): CouncilChatResult {
  const labels = result.labels ?? state.labels;
  if (result.duplicate) stream.markdown(WORDS.duplicate());
  if (result.message) stream.markdown(block(result.message));
  const question = pendingQuestion(result);
  if (question && !state.confirming && state.question?.questionId !== question.questionId) {
    for (const b of questionButtons(question, labels)) stream.button(b);
  }
  const finished = !!result.finalAnswer && !result.duplicate && RUNS_THE_COUNCIL.has(result.intent);
  if (result.finalAnswer && finished && !state.finalAnswer) stream.markdown(block(result.finalAnswer));
  const answered = state.finalAnswer || finished;
  const spent = answered ? (result.usage?.markdown ?? '') : ''; // what the council spent (the sidecar's line), under its answer
  if (spent) stream.markdown(spent);
  // The full positions one click from the answer; last in the response (VS Code 1.139 folds the parts above a
  // markdown part that follows a button into a collapsed "Completed N steps", which would hide the answer).
  if (answered && result.sessionId) stream.button(transcriptButton(result.sessionId, labels));
  if (!result.sessionId) return {};
  const metadata: CouncilResultMetadata = { sessionId: result.sessionId, status: result.status ?? 'created', awaiting: question ? 'answer' : 'nothing', ...(question ? { question: question.question.slice(0, 2000) } : {}) };
  if (question) {
    metadata.questionId = question.questionId;
    metadata.choices = (question.choices ?? []).map((c) => c.label);
  }
  if (result.canExtend || state.canExtend) metadata.canExtend = true;
  if (result.stopped) metadata.stopped = true;
  if (labels) metadata.labels = labels;
  if (result.revisit?.length) metadata.revisit = result.revisit.slice(0, 3); // the most critical three
  if (problem) metadata.problem = problem.slice(0, 2000);
  return { metadata };
}

async function showTranscript(
  client: CouncilClient,
  sessionId: string | undefined,
  stream: vscode.ChatResponseStream,
  token: vscode.CancellationToken,
): Promise<CouncilChatResult> {
  if (!sessionId) {
    stream.markdown(WORDS.noSession());
    return {};
  }
  try {
    const { status } = await openTranscript(client, sessionId, token); // a read-only preview titled by the question
    stream.markdown(WORDS.transcriptOpen());
    stream.button({ command: 'council.showTranscript', title: WORDS.openTranscriptAgain(), arguments: [sessionId] });
    return { metadata: { sessionId, status, awaiting: status === 'clarifying' ? 'answer' : 'nothing' } };
  } catch (err) {
    return { metadata: { sessionId, status: 'created', awaiting: 'nothing', error: handleError(err, stream) } };
  }
}

/** Followups that make sense next: none while a question waits (its buttons answer it); extend / transcript / new afterwards. */
export function followupsFor(result: CouncilChatResult): vscode.ChatFollowup[] {
  const m = result.metadata;
  if (!isCouncilMetadata(m)) return [];
  // A question's choices, Skip and Skip all are its buttons (each shown once): no followups repeat them.
  if (m.awaiting === 'answer') return [];
  const l = m.labels ?? DEFAULT_LABELS;
  const out: vscode.ChatFollowup[] = [];
  if (m.stopped) {
    // VS Code shows nothing a stopped response writes after Stop, but it shows these: they say that it stopped.
    out.push({ prompt: '', command: 'retry', label: l.resumeStopped }, { prompt: '', command: 'cancel', label: l.cancelSession });
  }
  for (const r of m.revisit ?? []) out.push({ prompt: r.questionId, command: 'revisit', label: r.label }); // what the answer hinges on: ask its question again
  if (m.canExtend) out.push({ prompt: '', command: 'extend', label: l.extend });
  if (m.status === 'completed' || m.status === 'final' || m.status === 'cancelled') {
    out.push({ prompt: '', command: 'transcript', label: l.transcript });
  }
  out.push({ prompt: '', command: 'new', label: l.newQuestion });
  return out;
}

export function registerCouncilParticipant(context: vscode.ExtensionContext, deps: ParticipantDeps): vscode.ChatParticipant {
  const participant = vscode.chat.createChatParticipant(PARTICIPANT_ID, createHandler(deps));
  participant.iconPath = vscode.Uri.joinPath(context.extensionUri, 'media', 'icon.png');
  participant.followupProvider = { provideFollowups: (result: CouncilChatResult) => followupsFor(result) };
  context.subscriptions.push(participant);
  return participant;
}
