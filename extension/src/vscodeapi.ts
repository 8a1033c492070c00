/** Thin wrappers around VS Code APIs of other extensions, so the rest of the code stays testable. */
import * as vscode from 'vscode';

interface PythonExtensionApi {
  environments?: {
    getActiveEnvironmentPath(resource?: vscode.Uri): { path: string } | undefined;
    resolveEnvironment(env: { path: string } | string): Promise<{ executable?: { uri?: vscode.Uri } } | undefined>;
  };
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
