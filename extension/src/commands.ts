/** The palette commands and the commands behind the chat's buttons. */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { AnswerButtonArgs, PendingAnswers } from './buttons';
import { ANSWER_COMMAND, EXTEND_COMMAND, RETRY_COMMAND, chatQueryFor, isAnswerButtonArgs } from './buttons';
import type { CouncilClient } from './client';
import { describeError, log } from './log';
import { PARTICIPANT_NAME } from './participant';
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
    const params = { sessionId: args.sessionId, questionId: args.questionId, action: args.action, idempotencyKey: args.idempotencyKey, client: { completion: false } };
    await deps.client.request('council/answer', args.choice !== undefined ? { ...params, choice: args.choice } : params);
    void vscode.window.showInformationMessage(`Council: “${args.label}” was submitted.`);
  }
}

async function showTranscript(deps: CommandDeps, sessionArg: unknown): Promise<void> {
  const sessionId = typeof sessionArg === 'string' ? sessionArg : deps.sessions.latest?.sessionId;
  if (!sessionId) {
    void vscode.window.showInformationMessage('Council: there is no session yet — ask @council in the Chat view.');
    return;
  }
  const snap = await deps.client.request('council/snapshot', { sessionId });
  const doc = await vscode.workspace.openTextDocument({ language: 'markdown', content: snap.transcriptMarkdown });
  await vscode.window.showTextDocument(doc, { preview: true });
  await vscode.commands.executeCommand('markdown.showPreviewToSide', doc.uri).then(undefined, () => undefined);
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

/** The workspace folder for user persona overrides. */
export function workspacePersonasDir(): string | undefined {
  const folder = vscode.workspace.workspaceFolders?.[0];
  return folder ? path.join(folder.uri.fsPath, '.council', 'personas') : undefined;
}

/** Copy the shipped persona TOMLs into <workspace>/.council/personas (keeping edits), open them, restart the sidecar. */
export async function editPersonas(deps: CommandDeps): Promise<void> {
  const dir = workspacePersonasDir();
  if (!dir) {
    void vscode.window.showWarningMessage('Council: open a folder first — personas are edited in <folder>/.council/personas.');
    return;
  }
  const shipped = path.join(deps.extensionPath, 'personas');
  fs.mkdirSync(dir, { recursive: true });
  const files = fs.existsSync(shipped) ? fs.readdirSync(shipped).filter((f) => f.endsWith('.toml')).sort() : [];
  let copied = 0;
  for (const f of files) {
    const target = path.join(dir, f);
    if (!fs.existsSync(target)) {
      fs.copyFileSync(path.join(shipped, f), target);
      copied++;
    }
  }
  log.info(`personas: ${copied} copied to ${dir}`);
  const first = fs.readdirSync(dir).filter((f) => f.endsWith('.toml')).sort()[0];
  if (first) await vscode.window.showTextDocument(vscode.Uri.file(path.join(dir, first)));
  await vscode.commands.executeCommand('revealInExplorer', vscode.Uri.file(dir)).then(undefined, () => undefined);
  await deps.restartSidecar();
  void vscode.window.showInformationMessage(`Council: personas in ${vscode.workspace.asRelativePath(dir)} override the shipped ones by id; save and run "Council: Restart Sidecar" after editing.`);
}

export function registerCommands(context: vscode.ExtensionContext, deps: CommandDeps): void {
  const guarded =
    (name: string, fn: (...args: unknown[]) => Promise<void>) =>
    async (...args: unknown[]): Promise<void> => {
      try {
        await fn(...args);
      } catch (err) {
        log.error(`${name} failed: ${describeError(err)}`);
        void vscode.window.showErrorMessage(`Council: ${describeError(err)}`, 'Show Logs').then((p) => p && deps.outputChannel.show());
      }
    };
  const reg = (name: string, fn: (...args: unknown[]) => Promise<void>): void => {
    context.subscriptions.push(vscode.commands.registerCommand(name, guarded(name, fn)));
  };
  reg('council.ask', async () => {
    const question = await vscode.window.showInputBox({
      title: 'Ask the Council',
      prompt: 'A hard question for the council of personas',
      placeHolder: 'Should we split our monolith into services this quarter?',
      ignoreFocusOut: true,
    });
    if (question?.trim()) await openChatWith(`@${PARTICIPANT_NAME} ${question.trim()}`);
  });
  reg('council.cancelSession', () => cancelSession(deps));
  reg('council.showTranscript', (arg) => showTranscript(deps, arg));
  reg('council.editPersonas', () => editPersonas(deps));
  reg('council.restartSidecar', async () => {
    await deps.restartSidecar();
    void vscode.window.showInformationMessage('Council: sidecar restarted.');
  });
  reg('council.showLogs', () => {
    deps.outputChannel.show(true);
    return Promise.resolve();
  });
  reg(ANSWER_COMMAND, (arg) => answerQuestion(deps, arg));
  reg(EXTEND_COMMAND, async () => openChatWith(`@${PARTICIPANT_NAME} /extend`));
  reg(RETRY_COMMAND, async () => openChatWith(`@${PARTICIPANT_NAME} /retry`));
}
