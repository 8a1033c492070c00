// The agent-mode path over MCP (e2e): switches `council.agentTools` to `mcp` as a user would (VS Code then runs
// `council mcp` as an MCP server and lists its tools, tagged `mcp`), starts it, waits for its council_consult and
// invokes it as an agent would (vscode.lm.invokeTool), logging the result to COUNCIL_E2E_LOG; `languageModelTools`
// is set back at the end. The server has no model of its own: every model call is an MCP sampling request, which
// VS Code answers with the user's model (the test model) once the user allows it.
'use strict';
const vscode = require('vscode');

const WAIT_MS = 120_000;
const mcpTools = () => vscode.lm.tools.filter((t) => (t.tags || []).includes('mcp'));

async function mcpConsultTool(log) {
  const deadline = Date.now() + WAIT_MS;
  while (Date.now() < deadline) {
    const tool = mcpTools().find((t) => /council_consult$/.test(t.name));
    if (tool) return tool;
    try {
      await vscode.commands.executeCommand('workbench.mcp.startServer', '*', { waitForLiveTools: true });
    } catch (err) {
      log('mcp-start-failed', String(err && err.message ? err.message : err));
    }
    await new Promise((r) => setTimeout(r, 1000));
  }
  throw new Error(`no MCP council_consult within ${WAIT_MS / 1000} s; MCP tools: ${mcpTools().map((t) => t.name).join(', ') || 'none'}`);
}

exports.register = function register(context, log) {
  context.subscriptions.push(
    vscode.commands.registerCommand('councilTest.invokeConsultOverMcp', async () => {
      const council = vscode.workspace.getConfiguration('council');
      try {
        await council.update('agentTools', 'mcp', vscode.ConfigurationTarget.Global);
        const tool = await mcpConsultTool(log);
        log('mcp-tool-listed', { name: tool.name, tags: tool.tags });
        const input = { user_problem: 'Should we split our monolith into services this quarter?', depth: 'brief',
          selected_personas: ['Software Architect', "Devil's Advocate"] };
        const result = await vscode.lm.invokeTool(tool.name, { input, toolInvocationToken: undefined },
          new vscode.CancellationTokenSource().token);
        log('mcp-tool-result', { text: result.content.map((p) => (typeof p.value === 'string' ? p.value : '')).join('') });
      } catch (err) {
        log('mcp-tool-error', String(err && err.message ? err.message : err));
      } finally {
        await council.update('agentTools', 'languageModelTools', vscode.ConfigurationTarget.Global);
      }
    }),
  );
};
