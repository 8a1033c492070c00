// A stand-in for the agent that runs custom agents (e2e only). VS Code hands a request in agent mode — with a custom
// agent picked — to the default agent participant; that is Copilot's, which needs a sign-in code-server cannot give.
// This participant takes its place (API proposals `defaultChatParticipant`, `chatParticipantAdditions`,
// `chatParticipantPrivate`; code-server runs with --enable-proposed-api for this extension) and does what an agent
// loop does with what VS Code resolved from the custom agent's file: the agent's instructions and its enabled tools.
// It sends them and the user's prompt to the chat's model (the test model), runs every tool call that model makes
// with `vscode.lm.invokeTool` under the request's invocation token (so VS Code shows the tool's confirmation in the
// chat), gives the results back to the model and streams the model's last text. What VS Code handed over is logged
// (`agent-request`), so the e2e scenario can check that the custom agent's instructions and tools arrived.
'use strict';
const vscode = require('vscode');

const MAX_ROUNDS = 4;

/** The text of a model response, and its tool calls. */
async function collect(response) {
  let text = '';
  const calls = [];
  for await (const part of response.stream) {
    if (part instanceof vscode.LanguageModelTextPart) text += part.value;
    else if (part instanceof vscode.LanguageModelToolCallPart) calls.push(part);
  }
  return { text, calls };
}

const textOf = (result) => result.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');

exports.register = function register(context, log) {
  const participant = vscode.chat.createChatParticipant('council-test.agent', async (request, _context, stream, token) => {
    const mode = request.modeInstructions2;
    const enabled = [...(request.tools || new Map())].filter(([, on]) => on).map(([tool]) => tool);
    log('agent-request', {
      mode: mode ? mode.name : null,
      instructions: mode ? mode.content.slice(0, 200) : '',
      instructionChars: mode ? mode.content.length : 0,
      tools: enabled.map((t) => t.name),
      prompt: request.prompt,
    });
    const messages = [];
    if (mode) messages.push(vscode.LanguageModelChatMessage.User(`<instructions>\n${mode.content}\n</instructions>`));
    messages.push(vscode.LanguageModelChatMessage.User(request.prompt));
    const tools = enabled.map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema }));
    for (let round = 1; round <= MAX_ROUNDS; round++) {
      const { text, calls } = await collect(await request.model.sendRequest(messages, { tools }, token));
      if (!calls.length) {
        log('agent-answer', { rounds: round, chars: text.length });
        stream.markdown(text);
        return {};
      }
      messages.push(vscode.LanguageModelChatMessage.Assistant([...(text ? [new vscode.LanguageModelTextPart(text)] : []), ...calls]));
      const results = [];
      for (const call of calls) {
        log('agent-tool-call', { name: call.name, input: call.input });
        try {
          const result = await vscode.lm.invokeTool(call.name, { input: call.input, toolInvocationToken: request.toolInvocationToken }, token);
          log('agent-tool-result', { name: call.name, chars: textOf(result).length, head: textOf(result).slice(0, 80) });
          results.push(new vscode.LanguageModelToolResultPart(call.callId, result.content));
        } catch (err) {
          const message = String(err && err.message ? err.message : err);
          log('agent-tool-error', { name: call.name, message });
          results.push(new vscode.LanguageModelToolResultPart(call.callId, [new vscode.LanguageModelTextPart(`Error: ${message}`)]));
        }
      }
      messages.push(vscode.LanguageModelChatMessage.User(results));
    }
    stream.markdown(`The agent stopped after ${MAX_ROUNDS} rounds of tool calls.`);
    return {};
  });
  context.subscriptions.push(participant);
};
