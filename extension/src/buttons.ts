/**
 * The chat's buttons. A button carries a deterministic idempotency key (session, question, its asking, action,
 * choice), so re-rendering or double-clicking a button can never produce two different keys for one click, while a
 * question asked again (deferred, or revisited after the answer) gets new buttons that answer it anew. The command handler
 * records the click here; the chat handler then takes it when the chat turn that the click opened arrives, and
 * submits it with `council/answer` and that key (the sidecar treats a repeated key as a no-op).
 */
import { createHash } from 'node:crypto';
import type { AnswerParams, ChatLabels, ClarificationQuestion, ClientCapabilities, TurnCommand } from './wire';
import { TURN_COMMANDS } from './wire';

/**
 * The buttons' words before the sidecar has said any (the sidecar's English catalog, `label.*`); then its `ChatLabels`
 * (on the session's first event and every turn result), in the session's language.
 */
export const DEFAULT_LABELS: ChatLabels = {
  skip: 'Skip',
  skipTooltip: 'The council records the assumption it states instead',
  answerTooltip: 'Answer with this choice',
  skipQuestion: 'Skip this question',
  skipAll: 'Skip all questions',
  skipAllButton: 'Skip all',
  skipAllTooltip: 'Skip the remaining questions and let the council debate',
  extendButton: 'Extend debate',
  extend: 'Extend the debate',
  retry: 'Retry',
  retryTooltip: 'Try the step that failed again',
  resume: 'Resume',
  resumeTooltip: 'Continue where the council stopped',
  cancel: 'Cancel session',
  cancelTooltip: 'End this session',
  resumeStopped: 'Resume the stopped session',
  cancelSession: 'Cancel the session',
  transcript: 'Show transcript',
  transcriptButton: 'Full positions',
  transcriptTooltip: "Open the session's transcript: every advisor's full position, cycle by cycle",
  newQuestion: 'Ask a new question',
  useAsAnswer: 'Use as my answer',
  useAsAnswerTooltip: 'Answer the open question with what you wrote',
  startNew: 'Start a new question',
  startNewTooltip: 'Ask the council this as a new question',
};

export const ANSWER_COMMAND = 'council.answerQuestion';
export const EXTEND_COMMAND = 'council.extendDebate';
export const RETRY_COMMAND = 'council.retryStep';
/** A button that continues the chat with a given turn (`@council /<command> <text>`). */
export const TURN_COMMAND = 'council.sendTurn';

export type AnswerAction = NonNullable<AnswerParams['action']>;

export interface AnswerButtonArgs {
  sessionId: string;
  questionId: string;
  action: AnswerAction;
  /** The value of the chosen choice (action `answer`). */
  choice?: string;
  /** What the user sees, and what the chat turn the click opens says. */
  label: string;
  idempotencyKey: string;
  /** Which asking of the question the button belongs to (the sidecar's `timesAsked`; absent: the first). */
  asking?: number;
}

/** A `vscode.Command`-shaped object (kept structural so this module does not need `vscode`). */
export interface ButtonCommand {
  command: string;
  title: string;
  arguments?: unknown[];
  tooltip?: string;
}

/** The question's asking: 1 the first time, more once it is asked again (a revisit after the answer). */
export const askingOf = (q: Pick<ClarificationQuestion, 'timesAsked'>): number =>
  typeof q.timesAsked === 'number' && q.timesAsked > 1 ? Math.floor(q.timesAsked) : 1;

export function answerKey(sessionId: string, questionId: string, action: AnswerAction, choice?: string, asking = 1): string {
  const parts: unknown[] = [sessionId, questionId, action, choice ?? null];
  if (asking > 1) parts.push(asking); // the first asking's keys as they always were
  const digest = createHash('sha256').update(JSON.stringify(parts)).digest('hex');
  return `btn-${action}-${digest.slice(0, 40)}`;
}

