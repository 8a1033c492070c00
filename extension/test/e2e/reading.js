// What a person has to read in the Chat view (issue 21), measured on the rendered DOM for the e2e drivers: how much
// text stands above the council's answer in its response, and how often each choice of a question is rendered
// (as text, as a button, as a followup), and the personas' compact lines.
'use strict';

const ANSWER_HEADING = /The council['’]s answer/;

/**
 * The characters a person scrolls past before the recommendation: the rendered text of the answer's response above
 * the "The council's answer" heading (whitespace runs counted as one), and the response's whole text length.
 */
async function textBeforeAnswer(response) {
  const text = (await response.innerText()).replace(/\s+/g, ' ');
  const at = text.search(ANSWER_HEADING);
  if (at < 0) throw new Error('no "The council\'s answer" heading in the response');
  return { before: at, total: text.length, above: text.slice(0, at) };
}

/**
 * How many times each label is rendered in the chat view right now: in the responses' text, on buttons and as
 * followups (every visible occurrence counts, as a person reads it).
 */
function renderings(page, labels) {
  return page.evaluate((wanted) => {
    const view = document.querySelector('.interactive-session') || document.body;
    const text = view.innerText;
    const out = {};
    for (const label of wanted) {
      const exact = new RegExp(`(^|[^\\w])${label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\w])`, 'g');
      out[label] = (text.match(exact) || []).length;
    }
    return out;
  }, labels);
}

/**
 * The personas' compact lines in a response (`- **Persona** · _Model_ — position · 🗳️ A 80% · medium confidence`),
 * as [persona, model] pairs (model '' when the line names none), in order, repeats kept.
 */
function personaLines(response) {
  return response.locator('li').evaluateAll((items) => items.map((li) => {
    const first = li.querySelector('strong');
    const text = li.innerText.replace(/\s+/g, ' ').trim();
    if (!first || !text.startsWith(first.innerText.trim()) || !text.includes(' — ')) return null;
    const head = text.slice(0, text.indexOf(' — '));
    const [persona, model = ''] = head.split(' · ').map((x) => x.trim());
    return [persona, model];
  }).filter(Boolean));
}

module.exports = { textBeforeAnswer, renderings, personaLines, ANSWER_HEADING };
