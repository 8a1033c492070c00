// Test-only language model provider (e2e): a deterministic model so VS Code's chat invokes @council without
// Copilot, and so the council's JSON prompts get valid answers (see replies.js). Streams each reply in chunks.
'use strict';
const vscode = require('vscode');
const fs = require('fs');
const { replyText, chunks, whoFrom } = require('./replies');

const LOG = process.env.COUNCIL_E2E_LOG;
const log = (...a) => {
  if (!LOG) return;
  try {
    fs.appendFileSync(LOG, `${new Date().toISOString()} [fake-lm] ${a.map((x) => (typeof x === 'string' ? x : JSON.stringify(x))).join(' ')}\n`);
  } catch {
    /* ignore */
  }
};

// The driver steers faults through a JSON control file (COUNCIL_E2E_CONTROL): {"failAdvisors": "529 overloaded"}
// makes every advisor's call fail with that message; {"delayMs": 400} slows each chunk (so a stop or a kill lands
// mid-debate). Read on every request, so the driver can change it between steps.
function control() {
  const file = process.env.COUNCIL_E2E_CONTROL;
  if (!file) return {};
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return {};
  }
}

function textOf(message) {
  const content = message.content;
  if (typeof content === 'string') return content;
  return (content || []).map((p) => (typeof p.value === 'string' ? p.value : '')).join('');
}

exports.activate = function activate(context) {
  log('activate', vscode.version);
  const info = {
    id: 'council-test-model',
    name: 'Council Test Model',
    family: 'council-test',
    version: '1.0',
    tooltip: 'Deterministic scripted model for the Council e2e test',
    maxInputTokens: 200000,
    maxOutputTokens: 8192,
    capabilities: { imageInput: false, toolCalling: true },
    isUserSelectable: true,
    isDefault: true,
  };
  context.subscriptions.push(
    vscode.lm.registerLanguageModelChatProvider('council-fake', {
      provideLanguageModelChatInformation(options) {
        log('provideInfo', options);
        return [info];
      },
      async provideLanguageModelChatResponse(model, messages, _options, progress, token) {
        const msgs = messages.map((m) => ({ role: m.role === 2 ? 'assistant' : 'user', content: textOf(m) }));
        const ctl = control();
        if (ctl.failAdvisors && whoFrom(msgs)) {
          log('failing an advisor call', ctl.failAdvisors);
          throw new Error(String(ctl.failAdvisors));
        }
        const text = replyText(msgs);
        log('response', { chars: text.length, head: text.slice(0, 60) });
        for (const chunk of chunks(text, 4)) {
          if (token.isCancellationRequested) return;
          progress.report(new vscode.LanguageModelTextPart(chunk));
          await new Promise((r) => setTimeout(r, Number(ctl.delayMs) || 15));
        }
      },
      async provideTokenCount(_model, text) {
        return Math.ceil((typeof text === 'string' ? text : textOf(text)).length / 4);
      },
    }),
  );
  // The agent-mode path, as an agent would take it: invoke Council's language model tool and log what came back
  // (the e2e driver runs this command and reads the log).
  context.subscriptions.push(
    vscode.commands.registerCommand('councilTest.invokeConsult', async () => {
      const tool = vscode.lm.tools.find((t) => t.name === 'council_consult');
      log('tool-listed', tool ? { name: tool.name, properties: Object.keys((tool.inputSchema || {}).properties || {}) } : null);
      try {
        const input = { user_problem: 'Should we split our monolith into services this quarter?', depth: 'brief',
          selected_personas: ['Software Architect', "Devil's Advocate"] };
        const result = await vscode.lm.invokeTool('council_consult', { input, toolInvocationToken: undefined },
          new vscode.CancellationTokenSource().token);
        log('tool-result', { text: result.content.map((p) => (typeof p.value === 'string' ? p.value : '')).join('') });
      } catch (err) {
        log('tool-error', String(err && err.message ? err.message : err));
      }
    }),
  );
  require('./mcp-agent').register(context, log); // the same, through the MCP server (council.agentTools: mcp)
  // VS Code resolves provider models lazily; asking for them once makes the chat's model picker list this model
  // (without it a signed-out picker only offers "Sign in to use Copilot").
  vscode.lm.selectChatModels({ vendor: 'council-fake' }).then(
    (models) => log('selectChatModels', models.map((m) => m.id)),
    (err) => log('selectChatModels failed', String(err)),
  );
};

exports.deactivate = function deactivate() {};
