/** The palette commands and the commands behind the chat's buttons. */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { AnswerButtonArgs, PendingAnswers } from './buttons';
import { ANSWER_COMMAND, EXTEND_COMMAND, RETRY_COMMAND, TURN_COMMAND, answerParams, chatQueryFor, chatQueryForTurn, isAnswerButtonArgs, isTurnButtonArgs } from './buttons';
import type { CouncilClient } from './client';
import { describeError, log } from './log';
import { PARTICIPANT_NAME } from './participant';
import type { ShippedPersona } from './personaDraft';
import { applyPersonaDraft, describeDraft, draftPersonaCopy, shippedPersonas } from './personaDraft';
import { TRANSCRIPT_SCHEME, openTranscript, transcripts } from './transcript';
import { localFolders } from './vscodeapi';
import type { SessionStatus } from './wire';

/** The most recent session a chat turn reached (what "Cancel Session" and "Show Session Transcript" act on). */
export class SessionTracker {
  latest: { sessionId: string; status: SessionStatus } | undefined;
  update(sessionId: string, status: SessionStatus): void {
    this.latest = { sessionId, status };
  }
}

export interface CommandDeps {
  client: CouncilClient;
  pending: PendingAnswers;
  sessions: SessionTracker;
  outputChannel: vscode.OutputChannel;
  extensionPath: string;
  restartSidecar(): Promise<void>;
  /** Opens the chat with a query and submits it (workbench.action.chat.open). */
  openChat?(query: string): Promise<void>;
}

export async function openChatWith(query: string): Promise<void> {
  await vscode.commands.executeCommand('workbench.action.chat.open', { query, isPartialQuery: false });
}

/** A clicked question button: one submission per click, continued as a chat turn carrying the idempotency key. */
export async function answerQuestion(deps: CommandDeps, raw: unknown): Promise<void> {
  if (!isAnswerButtonArgs(raw)) {
    log.warn(`${ANSWER_COMMAND}: ignoring malformed arguments`);
    return;
  }
  const args: AnswerButtonArgs = raw;
  const outcome = deps.pending.click(args);
  if (outcome === 'duplicate') {
    log.info(`ignoring a repeated click (key ${args.idempotencyKey})`);
    return;
  }
  if (outcome === 'alreadyAnswered') {
    void vscode.window.showInformationMessage('Council: that question was already answered.');
    return;
  }
  try {
    await (deps.openChat ?? openChatWith)(chatQueryFor(args, PARTICIPANT_NAME));
  } catch (err) {
    // No chat to continue in: submit directly (same key, so a later chat turn cannot answer twice).
    log.warn(`could not continue in the chat (${describeError(err)}); submitting directly`);
    deps.pending.drop(args.idempotencyKey);
    await deps.client.request('council/answer', answerParams(args));
    void vscode.window.showInformationMessage(`Council: “${args.label}” was submitted.`);
  }
}

/** The session's transcript (the latest session by default) as a read-only markdown preview titled by its question. */
export async function showTranscript(deps: Pick<CommandDeps, 'client' | 'sessions'>, sessionArg: unknown): Promise<void> {
  const sessionId = typeof sessionArg === 'string' ? sessionArg : deps.sessions.latest?.sessionId;
  if (!sessionId) {
    void vscode.window.showInformationMessage('Council: there is no session yet — ask @council in the Chat view.');
    return;
  }
  await openTranscript(deps.client, sessionId);
}

async function cancelSession(deps: CommandDeps): Promise<void> {
  const latest = deps.sessions.latest;
  if (!latest) {
    void vscode.window.showInformationMessage('Council: no session to cancel.');
    return;
  }
  const r = await deps.client.request('council/cancel', { sessionId: latest.sessionId });
  deps.sessions.update(r.sessionId, r.status);
  void vscode.window.showInformationMessage(r.status === 'cancelled' ? 'Council: the session was cancelled.' : 'Council: the session had already ended.');
}

export function workspacePersonasDir(): string | undefined {
  const folder = localFolders()[0];
  return folder ? path.join(folder.uri.fsPath, '.council', 'personas') : undefined;
}

type PersonaPick = vscode.QuickPickItem & { file?: string };

/** The picker's items: the chat advisors, then the review-only roles under their own heading, marked as such. */
export function personaPickItems(personas: ShippedPersona[], relativeDir: string): PersonaPick[] {
  const item = (p: ShippedPersona): PersonaPick => ({
    label: p.name,
    description: [p.reviewOnly ? 'review-only role (review mode, never in the chat)' : `${p.councils.join(', ')} council`, p.inWorkspace ? `already in ${relativeDir}` : ''].filter(Boolean).join(' · '),
    detail: p.description,
    file: p.file,
  });
  const chat = personas.filter((p) => !p.reviewOnly);
  const review = personas.filter((p) => p.reviewOnly);
  const separator = (label: string): PersonaPick => ({ label, kind: vscode.QuickPickItemKind.Separator });
  return [separator('Chat advisors'), ...chat.map(item), ...(review.length > 0 ? [separator('Review-only roles (review mode)'), ...review.map(item)] : [])];
}

