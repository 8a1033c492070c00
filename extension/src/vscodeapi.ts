/** Thin wrappers around VS Code APIs (other extensions', the workspace's local folders), so the rest of the code stays testable. */
import { PVSC_EXTENSION_ID, PythonExtension } from '@vscode/python-extension';
import * as fs from 'node:fs';
import * as vscode from 'vscode';

/** The workspace folders on this machine's disk (a virtual workspace's folders cannot be read or given to git). */
export function localFolders(): readonly vscode.WorkspaceFolder[] {
  return (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file');
}

/**
 * The Python extension's active interpreter for `resource`, read through its published API (`@vscode/python-extension`);
 * undefined when ms-python.python is not installed (`PythonExtension.api()` would throw, which the caller logs as a
 * warning: not worth one for a user without it).
 */
export async function activePythonFromExtension(resource?: vscode.Uri): Promise<string | undefined> {
  if (!vscode.extensions.getExtension(PVSC_EXTENSION_ID)) return undefined;
  const envs = (await PythonExtension.api()).environments;
  const active = envs.getActiveEnvironmentPath(resource);
  const resolved = await envs.resolveEnvironment(active);
  return resolved?.executable.uri?.fsPath ?? active.path;
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
