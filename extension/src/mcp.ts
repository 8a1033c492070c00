/**
 * The consult tools as an MCP server inside VS Code: `council mcp` registered through the MCP server definition
 * provider API, for agents that take tools from MCP servers. It is offered only when `council.agentTools` is `mcp`
 * (the language model tools are hidden then), so agent mode never sees the same tool twice. Listing is instant;
 * the Python command is resolved (and prepared if needed) only when VS Code starts the server.
 */
import * as vscode from 'vscode';
import type { AgentToolsMode } from './tools';

export const MCP_PROVIDER_ID = 'council.mcp';
export const MCP_LABEL = 'Council';

export interface McpLaunch {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
}

export interface McpDeps {
  version: string;
  mode: () => AgentToolsMode;
  /** How to run `council mcp` (the sidecar's Python, arguments and environment). */
  resolveLaunch: () => Promise<McpLaunch>;
}

export interface CouncilMcpProvider extends vscode.McpServerDefinitionProvider<vscode.McpStdioServerDefinition> {
  readonly changed: vscode.EventEmitter<void>;
}

export function councilMcpProvider(deps: McpDeps): CouncilMcpProvider {
  const changed = new vscode.EventEmitter<void>();
  return {
    changed,
    onDidChangeMcpServerDefinitions: changed.event,
    provideMcpServerDefinitions: () => (deps.mode() === 'mcp' ? [new vscode.McpStdioServerDefinition(MCP_LABEL, 'council', ['mcp'], {}, deps.version)] : []),
    async resolveMcpServerDefinition(server) {
      const launch = await deps.resolveLaunch();
      server.command = launch.command;
      server.args = launch.args;
      server.env = { ...server.env, ...launch.env };
      if (launch.cwd) server.cwd = vscode.Uri.file(launch.cwd);
      return server;
    },
  };
}

/** Register the provider; a change to `council.*` settings makes VS Code ask for the definitions again. */
export function registerCouncilMcp(context: vscode.ExtensionContext, deps: McpDeps): void {
  const provider = councilMcpProvider(deps);
  context.subscriptions.push(
    vscode.lm.registerMcpServerDefinitionProvider(MCP_PROVIDER_ID, provider),
    provider.changed,
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('council')) provider.changed.fire();
    }),
  );
}
