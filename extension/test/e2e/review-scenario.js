// Review mode in the real VS Code Chat view: `@council /review` on the e2e workspace's git changes (run.sh commits
// fees.py, then edits it without a test). The test model's Code Reviewer rejects a change whose files include no
// test (fake-lm-ext/replies.js), so the decision is REJECT: its blocking issue comes first, then the chair's
// reasoning, the verdicts and the axis scores as tables. `/review staged`, with nothing staged, is a plain message.
// Same shape as scenarios.js: `(ui, ctx)` with the chat UI of chatui.js; it throws on the first thing a person
// would see wrong.
'use strict';
const { painted } = require('./chatui');

const DECISION = /Council review: \S*\s*REJECT/;

/** Where each piece of the decision sits in the response's text (-1: missing). */
function positions(text, pieces) {
  return Object.fromEntries(Object.entries(pieces).map(([name, needle]) => [name, text.indexOf(needle)]));
}

/** The rendered tables of a response as rows of cell texts. */
async function tables(response) {
  return response.locator('table').evaluateAll((els) =>
    els.map((t) => [...t.querySelectorAll('tr')].map((tr) => [...tr.querySelectorAll('th, td')].map((c) => c.innerText.trim()))));
}

/**
 * Scroll the chat until `locator` sits near the top of the view, then take a screenshot (the decision is taller than
 * the chat; the chat list scrolls with the mouse wheel, not with scrollIntoView).
 */
async function shotOf(ctx, response, locator, name) {
  const page = locator.page();
  const area = await response.boundingBox();
  if (area) await page.mouse.move(area.x + area.width / 2, 400);
  for (let i = 0; i < 80; i++) {
    const box = await locator.boundingBox();
    if (!box || (box.y >= 150 && box.y <= 320)) break;
    await page.mouse.wheel(0, box.y < 150 ? Math.max(-600, box.y - 200) : Math.min(600, box.y - 200));
    await painted(page);
  }
  await painted(page);
  await ctx.shot(name);
}

module.exports = {
  async '/review the working tree'(ui, ctx) {
    await ui.newChat();
    // Nothing is staged yet: a plain message, no review.
    const staged = await ui.send('@council /review staged');
    await ui.see(/Nothing is staged/, staged, 60_000);
    await ui.idle();
    if (DECISION.test(await staged.innerText())) throw new Error('/review staged reviewed something although nothing is staged');

    // The trailing space closes the slash-command suggestions (Enter would accept "/review" instead of sending it).
    const r = await ui.send('@council /review ');
    await ui.see(DECISION, r, 180_000);
    await ui.idle();
    const text = await r.innerText();
    if (/could not review|\[object Object\]|⚠️/.test(text)) throw new Error(`the review did not read well: ${text.slice(0, 600)}`);
    const at = positions(text, {
      blocking: 'Blocking issues',
      issue: 'No test covers the changed behaviour',
      reasoning: "The council's outcome is REJECT",
      verdicts: 'Verdicts',
      axes: 'Axis scores',
      nextSteps: 'Next steps',
    });
    const missing = Object.keys(at).filter((k) => at[k] < 0);
    if (missing.length) throw new Error(`the decision lacks ${missing.join(', ')}: ${text.slice(0, 800)}`);
    if (!(at.blocking < at.issue && at.issue < at.reasoning && at.reasoning < at.verdicts && at.verdicts < at.axes)) {
      throw new Error(`the blocking issues do not come first, then the reasoning, verdicts and axis scores: ${JSON.stringify(at)}`);
    }
    const [verdicts, axes] = await tables(r);
    if (!verdicts || !axes) throw new Error('the verdicts and the axis scores are not rendered as tables');
    const rows = Object.fromEntries(verdicts.slice(1).map((row) => [row[0], row[1]]));
    ctx.log(`verdicts: ${JSON.stringify(rows)}`);
    if (!/REJECT/.test(rows['Code Reviewer'] || '') || !/APPROVE/.test(rows['Quant Researcher'] || '') || !/APPROVE/.test(rows["Devil's Advocate"] || '')) {
      throw new Error(`unexpected verdicts table: ${JSON.stringify(verdicts)}`);
    }
    const correctness = axes.find((row) => row[0] === 'Code correctness');
    if (!correctness || !/^\d+\.\d$/.test(correctness[1])) throw new Error(`no code correctness score in the axis table: ${JSON.stringify(axes)}`);
    ctx.log(`axis scores: ${axes.slice(1).map((row) => `${row[0]} ${row[1]}`).join(', ')}`);
    await shotOf(ctx, r, r.locator('h2').first(), 'review-1-outcome-and-blocking-issues');
    await shotOf(ctx, r, r.locator('table').first(), 'review-2-verdicts');
    await shotOf(ctx, r, r.locator('table').nth(1), 'review-3-axis-scores');
  },
};
