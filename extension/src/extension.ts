/** Entry point: wires the logger, settings, sidecar, chat participant, commands and agent tools. Nothing else lives here. */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { PendingAnswers } from './buttons';
import { SessionTracker, registerCommands, workspacePersonasDir } from './commands';
import { serveCompletion } from './completion';
import { describeError, log, registerLogger } from './log';
import { SessionKeeper } from './keeper';
import { ChatModels } from './models';
import { registerCouncilParticipant } from './participant';
import { PythonSetupError, homeDir, preparePython, resolveInterpreter } from './python';
import type { SidecarCommand } from './settings';
import { readSettings, sidecarLaunch, sidecarProcess, expandPath, transcriptDir } from './settings';
import { Sidecar } from './sidecar';
import { agentToolsMode, chatModelForTools, registerCouncilMcp, registerCouncilTools } from './tools';
import { TurnRegistry } from './turns';
import { activePythonFromExtension, localFolders, teeToFile } from './vscodeapi';

let running: Sidecar | undefined;

export function activate(context: vscode.ExtensionContext): void {
  const channel = teeToFile(vscode.window.createOutputChannel('Council', { log: true }), process.env.COUNCIL_LOG_FILE);
  context.subscriptions.push(channel, { dispose: registerLogger(channel) });
  const settings = () => readSettings(vscode.workspace.getConfiguration('council'));
  const version = String((context.extension.packageJSON as { version?: string }).version ?? '0.0.0');
  log.info(`Council ${version} on ${vscode.env.appName} ${vscode.version}`);

  const keepAcrossReloads = () => vscode.workspace.getConfiguration('council').get<boolean>('sessions.keepAcrossReloads') === true;
  const keeper = new SessionKeeper(() => (keepAcrossReloads() ? context.workspaceState : undefined));
  const loaded = keeper.load();
  log.info(keepAcrossReloads() ? `${loaded} council session(s) kept from the last window` : 'council sessions are not kept across reloads (council.sessions.keepAcrossReloads is off)');
  const sidecar = new Sidecar({
    outputChannel: channel,
    onReady: (send) => keeper.restoreAll(send),
    resolveCommand: () => sidecarCommand(context, version),
    onStartFailed: (err) => {
      const fix = err instanceof PythonSetupError ? err.fix : 'showLogs';
      const actions = fix === 'showLogs' ? ['Retry', 'Show Logs'] : ['Open Settings', 'Retry', 'Show Logs'];
      void vscode.window.showErrorMessage(`Council: ${describeError(err)}`, ...actions).then((pick) => {
        if (pick === 'Open Settings') void vscode.commands.executeCommand('workbench.action.openSettings', 'council.python.interpreter');
        if (pick === 'Retry') void sidecar.restart();
        if (pick === 'Show Logs') channel.show();
      });
    },
  });
  context.subscriptions.push(sidecar);
  running = sidecar;

  const turns = new TurnRegistry<vscode.LanguageModelChat>();
  const models = new ChatModels(context.languageModelAccessInformation); // the user's chat models, refusals remembered
  const pending = new PendingAnswers();
  const sessions = new SessionTracker();
  context.subscriptions.push(
    sidecar.onEvent((event) => {
      keeper.noteSeq(event.sessionId, event.seq);
      if (!turns.dispatch(event)) log.trace(`event ${event.type} #${event.seq} for idle session ${event.sessionId}`);
    }),
  );
  sidecar.setCompletionHandler((params, token) => serveCompletion(params, token, { turns, models, sendDelta: (d) => sidecar.sendDelta(d) }));

  registerCouncilParticipant(context, {
    client: sidecar,
    turns,
    pending,
    settings,
    access: context.languageModelAccessInformation,
    keeper,
    models,
    onSession: (id, status) => sessions.update(id, status),
  });
  registerCommands(context, {
    client: sidecar,
    pending,
    sessions,
    outputChannel: channel,
    extensionPath: context.extensionPath,
    restartSidecar: () => sidecar.restart(),
  });

  registerCouncilTools(context, { client: sidecar, turns, models, settings, chooseModel: () => chatModelForTools(settings().provider === 'chat', models) });
  registerCouncilMcp(context, {
    version,
    mode: () => agentToolsMode(vscode.workspace.getConfiguration('council')),
    resolveLaunch: () => sidecarCommand(context, version, 'mcp'),
  });

  // Restart only when what the sidecar is started with really changed (VS Code also fires this at startup).
  let launchKey = sidecarSettingsKey();
  let reload: NodeJS.Timeout | undefined;
  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (!e.affectsConfiguration('council')) return;
      if (e.affectsConfiguration('council.sessions.keepAcrossReloads') && !keepAcrossReloads()) void keeper.clearPersisted(context.workspaceState);
      const next = sidecarSettingsKey();
      if (next === launchKey) return;
      launchKey = next;
      log.info('sidecar settings changed: restarting');
      void sidecar.restart();
    }),
    // Trust granted: the sidecar restarts with the workspace (evidence, memory); sessions are restored.
    vscode.workspace.onDidGrantWorkspaceTrust(() => {
      log.info('the workspace is trusted now: restarting the sidecar with it');
      launchKey = sidecarSettingsKey();
      void sidecar.restart();
    }),
    // A saved workspace persona reloads the council; the new sidecar gets every session back (restore).
    vscode.workspace.onDidSaveTextDocument((doc) => {
      const dir = workspacePersonasDir();
      if (!dir || !doc.uri.fsPath.startsWith(dir + path.sep) || !doc.uri.fsPath.endsWith('.toml')) return;
      clearTimeout(reload);
      reload = setTimeout(() => {
        log.info(`${path.basename(doc.uri.fsPath)} was saved: restarting the sidecar (sessions are restored)`);
        void sidecar.restart();
      }, 500);
    }),
    { dispose: () => clearTimeout(reload) },
  );
  // Start early so the first chat turn does not wait for Python (failures are reported, not thrown).
  void sidecar.start();
}