/**
 * Let the user pick the personas to customise, show the draft of copying those shipped TOMLs into
 * <workspace>/.council/personas, copy only after the user confirms, then open them. Saving an edited persona file
 * restarts the sidecar (see extension.ts); sessions survive.
 */
export async function editPersonas(deps: CommandDeps): Promise<void> {
  const dir = workspacePersonasDir();
  if (!dir) {
    void vscode.window.showWarningMessage('Council: open a folder first — personas are edited in <folder>/.council/personas.');
    return;
  }
  const shipped = path.join(deps.extensionPath, 'personas');
  const relative = vscode.workspace.asRelativePath(dir);
  const picked = await vscode.window.showQuickPick(personaPickItems(shippedPersonas(shipped, dir), relative), {
    title: 'Council: Edit Personas',
    placeHolder: 'Pick the personas to customise (one or several); only those are copied into the workspace',
    canPickMany: true,
    matchOnDetail: true,
    ignoreFocusOut: true,
  });
  const files = (picked ?? []).flatMap((p) => (p.file ? [p.file] : []));
  if (files.length === 0) {
    log.info('personas: none picked; nothing written');
    return;
  }
  const draft = draftPersonaCopy(shipped, dir, files);
  if (draft.toWrite.length > 0) {
    const { message, detail } = describeDraft(draft, relative);
    const yes = draft.toWrite.length === 1 ? 'Copy 1 File' : `Copy ${draft.toWrite.length} Files`;
    const pick = await vscode.window.showInformationMessage(message, { modal: true, detail }, yes);
    if (pick !== yes) {
      log.info('personas: the copy was not confirmed; nothing written');
      return;
    }
    const written = applyPersonaDraft(draft, shipped);
    log.info(`personas: ${written.length} copied to ${dir}`);
  }
  for (const f of files) {
    const file = path.join(dir, f);
    if (fs.existsSync(file)) await vscode.window.showTextDocument(vscode.Uri.file(file), { preview: false });
  }
  await vscode.commands.executeCommand('revealInExplorer', vscode.Uri.file(dir)).then(undefined, () => undefined);
  void vscode.window.showInformationMessage(`Council: personas in ${relative} override the shipped ones by id; saving one reloads the council (sessions in progress are kept).`);
}

export function registerCommands(context: vscode.ExtensionContext, deps: CommandDeps): void {
  const reg = (name: string, fn: (...args: unknown[]) => Promise<void>): void => {
    const guarded = async (...args: unknown[]): Promise<void> => {
      try {
        await fn(...args);
      } catch (err) {
        log.error(`${name} failed: ${describeError(err)}`);
        void vscode.window.showErrorMessage(`Council: ${describeError(err)}`, 'Show Logs').then((p) => p && deps.outputChannel.show());
      }
    };
    context.subscriptions.push(vscode.commands.registerCommand(name, guarded));
  };
  reg('council.ask', async () => {
    const question = await vscode.window.showInputBox({
      title: 'Ask the Council',
      prompt: 'A hard question for the council of personas',
      placeHolder: 'Should we split our monolith into services this quarter?',
      ignoreFocusOut: true,
    });
    if (question?.trim()) await openChatWith(`@${PARTICIPANT_NAME} /new ${question.trim()}`);
  });
  context.subscriptions.push(vscode.workspace.registerTextDocumentContentProvider(TRANSCRIPT_SCHEME, transcripts));
  // Restored transcript tabs: fetched from the sidecar (they are not in memory after a reload), the open ones re-read.
  transcripts.attach(
    async (sessionId) => {
      const snap = await deps.client.request('council/snapshot', { sessionId });
      return { question: snap.session.requestText, markdown: snap.transcriptMarkdown };
    },
    vscode.workspace.textDocuments.map((d) => d.uri),
  );
  reg('council.cancelSession', () => cancelSession(deps));
  reg('council.showTranscript', (arg) => showTranscript(deps, arg));
  reg('council.editPersonas', () => editPersonas(deps));
  reg('council.restartSidecar', async () => {
    await deps.restartSidecar();
    void vscode.window.showInformationMessage('Council: sidecar restarted.');
  });
  reg('council.showLogs', () => Promise.resolve(deps.outputChannel.show(true)));
  reg(ANSWER_COMMAND, (arg) => answerQuestion(deps, arg));
  reg(EXTEND_COMMAND, async () => openChatWith(`@${PARTICIPANT_NAME} /extend`));
  reg(RETRY_COMMAND, async () => openChatWith(`@${PARTICIPANT_NAME} /retry`));
  reg(TURN_COMMAND, async (arg) => {
    if (!isTurnButtonArgs(arg)) {
      log.warn(`${TURN_COMMAND}: ignoring malformed arguments`);
      return;
    }
    await (deps.openChat ?? openChatWith)(chatQueryForTurn(arg, PARTICIPANT_NAME));
  });
}
