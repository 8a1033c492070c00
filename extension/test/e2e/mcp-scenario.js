// The `mcp` agent-tools mode in the real VS Code (issue 19): `council.agentTools: "mcp"` with the default settings —
// no key, no Ollama, no local model — registers `council mcp` as an MCP server, and an agent's council_consult there
// runs the whole council on the user's model: `council mcp` asks VS Code's MCP client for every model call (MCP
// sampling) and VS Code answers with the test model. The test extension's command invokes the MCP tool as an agent
// would (fake-lm-ext/mcp-agent.js) and logs the result, read back here. On the way VS Code asks, once, whether the
// server may make model requests (answered "Allow in this Session"), and shows each clarifying question the council
// asks through MCP elicitation as a notification (answered with its first choice through the form it opens).
// Same shape as scenarios.js: `(ui, ctx)`; it throws on the first thing that is wrong.
'use strict';

const fs = require('fs');

const COMMAND = 'Council Test: Invoke council_consult over MCP';

/**
 * The elicitation form (VS Code's quick input) as it is now: null while it is closed; else its step (title, the
 * input's placeholder and value, the entries listed), whether it has the keyboard focus, and whether it takes an
 * Enter (a list step once an entry has the focus; a text step at once).
 */
function formState(page) {
  return page.evaluate(() => {
    const widget = document.querySelector('.quick-input-widget');
    if (!widget || !widget.checkVisibility()) return null;
    const input = widget.querySelector('.quick-input-box input');
    const rows = [...widget.querySelectorAll('.quick-input-list .monaco-list-row')].filter((r) => r.checkVisibility());
    return {
      step: [widget.querySelector('.quick-input-title')?.textContent, input?.placeholder, input?.value, ...rows.map((r) => r.textContent)].join(' | '),
      focused: widget.contains(document.activeElement),
      ready: rows.length === 0 || rows.some((r) => r.classList.contains('focused')),
    };
  }).catch(() => null);
}

/** Poll formState until `done(state)`; returns that state; throws `what` after `ms`. */
async function untilForm(page, what, done, ms) {
  const start = Date.now();
  for (;;) {
    const state = await formState(page);
    if (done(state)) return state;
    if (Date.now() - start > ms) throw new Error(`${what} (waited ${ms / 1000} s; the form: ${JSON.stringify(state)})`);
    await page.waitForTimeout(100);
  }
}

/**
 * Answer the open elicitation form: Enter on its first step picks the first choice; each further step it shows (the
 * answer in own words) gets an empty Enter, until the form closes. Each Enter waits until the form shows a new step
 * with the focus: an Enter pressed while the form has closed would go to the chat input and could start a chat
 * request that cancels the running tool call; one pressed before the next step is shown would be lost.
 */
async function answerForm(page, ctx, first) {
  let state = await untilForm(page, 'the elicitation form did not open with the focus', (s) => s && s.focused && s.ready, 60_000);
  if (first) await ctx.shot('mcp-2-elicitation-form');
  for (let steps = 1; ; steps++) {
    await page.keyboard.press('Enter');
    const before = state.step;
    state = await untilForm(page, `the elicitation form neither closed nor went on after an Enter on ${JSON.stringify(before)}`,
      (s) => !s || (s.step !== before && s.focused && s.ready), 60_000);
    if (!state) return steps;
    if (steps === 4) throw new Error(`the elicitation form is still open after 4 steps: ${JSON.stringify(state)}`);
  }
}

/** Answer what VS Code asks while the tool runs, until the test model's log shows the tool's result or error. */
async function untilDone(page, ctx, from, timeoutMs) {
  const asked = { sampling: 0, questions: 0 };
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const lines = fs.readFileSync(process.env.COUNCIL_E2E_LOG, 'utf8').slice(from).split('\n');
    const done = lines.find((l) => /\[fake-lm\] mcp-tool-(result|error)/.test(l));
    if (done) return { done, lines, asked };
    const allow = page.locator('.monaco-dialog-box .monaco-button', { hasText: 'Allow in this Session' });
    if (await allow.isVisible().catch(() => false)) {
      asked.sampling++;
      await ctx.shot('mcp-1-sampling-consent');
      await allow.click();
      ctx.log('allowed the MCP server to make model requests (this session)');
    }
    const respond = page.locator('.notification-list-item .monaco-button', { hasText: 'Respond' });
    if (await respond.isVisible().catch(() => false)) {
      asked.questions++;
      const question = (await page.locator('.notification-list-item').first().innerText()).split('\n').slice(-1)[0];
      ctx.log(`clarifying question over MCP elicitation: ${question.slice(0, 120)}`);
      await respond.click();
      const steps = await answerForm(page, ctx, asked.questions === 1);
      ctx.log(`answered the form in ${steps} step(s)`);
    }
    await page.waitForTimeout(500);
  }
  throw new Error(`the MCP council_consult did not finish within ${timeoutMs / 1000} s`);
}

module.exports = {
  async 'mcp agent tools answer on the chat model over sampling'(ui, ctx) {
    const page = ui.input.page();
    const from = fs.readFileSync(process.env.COUNCIL_E2E_LOG, 'utf8').length;
    await ui.palette(COMMAND);
    const { done, lines, asked } = await untilDone(page, ctx, from, 300_000);
    if (done.includes('mcp-tool-error')) throw new Error(`the MCP council_consult failed: ${done}`);
    const listed = lines.find((l) => l.includes('[fake-lm] mcp-tool-listed'));
    ctx.log(`listed: ${listed ? listed.slice(listed.indexOf('{')) : '(none)'}`);
    const data = JSON.parse(JSON.parse(done.slice(done.indexOf('{'))).text); // VS Code hands an agent structuredContent
    ctx.log(`council_consult over MCP: ${data.model_calls} model calls ${JSON.stringify(data.calls_by_model)}, ` +
      `${asked.questions} question(s) answered, consent asked ${asked.sampling} time(s); ` +
      `recommendation: ${String(data.synthesis.recommendation).slice(0, 80)}`);
    if (asked.sampling !== 1) throw new Error(`VS Code asked ${asked.sampling} times whether the server may make model requests`);
    if (!/^Do not split everything/.test(data.synthesis.recommendation)) throw new Error(`unexpected synthesis: ${JSON.stringify(data.synthesis).slice(0, 300)}`);
    const personas = data.responses.map((r) => r.persona).sort();
    if (personas.join() !== "Devil's Advocate,Software Architect") throw new Error(`unexpected responses: ${personas}`);
    if (asked.questions && !data.clarifications.some((c) => c.status === 'answered')) {
      throw new Error(`the answered question is not in the result: ${JSON.stringify(data.clarifications)}`);
    }
    const calls = Object.values(data.calls_by_model).reduce((a, b) => a + b, 0);
    if (!(data.model_calls > 0 && calls === data.model_calls && calls <= data.max_model_calls)) {
      throw new Error(`calls per model do not add up: ${data.model_calls} calls, ${JSON.stringify(data.calls_by_model)}, at most ${data.max_model_calls}`);
    }
    if (!Object.keys(data.calls_by_model).every((m) => /council-test-model/.test(m))) {
      throw new Error(`the calls were not answered by the chat's test model: ${JSON.stringify(data.calls_by_model)}`);
    }
    const answered = lines.filter((l) => l.includes('[fake-lm] response')).length;
    if (answered !== data.model_calls) throw new Error(`the test model answered ${answered} requests, the consult counted ${data.model_calls} calls`);
  },
};
