/**
 * What one chat turn sends to the sidecar (a clicked answer with its idempotency key, or the turn's text) and how
 * the turn outlives its sidecar: after a crash the same request is sent again to the new process (which got the
 * session back as it was after the previous turn, so it means the same there); to a sidecar that does not know the
 * session, the turn starts a new one carrying the replies the chat history shows (`earlier`). See README, 'In VS
 * Code' ("Nothing is lost when the sidecar restarts").
 */
import { randomUUID } from 'node:crypto';
import type * as vscode from 'vscode';
import type { AnswerButtonArgs } from './buttons';
import { answerParams } from './buttons';
import type { CouncilClient } from './client';
import { isConnectionLost, isUnknownSession } from './errors';
import { log } from './log';
import type { EarlierAnswer, EarlierSession, TurnParams, TurnResult } from './wire';
import { MAX_TEXT } from './wire';

/** What the previous council result of the conversation said (its metadata). */
export interface PreviousTurn {
  sessionId: string;
  awaiting: 'answer' | 'nothing';
  problem?: string;
  question?: string;
}

export class OutgoingTurn {
  readonly params: TurnParams;

  constructor(
    private readonly client: CouncilClient,
    base: Omit<TurnParams, 'newSessionId' | 'sessionId'>,
    sessionId: string | undefined,
    private submission: AnswerButtonArgs | undefined,
    private readonly previous: PreviousTurn | undefined,
    /** The user's replies to the previous session's questions (chat history), sent if that session is gone. */
    private readonly earlier: EarlierAnswer[] = [],
  ) {
    this.params = { ...base, newSessionId: randomUUID() };
    if (sessionId) this.params.sessionId = sessionId;
  }

  get proposedSessionId(): string {
    return this.params.newSessionId as string;
  }

  send(token: vscode.CancellationToken): Promise<TurnResult> {
    const a = this.submission;
    if (!a) return this.client.request('council/turn', { ...this.params }, token);
    log.info(`submitting ${a.action} for question ${a.questionId} (key ${a.idempotencyKey})`);
    return this.client.request('council/answer', answerParams(a, this.params.client), token);
  }

  /**
   * The sidecar does not know the session (`why`: the refusal's reason): ask again as a new session, with `earlier`
   * (the sidecar says the old one is gone and reuses the replies). The turn's own text when it is a problem; the
   * session's problem when the turn only answered, skipped or commanded. False when there is nothing to ask.
   */
  renew(why: EarlierSession['reason'] = 'unknown_session'): boolean {
    const submission = this.submission;
    const command = this.params.command;
    const prompt = this.params.text ?? '';
    const onlyAnswers = this.submission !== undefined || this.previous?.awaiting === 'answer' || (this.params.command !== undefined && this.params.command !== 'new');
    const text = onlyAnswers ? this.previous?.problem : this.params.text;
    if (!text?.trim()) return false;
    this.submission = undefined;
    delete this.params.sessionId;
    delete this.params.command;
    delete this.params.idempotencyKey;
    this.params.text = text.slice(0, MAX_TEXT);
    this.params.newSessionId = randomUUID();
    const answers = [...this.earlier, ...(onlyAnswers ? this.thisReply(submission, command, prompt) : [])];
    // Always sent: the new session says first (in its language) that the earlier one is gone, and reuses the replies.
    this.params.earlier = { ...(this.previous?.problem ? { problem: this.previous.problem.slice(0, MAX_TEXT) } : {}), answers, reason: why };
    return true;
  }

  /** This turn's own reply to the question the lost session waited on (a clicked button, `/skip`, or typed text). */
  private thisReply(submission: AnswerButtonArgs | undefined, command: TurnParams['command'], prompt: string): EarlierAnswer[] {
    const question = this.previous?.awaiting === 'answer' ? this.previous.question : undefined;
    if (!question) return [];
    const reply = submission
      ? replyOf(submission.action === 'answer' ? 'answer' : submission.action, submission.label, question)
      : replyOf(command, prompt, question);
    return reply ? [reply] : [];
  }
}