export function answerButtonArgs(
  q: ClarificationQuestion,
  action: AnswerAction,
  choice?: { label: string; value: string },
  labels: ChatLabels = DEFAULT_LABELS,
): AnswerButtonArgs {
  const label = action === 'answer' && choice ? choice.label : action === 'skip' ? labels.skip : 'Defer';
  const asking = askingOf(q);
  const args: AnswerButtonArgs = {
    sessionId: q.sessionId, questionId: q.questionId, action, label,
    idempotencyKey: answerKey(q.sessionId, q.questionId, action, choice?.value, asking),
  };
  if (asking > 1) args.asking = asking;
  if (action === 'answer' && choice) args.choice = choice.value;
  return args;
}

/**
 * The buttons under a question — the only place its choices are shown (the sidecar's markdown does not list them,
 * and no followups repeat them): one per choice, then Skip this question and Skip all. Typing a choice's label or
 * number answers too.
 */
export function questionButtons(q: ClarificationQuestion, labels: ChatLabels = DEFAULT_LABELS): ButtonCommand[] {
  const answer = (title: string, tooltip: string, args: AnswerButtonArgs): ButtonCommand =>
    ({ command: ANSWER_COMMAND, title, tooltip, arguments: [args] });
  return [
    ...(Array.isArray(q.choices) ? q.choices : []).map((c) => answer(c.label, labels.answerTooltip, answerButtonArgs(q, 'answer', c, labels))),
    answer(labels.skipQuestion, labels.skipTooltip, answerButtonArgs(q, 'skip', undefined, labels)),
    turnButton(labels.skipAllButton, { command: 'skipAll', text: '' }, labels.skipAllTooltip),
  ];
}

/** Under the council's answer: the full positions (the transcript), one click away. */
export function transcriptButton(sessionId: string, labels: ChatLabels = DEFAULT_LABELS): ButtonCommand {
  return { command: 'council.showTranscript', title: labels.transcriptButton, tooltip: labels.transcriptTooltip, arguments: [sessionId] };
}

export function extendButton(sessionId: string, labels: ChatLabels = DEFAULT_LABELS): ButtonCommand {
  return { command: EXTEND_COMMAND, title: labels.extendButton, arguments: [{ sessionId }] };
}

export function retryButton(sessionId: string, labels: ChatLabels = DEFAULT_LABELS): ButtonCommand {
  return { command: RETRY_COMMAND, title: labels.retry, tooltip: labels.retryTooltip, arguments: [{ sessionId }] };
}

export interface TurnButtonArgs {
  command?: TurnCommand;
  text: string;
}

export function turnButton(title: string, args: TurnButtonArgs, tooltip?: string): ButtonCommand {
  return { command: TURN_COMMAND, title, arguments: [args], ...(tooltip ? { tooltip } : {}) };
}

export function isTurnButtonArgs(value: unknown): value is TurnButtonArgs {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v.text === 'string' && (v.command === undefined || (typeof v.command === 'string' && (TURN_COMMANDS as readonly string[]).includes(v.command)));
}

export function chatQueryForTurn(args: TurnButtonArgs, participantName = 'council'): string {
  return `@${participantName} ${args.command ? `/${args.command} ` : ''}${args.text}`.trim();
}

/** Under "Stopped": continue where the council stopped, or end the session. */
export function stoppedButtons(labels: ChatLabels = DEFAULT_LABELS): ButtonCommand[] {
  return [
    turnButton(labels.resume, { command: 'retry', text: '' }, labels.resumeTooltip),
    turnButton(labels.cancel, { command: 'cancel', text: '' }, labels.cancelTooltip),
  ];
}

/** Under a text the sidecar thinks is a new problem rather than the answer: keep it as the answer, or ask it anew. */
export function confirmNewButtons(text: string, labels: ChatLabels = DEFAULT_LABELS): ButtonCommand[] {
  return [
    turnButton(labels.useAsAnswer, { command: 'answer', text }, labels.useAsAnswerTooltip),
    turnButton(labels.startNew, { command: 'new', text }, labels.startNewTooltip),
  ];
}

