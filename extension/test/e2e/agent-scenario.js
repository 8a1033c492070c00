// The Council custom agent (issue 23) in the real VS Code: the extension contributes agents/council.agent.md
// (`contributes.chatAgents`); it must be listed in the Chat view's agent picker, and one consult must run through it.
// A person picks "Council" in the picker and asks a question. VS Code resolves the agent's file — its instructions
// and its tools (the council tools, nothing else) — and hands the request to the agent that runs custom agents: in
// this e2e the test extension's stand-in for Copilot's (fake-lm-ext/agent-harness.js), on the test model. That model
// calls council_consult; VS Code shows the tool's confirmation, naming the personas, the depth and the model calls
// (from the sidecar's council/consultPlan); the person allows it; the council runs on the chat's model, and its
// consolidated answer comes back into the chat. Same shape as scenarios.js: `(ui, ctx)`; it throws on the first
// thing that is wrong. Afterwards the picker is set back to "Agent" for the scenarios that follow.
'use strict';

const fs = require('fs');
const path = require('path');

const QUESTION = 'Should we split our monolith into services this quarter?';
const AGENT_FILE = path.join(__dirname, '../../../agents/council.agent.md');
const PICKER = '.interactive-input-part a.action-label[aria-haspopup="true"]';
const COUNCIL_TOOLS = ['council_consult', 'council_define_personas', 'council_review', 'persona_consult'];

/** The body of the custom agent's file (after its YAML header): what VS Code must pass on as the instructions. */
function agentBody() {
  const text = fs.readFileSync(AGENT_FILE, 'utf8');
  return text.slice(text.indexOf('\n---\n', 4) + 5).trim();
}

/** The test extension's log lines of `kind` since `mark`, parsed. */
function logged(mark, kind) {
  return fs.readFileSync(process.env.COUNCIL_E2E_LOG, 'utf8').slice(mark).split('\n')
    .filter((l) => l.includes(`[fake-lm] ${kind} `))
    .map((l) => JSON.parse(l.slice(l.indexOf('{'))));
}

/** Pick `name` in the Chat view's agent picker; returns what the open picker listed. */
async function pickAgent(page, name, ctx, shotName) {
  const picker = page.locator(PICKER).first();
  await picker.click();
  const menu = page.locator('.action-widget [role="menu"]').first(); // VS Code 1.139's action widget
  await menu.waitFor({ state: 'visible', timeout: 10_000 });
  const listed = (await menu.locator('.monaco-list-row.action .title').allInnerTexts()).map((s) => s.trim()).filter(Boolean);
  if (shotName) await ctx.shot(shotName);
  const item = menu.locator('.monaco-list-row.action .title').getByText(name, { exact: true }).first();
  await item.waitFor({ state: 'visible', timeout: 10_000 }).catch(() => {
    throw new Error(`the agent picker does not list "${name}": ${JSON.stringify(listed)}`);
  });
  await item.click();
  await menu.waitFor({ state: 'hidden', timeout: 10_000 });
  const now = await picker.getAttribute('aria-label');
  if (now !== name) throw new Error(`the agent picker shows "${now}" after picking "${name}"`);
  ctx.log(`agent picker: ${JSON.stringify(listed)}; picked ${name}`);
  return listed;
}

module.exports = {
  async 'council custom agent runs a consult'(ui, ctx) {
    const page = ui.input.page();
    await ui.newChat();
    await pickAgent(page, 'Council', ctx, 'agent-1-picker');
    const mark = fs.statSync(process.env.COUNCIL_E2E_LOG).size;
    try {
      const response = await ui.send(QUESTION);

      // The tool's confirmation, before anything runs: the personas, the depth and the range of model calls.
      // (VS Code 1.139 shows it above the chat input; a hidden copy sits in the response.)
      const confirmation = page.locator('.chat-confirmation-widget-container:visible', { hasText: 'Consult the Council?' }).first();
      await confirmation.waitFor({ state: 'visible', timeout: 120_000 });
      const asked = (await confirmation.innerText()).replace(/\s+/g, ' ');
      ctx.log(`confirmation: ${asked.slice(0, 240)}`);
      if (!/Software Architect and Devil['’]s Advocate \(brief depth, (?:the first vote and up to \d+ debate cycles?|the first vote only, no debate cycle)\): \d+–\d+ model calls/.test(asked)) {
        throw new Error(`the confirmation does not name the personas, the depth and the model calls: ${asked.slice(0, 300)}`);
      }
      if (logged(mark, 'response').length) throw new Error('the council called the model before the user confirmed');
      await ctx.shot('agent-2-confirmation');
      await confirmation.locator('a.monaco-button:visible', { hasText: /^\s*Allow/ }).first().click();
      ctx.log('allowed the consult');

      await ui.see(/The Council['’]s answer/, response, 300_000);
      await ui.see(/Do not split everything this quarter/, response, 30_000);
      await ui.idle(60_000);
      await ctx.shot('agent-3-answer');
      const answer = (await response.innerText()).replace(/\s+/g, ' ');
      if (!/Software Architect/.test(answer) || !/Devil['’]s Advocate/.test(answer)) throw new Error(`the answer lacks the personas' positions: ${answer.slice(0, 400)}`);
      if (!/\d+ model calls?/.test(answer)) throw new Error(`the answer does not say how many model calls it made: ${answer.slice(-300)}`);

      // What VS Code made of the custom agent's file, as the agent received it.
      const [request] = logged(mark, 'agent-request');
      if (!request) throw new Error('the agent that runs custom agents got no request');
      ctx.log(`the agent got: mode ${request.mode}, ${request.instructionChars} characters of instructions, tools ${JSON.stringify(request.tools)}`);
      if (request.mode !== 'Council') throw new Error(`the request ran in the agent "${request.mode}", not "Council"`);
      if (!agentBody().startsWith(request.instructions)) throw new Error(`the instructions are not the agent file's body: ${JSON.stringify(request.instructions.slice(0, 120))}`);
      const council = request.tools.filter((t) => COUNCIL_TOOLS.includes(t)).sort();
      if (council.join() !== COUNCIL_TOOLS.join()) throw new Error(`the agent's council tools are ${JSON.stringify(council)}`);
      const others = request.tools.filter((t) => !COUNCIL_TOOLS.includes(t) && t !== 'vscode_askQuestions');
      if (others.length) throw new Error(`the agent has tools its file does not name: ${JSON.stringify(others)}`);
      const calls = logged(mark, 'agent-tool-call');
      const results = logged(mark, 'agent-tool-result');
      if (calls.length !== 1 || calls[0].name !== 'council_consult' || results.length !== 1) {
        throw new Error(`expected one council_consult call and its result: calls ${JSON.stringify(calls)}, results ${JSON.stringify(results)}`);
      }
      const answered = logged(mark, 'response').length;
      ctx.log(`one consult through the Council agent: ${answered} council model calls; the answer starts ${JSON.stringify(answer.slice(0, 120))}`);
      if (!answered) throw new Error('the council made no model call');
    } finally {
      await ui.idle(60_000).catch(() => undefined);
      await pickAgent(page, 'Agent', ctx).catch((err) => ctx.log(`could not set the picker back to Agent: ${err.message}`));
    }
  },
};