export type HistoryItem = vscode.ChatRequestTurn | vscode.ChatResponseTurn;

/** The fields of a council result the history is read with (participant.ts writes them). */
type AskedMetadata = Partial<Record<'sessionId' | 'awaiting' | 'question', unknown>>;

const MAX_ANSWERS = 30;

/** A reply to a question as the sidecar reads it: its command (`/skip`, `/skipAll`, `/answer`) or its text. */
export function replyOf(command: string | undefined, prompt: string, question: string): EarlierAnswer | undefined {
  const q = question.slice(0, MAX_TEXT);
  if (command === 'skip') return { question: q, action: 'skip' };
  if (command === 'skipAll') return { question: q, action: 'skip_all' };
  if (command && command !== 'answer') return undefined; // /cancel, /status …: not a reply
  const text = prompt.trim().slice(0, MAX_TEXT);
  return text ? { question: q, action: 'answer', answer: text } : undefined;
}

/** The user's replies to `sessionId`'s questions, in order: each council result that asked one, and the next request. */
export function earlierReplies(history: readonly HistoryItem[], sessionId: string | undefined, participantId: string): EarlierAnswer[] {
  if (!sessionId) return [];
  const out: EarlierAnswer[] = [];
  for (let i = 0; i + 1 < history.length && out.length < MAX_ANSWERS; i++) {
    const item = history[i] as Partial<vscode.ChatResponseTurn>;
    if (item.participant !== participantId || !item.result) continue;
    const m = (item.result.metadata ?? {}) as AskedMetadata;
    if (m.sessionId !== sessionId || m.awaiting !== 'answer' || typeof m.question !== 'string') continue;
    const next = history[i + 1] as Partial<vscode.ChatRequestTurn>;
    if (typeof next.prompt !== 'string' || next.participant !== participantId) continue;
    const reply = replyOf(next.command, next.prompt, m.question);
    if (reply) out.push(reply);
  }
  return out;
}

/**
 * The conversation's last council reply was cut off: it has no result of ours (no session metadata, no error we
 * reported) although its request asked the council something — the window was reloaded while it streamed.
 */
export function lastReplyInterrupted(history: readonly HistoryItem[], participantId: string): boolean {
  for (let i = history.length - 1; i >= 1; i--) {
    const item = history[i] as Partial<vscode.ChatResponseTurn>;
    if (item.participant !== participantId || item.result === undefined) continue;
    const request = history[i - 1] as Partial<vscode.ChatRequestTurn>;
    if (request.command === 'transcript' || request.command === 'review' || !`${request.prompt ?? ''}${request.command ?? ''}`.trim()) return false;
    const { metadata, errorDetails } = item.result;
    return (metadata === undefined || Object.keys(metadata).length === 0) && (errorDetails === undefined || (errorDetails as { responseIsIncomplete?: boolean }).responseIsIncomplete === true);
  }
  return false;
}

export interface RecoveryHooks<T> {
  send(): Promise<T>;
  /** The sidecar died under the turn; a new one is ready with the sessions restored: say so, reset the turn's view. */
  onRestarted(): void;
  /**
   * The sidecar does not know the session: switch the turn to a new session (return true), or give up (false).
   * Called at most once.
   */
  onUnknownSession(why: 'unknown' | 'expired'): boolean;
}

/** Send with one recovery from each of: a lost sidecar, an unknown session. */
export async function sendWithRecovery<T>(client: CouncilClient, hooks: RecoveryHooks<T>, cancelled: () => boolean): Promise<T> {
  let restarted = false;
  let renewed = false;
  for (;;) {
    const generation = client.generation;
    try {
      return await hooks.send();
    } catch (err) {
      if (cancelled()) throw err;
      if (!restarted && isConnectionLost(err)) {
        restarted = true;
        await client.whenReadyAfter(generation);
        hooks.onRestarted();
        continue;
      }
      const unknown = isUnknownSession(err);
      if (!renewed && unknown && hooks.onUnknownSession(unknown)) {
        renewed = true;
        continue;
      }
      throw err;
    }
  }
}