export function isAnswerButtonArgs(value: unknown): value is AnswerButtonArgs {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v.sessionId === 'string' &&
    typeof v.questionId === 'string' &&
    (v.action === 'answer' || v.action === 'skip' || v.action === 'defer') &&
    typeof v.label === 'string' &&
    typeof v.idempotencyKey === 'string' &&
    (v.choice === undefined || typeof v.choice === 'string') &&
    (v.asking === undefined || (typeof v.asking === 'number' && Number.isInteger(v.asking) && v.asking >= 1))
  );
}

/** The chat query a click sends, so the conversation continues in the chat with the user's choice. */
export function chatQueryFor(args: AnswerButtonArgs, participantName = 'council'): string {
  return chatQueryForTurn({ command: args.action, text: args.action === 'answer' ? args.label : '' }, participantName);
}

/** The `council/answer` a click submits (`client`: what its turn can serve model calls with). */
export function answerParams(a: AnswerButtonArgs, client: ClientCapabilities = { completion: false }): AnswerParams {
  const params: AnswerParams = {
    sessionId: a.sessionId, questionId: a.questionId, action: a.action, client, idempotencyKey: a.idempotencyKey,
  };
  if (a.choice !== undefined) params.choice = a.choice;
  return params;
}

/** One asking of one question (a revisited question's buttons are another). */
const askedKey = (args: AnswerButtonArgs): string => `${args.sessionId}\u0000${args.questionId}\u0000${args.asking ?? 1}`;

/**
 * Clicks waiting for the chat turn they opened. One click per asking of a question: a second click on the same
 * button (same key) is a duplicate, a click on another button of the same asking is refused; the buttons of a
 * question asked again (a revisit after the answer) are a new asking and answer it.
 */
export class PendingAnswers {
  private readonly pending = new Map<string, { args: AnswerButtonArgs; at: number }>(); // by idempotency key
  private readonly clickedQuestions = new Map<string, string>(); // questionId and asking → key
  private readonly order: string[] = [];

  constructor(
    private readonly ttlMs = 120_000,
    private readonly now: () => number = Date.now,
    private readonly maxRemembered = 500,
  ) {}

  /** Record a click. Only `submitted` should lead to a chat turn / `council/answer`. */
  click(args: AnswerButtonArgs): 'submitted' | 'duplicate' | 'alreadyAnswered' {
    this.expire();
    const asked = askedKey(args);
    const prior = this.clickedQuestions.get(asked);
    if (prior !== undefined) return prior === args.idempotencyKey ? 'duplicate' : 'alreadyAnswered';
    this.clickedQuestions.set(asked, args.idempotencyKey);
    this.order.push(asked);
    while (this.order.length > this.maxRemembered) this.clickedQuestions.delete(this.order.shift() as string);
    this.pending.set(args.idempotencyKey, { args, at: this.now() });
    return 'submitted';
  }

  /**
   * The pending click that this chat turn carries, if any (removed once taken): same session, and the turn
   * says what the click's query said (`/skip`, `/defer`, or the choice label).
   */
  take(sessionId: string | undefined, prompt: string, command: string | undefined): AnswerButtonArgs | undefined {
    this.expire();
    const text = prompt.trim();
    for (const [key, { args }] of this.pending) {
      if (sessionId !== undefined && args.sessionId !== sessionId) continue;
      const matches =
        args.action === 'answer'
          ? (command === undefined || command === 'answer') && text === args.label.trim()
          : command === args.action && text === '';
      if (matches) {
        this.pending.delete(key);
        return args;
      }
    }
    return undefined;
  }

  /** Forget a click whose chat turn never came (e.g. the chat could not be opened), so it can be submitted directly. */
  drop(key: string): void {
    this.pending.delete(key);
  }

  get size(): number {
    this.expire();
    return this.pending.size;
  }

  /** Clicks whose chat turn never came are forgotten, so the question's buttons work again. */
  private expire(): void {
    const limit = this.now() - this.ttlMs;
    for (const [key, p] of this.pending) {
      if (p.at < limit) {
        this.pending.delete(key);
        if (this.clickedQuestions.get(askedKey(p.args)) === key) this.clickedQuestions.delete(askedKey(p.args));
      }
    }
  }
}
