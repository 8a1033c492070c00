// What the scripted test model answers when it is offered tools (e2e only): it is then the model of an agent loop
// (agent-harness.js), not one of the council's calls (those never offer tools). Offered a council consult tool and
// holding no tool result yet, it calls the tool once with the user's question, as a model following the Council
// custom agent's instructions would (brief depth, two personas, to keep the run short); holding the tool's result, it
// hands the council's answer back as it came. Offered no council tool, it says so (the scenario then fails on it).
'use strict';
const vscode = require('vscode');

const PERSONAS = ['Software Architect', "Devil's Advocate"];

const parts = (message) => (Array.isArray(message.content) ? message.content : []);
const isText = (p) => p instanceof vscode.LanguageModelTextPart;
const isResult = (p) => p instanceof vscode.LanguageModelToolResultPart;

/** The user's own words: the last user message of plain text that is not the agent's instructions. */
function userQuestion(messages) {
  for (const m of [...messages].reverse()) {
    if (m.role !== vscode.LanguageModelChatMessageRole.User || parts(m).some(isResult)) continue;
    const text = parts(m).filter(isText).map((p) => p.value).join('');
    if (text && !text.startsWith('<instructions>')) return text;
  }
  return '';
}

/**
 * The reply to a request that offers `tools`: `{ call: { name, input } }` or `{ text }`.
 */
exports.agentReply = function agentReply(messages, tools) {
  const results = messages.flatMap((m) => parts(m).filter(isResult));
  if (results.length) {
    const text = results.flatMap((r) => r.content).map((p) => (typeof p.value === 'string' ? p.value : '')).join('\n');
    return { text: `The Council's answer:\n\n${text}` };
  }
  const consult = tools.find((t) => /(^|_)council_consult$/.test(t.name));
  if (!consult) return { text: `No council consult tool was offered (tools: ${tools.map((t) => t.name).join(', ') || 'none'}).` };
  return { call: { name: consult.name, input: { user_problem: userQuestion(messages), depth: 'brief', selected_personas: PERSONAS } } };
};
