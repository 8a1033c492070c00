/**
 * Prints the sidecar's `council/event` stream into a chat response. The sidecar writes everything a person reads:
 * each event's `markdown` is appended as is, in `seq` order, whatever the event's type (unknown types too). This file
 * adds only layout: the buttons (buttons.ts), the files of `evidence.gathered` as chat references, and `progress` as
 * the transient progress line — but only until the turn's first markdown: VS Code folds every part before the last
 * progress part into a collapsed "Completed N steps" section, so later progress would hide the debate itself. It
 * writes no prose of its own: even the buttons' words are the sidecar's (`ChatLabels`, in the session's language).
 */
import * as vscode from 'vscode';
import type { ButtonCommand } from './buttons';
import { confirmNewButtons, extendButton, questionButtons, retryButton, stoppedButtons } from './buttons';
import { log } from './log';
import type { WireEvent } from './protocol';
import { isKnownEvent } from './protocol';
import type { ChatLabels, ClarificationQuestion, CouncilEvent, SessionStatus } from './wire';

export interface ResponseSink {
  progress(value: string): void;
  markdown(value: string): void;
  button(command: ButtonCommand): void;
  /** A file the council read, shown in the response's references. */
  reference(value: vscode.Uri): void;
}

/** At most this many references per turn (a long debate may read many files). */
export const MAX_REFERENCES = 40;

/** What this turn's events told the layout and the chat result (metadata, followups). */
export interface TurnState {
  status?: SessionStatus;
  /** The question asked in this turn that is still pending (its buttons are shown). */
  question?: ClarificationQuestion;
  canExtend: boolean;
  /** The final answer's event was printed in this turn. */
  finalAnswer: boolean;
  /** The sidecar asked whether the text was an answer or a new question (its buttons are shown). */
  confirming: boolean;
  /** The session was stopped (paused) in this turn and not resumed since (Resume / Cancel are shown). */
  stopped: boolean;
  errors: number;
  /** The buttons' words in the session's language (the sidecar's), once known. */
  labels?: ChatLabels;
}

export class EventRenderer {
  readonly state: TurnState = { canExtend: false, finalAnswer: false, confirming: false, stopped: false, errors: 0 };
  private printed = false;
  private readonly referenced = new Set<string>();

  constructor(
    private readonly out: ResponseSink,
    private readonly onUnknown: (type: string) => void = (type) => log.warn(`ignoring unknown event type ${type}`),
    labels?: ChatLabels,
  ) {
    if (labels) this.state.labels = labels;
  }

  /** A note of the extension's own in this response (it counts as printed: no progress line after it). */
  note(markdown: string): void {
    this.out.markdown(markdown);
    this.printed = true;
  }

  render(event: WireEvent): void {
    if (typeof event.markdown === 'string' && event.markdown !== '') {
      this.out.markdown(event.markdown);
      this.printed = true;
    }
    if (isKnownEvent(event)) this.layout(event);
    else this.onUnknown(event.type);
  }

  private layout(event: CouncilEvent): void {
    switch (event.type) {
      case 'status.changed':
        this.state.status = event.status;
        if (event.status === 'cancelled') this.state.question = undefined;
        return;
      case 'progress':
        if (!this.printed && typeof event.message === 'string' && event.message !== '') this.out.progress(event.message);
        return;
      case 'personas.selected':
        if (event.labels) this.state.labels = event.labels;
        return;
      case 'question.asked':
        this.state.question = event.question;
        for (const b of questionButtons(event.question, this.state.labels)) this.out.button(b);
        return;
      case 'question.confirmNew':
        this.state.confirming = true;
        for (const b of confirmNewButtons(event.text, this.state.labels)) this.out.button(b);
        return;
      case 'session.stopped':
        this.state.stopped = true;
        for (const b of stoppedButtons(this.state.labels)) this.out.button(b);
        return;
      case 'session.resumed':
        this.state.stopped = false;
        return;
      case 'question.resolved':
        if (this.state.question?.questionId === event.question.questionId) this.state.question = undefined;
        return;
      case 'debate.limitReached':
        this.state.canExtend = event.canExtend;
        if (event.canExtend) this.out.button(extendButton(event.sessionId, this.state.labels));
        return;
      case 'final.answer':
        this.state.finalAnswer = true; // its Full positions button ends the response (participant.finish)
        return;
      case 'evidence.gathered':
        for (const uri of Array.isArray(event.references) ? event.references : []) this.reference(uri);
        return;
      case 'error':
        this.state.errors++;
        if (event.retryable) this.out.button(retryButton(event.sessionId, this.state.labels));
        return;
    }
  }

  /** Each file once, only `file:` URIs (the sidecar reads local files), at most MAX_REFERENCES per turn. */
  private reference(uri: unknown): void {
    if (typeof uri !== 'string' || !uri.startsWith('file:') || this.referenced.has(uri) || this.referenced.size >= MAX_REFERENCES) return;
    this.referenced.add(uri);
    this.out.reference(vscode.Uri.parse(uri));
  }
}
