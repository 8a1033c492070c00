/** Thin wrappers around VS Code APIs (other extensions', the workspace's local folders), so the rest of the code stays testable. */
import * as fs from 'node:fs';
import * as vscode from 'vscode';

interface PythonExtensionApi {
  environments?: {
    getActiveEnvironmentPath(resource?: vscode.Uri): { path: string } | undefined;
    resolveEnvironment(env: { path: string } | string): Promise<{ executable?: { uri?: vscode.Uri } } | undefined>;
  };
}

/** The workspace folders on this machine's disk (a virtual workspace's folders cannot be read or given to git). */
export function localFolders(): readonly vscode.WorkspaceFolder[] {
  return (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file');
}

/** The Python extension's active interpreter for `resource`, when ms-python.python is installed. */
export async function activePythonFromExtension(resource?: vscode.Uri): Promise<string | undefined> {
  const ext = vscode.extensions.getExtension<PythonExtensionApi>('ms-python.python');
  if (!ext) return undefined;
  const api = ext.isActive ? ext.exports : await ext.activate();
  const envs = api?.environments;
  const active = envs?.getActiveEnvironmentPath(resource);
  if (!envs || !active) return undefined;
  const resolved = await envs.resolveEnvironment(active);
  return resolved?.executable?.uri?.fsPath ?? active.path;
}

/**
 * When `file` is set (COUNCIL_LOG_FILE, used by the e2e harness), everything written to the channel — our log and
 * the sidecar's stderr — is also appended to that file.
 */
export function teeToFile(channel: vscode.LogOutputChannel, file: string | undefined): vscode.LogOutputChannel {
  if (!file) return channel;
  const write = (level: string, args: unknown[]): void => {
    const text = args.map((a) => (typeof a === 'string' ? a : a instanceof Error ? (a.stack ?? a.message) : JSON.stringify(a))).join(' ');
    try {
      fs.appendFileSync(file, level ? `${new Date().toISOString()} [${level}] ${text}\n` : text);
    } catch {
      /* the file log is best effort */
    }
  };
  const levels = new Set(['trace', 'debug', 'info', 'warn', 'error']);
  return new Proxy(channel, {
    get(target, prop, receiver) {
      const value: unknown = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function') return value;
      const name = String(prop);
      return (...args: unknown[]): unknown => {
        if (levels.has(name)) write(name, args);
        else if (name === 'append') write('', args);
        else if (name === 'appendLine') write('', [...args, '\n']);
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}