function sidecarSettingsKey(): string {
  const s = readSettings(vscode.workspace.getConfiguration('council'));
  return JSON.stringify([s.provider, s.http, s.pythonInterpreter, s.personasDirs, s.embeddings, s.evidence, s.memory, s.transcriptsDirectory, vscode.workspace.isTrusted]);
}

/** Stop the sidecar cleanly (shutdown/exit) before VS Code disposes the rest. */
export async function deactivate(): Promise<void> {
  await running?.stop();
  running = undefined;
}

/** How to run `council serve` (the sidecar) or `council mcp` (the consult tools' MCP server). */
async function sidecarCommand(context: vscode.ExtensionContext, version: string, subcommand: 'serve' | 'mcp' = 'serve'): Promise<SidecarCommand> {
  const s = readSettings(vscode.workspace.getConfiguration('council'));
  const first = localFolders()[0];
  const folder = first?.uri.fsPath;
  const interpreter = await resolveInterpreter({
    configured: s.pythonInterpreter ? expandPath(s.pythonInterpreter, homeDir, folder) : '',
    pythonExtension: () => activePythonFromExtension(first?.uri),
  });
  const python = await preparePython(interpreter, {
    extensionPath: context.extensionPath,
    storagePath: context.globalStorageUri.fsPath,
    version,
    withProgress: (title, task) =>
      Promise.resolve(
        vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title, cancellable: false }, (progress) =>
          task((message) => progress.report({ message })),
        ),
      ),
  });
  const trusted = vscode.workspace.isTrusted;
  const dirs = [path.join(context.extensionPath, 'personas'), ...s.personasDirs.map((d) => expandPath(d, homeDir, folder))];
  const ws = workspacePersonasDir();
  if (trusted && ws && fs.existsSync(ws)) dirs.push(ws);
  // The workspace goes to the sidecar only when it is trusted: the advisors may read it, the memory lives in it.
  const workspace = folder && trusted ? folder : undefined;
  const launch = sidecarLaunch(s, dirs.filter((d) => fs.existsSync(d)), { workspace, transcriptDir: transcriptDir(s, homeDir, folder) }, subcommand);
  await fs.promises.mkdir(context.globalStorageUri.fsPath, { recursive: true });
  return sidecarProcess(python, launch, subcommand, context.globalStorageUri.fsPath);
}
