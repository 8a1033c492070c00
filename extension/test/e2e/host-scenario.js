// Where VS Code users land (issue 32): since VS Code 1.141 a new chat opens in the Copilot harness on the Agent Host,
// where chat participants are not listed; there a user reaches Council through its tools, its MCP server and its
// custom agent. The testable VS Code (code-server 1.139.1, no Copilot sign-in) has no Copilot harness to run, so this
// scenario records what it does have, as a person sees it in a new chat: the session target control and the targets
// it lists (logged), the Council custom agent in the agent picker, Council's tools in the Configure Tools picker
// (what an agent in any harness of this window may call), and `@council` offered in the Local target's input. The
// tools' and the MCP server's calls themselves are the main flow's and mcp-scenario.js's. Same shape as
// scenarios.js: `(ui, ctx)`; it throws on the first thing that is wrong.
'use strict';

const INPUT = '.interactive-input-part';
const MENU = '.action-widget [role="menu"]'; // VS Code 1.139's action widget (the agent and target pickers)

/** The texts of the visible rows of an open action widget or quick pick, or null when neither opened. */
async function openedList(page, ms = 10_000) {
  const menu = page.locator(MENU).first();
  const quick = page.locator('.quick-input-widget').first();
  const start = Date.now();
  while (Date.now() - start < ms) {
    if (await menu.isVisible().catch(() => false)) {
      return (await menu.locator('.monaco-list-row .title').allInnerTexts()).map((s) => s.trim()).filter(Boolean);
    }
    if (await quick.isVisible().catch(() => false)) {
      await page.waitForTimeout(500); // the list fills in after the widget shows
      return (await quick.locator('.quick-input-list .monaco-list-row').allInnerTexts()).map((s) => s.replace(/\s+/g, ' ').trim()).filter(Boolean);
    }
    await page.waitForTimeout(200);
  }
  return null;
}

async function closeList(page) {
  await page.keyboard.press('Escape');
  await page.waitForTimeout(300);
}

/** The labels of the chat input's toolbar controls (the agent picker, the model picker, the session target …). */
async function controls(page) {
  return (await page.locator(`${INPUT} a.action-label`).evaluateAll((els) => els.map((e) => ({
    text: (e.textContent || '').trim(), label: e.getAttribute('aria-label') || '',
  }))));
}

module.exports = {
  async 'agent host: what reaches Council in a new chat'(ui, ctx) {
    const page = ui.input.page();
    await ui.newChat();
    const found = await controls(page);
    ctx.log(`chat input controls: ${JSON.stringify(found.map((c) => c.text || c.label))}`);

    // The session target (harness) control: which targets this VS Code offers (logged, not asserted: it depends on
    // the product and the sign-ins), and that a new chat here is Local, where @council is listed.
    const target = page.locator(`${INPUT} a.action-label`, { hasText: /^\s*Local\s*$/ }).first();
    if (!(await target.count())) throw new Error(`a new chat has no session target showing "Local": ${JSON.stringify(found)}`);
    await target.click();
    const targets = await openedList(page);
    ctx.log(`session targets: ${targets === null ? '(the control opened no list)' : JSON.stringify(targets)}`);
    if (targets !== null) await ctx.shot('host-1-session-targets');
    await closeList(page);

    // The custom agent: listed in the agent picker.
    const picker = page.locator(`${INPUT} a.action-label[aria-haspopup="true"]`).first();
    await picker.click();
    const agents = await openedList(page);
    ctx.log(`agent picker: ${JSON.stringify(agents)}`);
    await closeList(page);
    if (!agents || !agents.includes('Council')) throw new Error(`the agent picker does not list the Council custom agent: ${JSON.stringify(agents)}`);

    // The tools: Configure Tools… lists what an agent may call in this window; Council's four must be there.
    const configure = page.locator(`${INPUT} a.action-label[aria-label^="Configure Tools"]`).first();
    if (!(await configure.count())) throw new Error(`no Configure Tools control: ${JSON.stringify(found)}`);
    await configure.click();
    const tools = await openedList(page, 20_000);
    await ctx.shot('host-2-configure-tools');
    await closeList(page);
    const council = (tools || []).filter((row) => /council/i.test(row));
    ctx.log(`Configure Tools: ${tools === null ? 'opened no list' : `${tools.length} rows`}; Council's: ${JSON.stringify(council.slice(0, 12))}`);
    // Listed by display name, reference or tool name; the picker may group them under the extension ("Council").
    const TOOLS = { council_consult: 'Consult the Council', persona_consult: 'Consult one Council persona',
      council_define_personas: 'Define Council personas', council_review: 'Council review of a change' };
    const listed = Object.entries(TOOLS).filter(([name, title]) => council.some((row) => row.includes(name) || row.includes(title)));
    ctx.log(`Council's tools listed by name: ${JSON.stringify(listed.map(([name]) => name))}`);
    if (!council.length) throw new Error(`Configure Tools lists nothing of Council's: ${JSON.stringify((tools || []).slice(0, 20))}`);

    // In the Local target, typing @ offers the participant.
    await ui.input.click({ force: true });
    await page.keyboard.type('@coun', { delay: 20 });
    const suggestion = page.locator('.suggest-widget .monaco-list-row', { hasText: /council/i }).first();
    await suggestion.waitFor({ state: 'visible', timeout: 20_000 }).catch(() => {
      throw new Error('typing "@coun" in a Local chat does not offer @council');
    });
    ctx.log(`@ offers: ${(await suggestion.innerText()).replace(/\s+/g, ' ').trim()}`);
    await ctx.shot('host-3-participant-offered');
    await page.keyboard.press('Escape');
    await page.keyboard.press('Control+KeyA');
    await page.keyboard.press('Backspace');
  },
};
