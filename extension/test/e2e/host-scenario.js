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
      return quickRows(page);
    }
    await page.waitForTimeout(200);
  }
  return null;
}

/** The rows of the open quick pick (a list, or a tree such as Configure Tools), each as one line of text. */
async function quickRows(page) {
  const rows = await page.locator('.quick-input-widget .monaco-list-row').allInnerTexts();
  return rows.map((r) => r.replace(/\s+/g, ' ').trim()).filter(Boolean);
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
    const top = await openedList(page, 20_000);
    ctx.log(`Configure Tools: ${JSON.stringify(top)}`);
    // Each extension's tools are a group, collapsed: open Council's.
    const group = page.locator('.quick-input-widget .monaco-list-row').filter({ hasText: /^\s*Council\s*$/ }).first();
    if (!(await group.count())) throw new Error(`Configure Tools has no Council group: ${JSON.stringify(top)}`);
    await group.locator('.monaco-tl-twistie').first().click();
    await page.waitForTimeout(800);
    const rows = await quickRows(page);
    await ctx.shot('host-2-configure-tools');
    await closeList(page);
    const at = rows.findIndex((row) => /^Council$/.test(row));
    const council = rows.slice(at + 1, at + 5);
    ctx.log(`Configure Tools, Council's: ${JSON.stringify(council)}`);
    // Listed by reference (#council …), tool name or display name.
    const TOOLS = [['council_consult', 'council', 'Consult the Council'], ['persona_consult', 'councilPersona', 'Consult one Council persona'],
      ['council_define_personas', 'councilPersonas', 'Define Council personas'], ['council_review', 'councilReview', 'Council review of a change']];
    for (const [name, ref, title] of TOOLS) {
      const named = new RegExp(`(^|\\s|#)(${name}|${ref})(\\s|$)`);
      if (!council.some((row) => named.test(row) || row.includes(title))) {
        throw new Error(`Configure Tools does not list ${name} (#${ref}) under Council: ${JSON.stringify(council)}`);
      }
    }

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
