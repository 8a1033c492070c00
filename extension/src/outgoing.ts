/**
 * What one chat turn sends to the sidecar: a clicked answer (`council/answer` with its idempotency key) or the
 * turn's text (`council/turn`), and how that becomes a new session when the sidecar no longer knows the old one.
 */
import { randomUUID } from 'node:crypto';
import type * as vscode from 'vscode';
import type { AnswerButtonArgs } from './buttons';
import type { CouncilClient } from './client';
import { log } from './log';
import { replyOf } from './earlier';
import type { ClientCapabilities, EarlierAnswer, EarlierSession, TurnParams, TurnResult } from './wire';
import { MAX_TEXT } from './wire';

/** What the previous council result of the conversation said (its metadata). */
export interface PreviousTurn {
  sessionId: string;
  awaiting: 'answer' | 'nothing';
  problem?: string;
  /** The question it waits an answer to. */
  question?: string;
}

export class OutgoingTurn {
  private submission: AnswerButtonArgs | undefined;
  readonly params: TurnParams;

  constructor(
    private readonly client: CouncilClient,
    base: Omit<TurnParams, 'newSessionId' | 'sessionId'>,
    sessionId: string | undefined,
    submission: AnswerButtonArgs | undefined,
    private readonly previous: PreviousTurn | undefined,
    /** The user's replies to the previous session's questions (chat history), sent if that session is gone. */
    private readonly earlier: EarlierAnswer[] = [],
  ) {
    this.submission = submission;
    this.params = { ...base, newSessionId: randomUUID() };
    if (sessionId) this.params.sessionId = sessionId;
  }

  /** The id the sidecar gives the session if this turn starts one. */
  get proposedSessionId(): string {
    return this.params.newSessionId as string;
  }

  get caps(): ClientCapabilities {
    return this.params.client ?? { completion: false };
  }

  /** Whether this turn starts a session (its text is a problem). */
  get startsSession(): boolean {
    return !this.submission && (!this.params.sessionId || this.params.command === 'new');
  }

  send(token: vscode.CancellationToken): Promise<TurnResult> {
    const a = this.submission;
    if (!a) return this.client.request('council/turn', { ...this.params }, token);
    log.info(`submitting ${a.action} for question ${a.questionId} (key ${a.idempotencyKey})`);
    const params = { sessionId: a.sessionId, questionId: a.questionId, action: a.action, client: this.caps, idempotencyKey: a.idempotencyKey };
    return this.client.request('council/answer', a.choice !== undefined ? { ...params, choice: a.choice } : params, token);
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
