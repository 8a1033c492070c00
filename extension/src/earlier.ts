/**
 * What the chat history says about a session the sidecar no longer has (a reload without
 * `council.sessions.keepAcrossReloads`): the user's replies to its clarifying questions, sent with the turn that
 * starts the new session (`earlier`, the sidecar decides what to reuse and says so); and whether the last reply was
 * cut off by the reload (no result of ours: the window went away while it streamed).
 */
import type * as vscode from 'vscode';
import type { EarlierAnswer } from './wire';
import { MAX_TEXT } from './wire';

type HistoryItem = vscode.ChatRequestTurn | vscode.ChatResponseTurn;

/** The fields of a council result the history is read with (participant.ts writes them). */
interface AskedMetadata {
  sessionId?: unknown;
  awaiting?: unknown;
  question?: unknown;
}

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
