// Test-only language model providers (e2e): deterministic models so VS Code's chat invokes @council without
// Copilot, and so the council's JSON prompts get valid answers (see replies.js). Streams each reply in chunks. Two
// vendors, two model families (as a user's GPT and Claude models): the chat's model "Council Test Model" and a second
// one, "Council Test Model B", so the council seats personas on both (council.models: diverse). A request that offers
// tools comes from an agent loop, not from the council: agent-model.js answers it (agent-harness.js is that loop).
'use strict';
const vscode = require('vscode');
const fs = require('fs');
const path = require('path');
const { replyText, chunks, whoFrom } = require('./replies');
const { agentReply } = require('./agent-model');

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
// makes every advisor's call fail with that message; {"failModels": {"council-test-model-b": "503 down"}} makes
// every call on that model fail; {"delayMs": 400} slows each chunk (so a stop or a kill lands mid-debate). Read on
// every request, so the driver can change it between steps.
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

/** A model's information for VS Code (`isDefault`: the chat's model in a fresh profile). */
function modelInfo(id, name, family, isDefault) {
  return {
    id,
    name,
    family,
    version: '1.0',
    tooltip: `Deterministic scripted model for the Council e2e test (${family})`,
    maxInputTokens: 200000,
    maxOutputTokens: 8192,
    capabilities: { imageInput: false, toolCalling: true },
    isUserSelectable: true,
    isDefault,
  };
}

/** The scripted provider serving `info`: replies from replies.js, faults from the control file. */
function provider(info) {
  return {
    provideLanguageModelChatInformation(options) {
      log('provideInfo', { model: info.id, options });
      return [info];
    },
    async provideLanguageModelChatResponse(model, messages, options, progress, token) {
      if (options && options.tools && options.tools.length) {
        // An agent loop's request (agent-harness.js): call a council tool, or hand its result back.
        const reply = agentReply(messages, options.tools);
        log('agent-model', reply.call ? { call: reply.call.name } : { chars: reply.text.length });
        if (reply.call) {
          progress.report(new vscode.LanguageModelToolCallPart(`call-${Date.now()}`, reply.call.name, reply.call.input));
          return;
        }
        for (const chunk of chunks(reply.text, 4)) progress.report(new vscode.LanguageModelTextPart(chunk));
        return;
      }
      const msgs = messages.map((m) => ({ role: m.role === 2 ? 'assistant' : 'user', content: textOf(m) }));
      const ctl = control();
      const who = whoFrom(msgs);
      const down = ctl.failModels && ctl.failModels[model.id];
      if (down) {
        log('failing a call on', model.id, { who: who || 'a chair role' });
        throw new Error(String(down));
      }
      if (ctl.failAdvisors && who) {
        log('failing an advisor call', ctl.failAdvisors);
        throw new Error(String(ctl.failAdvisors));
      }
      const text = replyText(msgs);
      log('response', { model: model.id, who: who || '', chars: text.length, head: text.slice(0, 60) });
      for (const chunk of chunks(text, 4)) {
        if (token.isCancellationRequested) return;
        progress.report(new vscode.LanguageModelTextPart(chunk));
        await new Promise((r) => setTimeout(r, Number(ctl.delayMs) || 15));
      }
    },
    async provideTokenCount(_model, text) {
      return Math.ceil((typeof text === 'string' ? text : textOf(text)).length / 4);
    },
  };
}

/**
 * Open a saved chat conversation in the Chat view by its id, never by its title: the driver writes
 * {"sessionId": …} (the id VS Code saved it under: workspaceStorage/…/chatSessions/<id>.jsonl) to
 * $COUNCIL_E2E_RUN/open-session.json and runs this command from the palette. VS Code names a local conversation
 * vscode-chat-session://local/<its id in base64url> (LocalChatSessionUri in VS Code 1.139); no command opens that
 * resource in the Chat view directly, so this takes the path a person takes from the Agent Sessions list: "Open as
 * Editor" (workbench.action.chat.openSessionInEditorGroup, given the session's resource), then "Move Chat into Side
 * Bar" (workbench.action.chat.openInSidebar, which loads the active chat editor's session into the view). Logs
 * `open-session {…}` when both have run, or `open-session-error {…}`; the driver checks what the view then shows.
 */
async function openChatSession() {
  let sessionId;
  try {
    ({ sessionId } = JSON.parse(fs.readFileSync(path.join(process.env.COUNCIL_E2E_RUN || '', 'open-session.json'), 'utf8')));
    if (typeof sessionId !== 'string' || !sessionId) throw new Error('open-session.json names no sessionId');
    const resource = vscode.Uri.from({ scheme: 'vscode-chat-session', authority: 'local', path: `/${Buffer.from(sessionId, 'utf8').toString('base64url')}` });
    await vscode.commands.executeCommand('workbench.action.chat.openSessionInEditorGroup', { resource });
    await vscode.commands.executeCommand('workbench.action.chat.openInSidebar');
    log('open-session', { sessionId, resource: resource.toString() });
  } catch (err) {
    log('open-session-error', { sessionId, error: String(err && err.message ? err.message : err) });
  }
}

const MODELS = [
  { vendor: 'council-fake', info: modelInfo('council-test-model', 'Council Test Model', 'council-test', true) },
  { vendor: 'council-fake-b', info: modelInfo('council-test-model-b', 'Council Test Model B', 'other-test', false) },
];

exports.activate = function activate(context) {
  log('activate', vscode.version);
  for (const { vendor, info } of MODELS) {
    context.subscriptions.push(vscode.lm.registerLanguageModelChatProvider(vendor, provider(info)));
  }
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
  context.subscriptions.push(vscode.commands.registerCommand('councilTest.openChatSession', openChatSession));
  require('./mcp-agent').register(context, log); // the same, through the MCP server (council.agentTools: mcp)
  require('./agent-harness').register(context, log); // the agent loop that runs custom agents (the Council agent)
  // VS Code resolves provider models lazily; asking for them once makes the chat's model picker list these models
  // (without it a signed-out picker only offers "Sign in to use Copilot").
  for (const { vendor } of MODELS) {
    vscode.lm.selectChatModels({ vendor }).then(
      (models) => log('selectChatModels', vendor, models.map((m) => m.id)),
      (err) => log('selectChatModels failed', vendor, String(err)),
    );
  }
};

exports.deactivate = function deactivate() {};
