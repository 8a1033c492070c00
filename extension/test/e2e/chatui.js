// What a person does in the real VS Code Chat view, as functions for the e2e drivers and scenarios: open the Chat
// view, type a turn, wait for its response to finish, click a button or a followup, press Stop, start a new chat,
// kill the sidecar process; and the headless browser they all use. Selectors are VS Code 1.139's (code-server
// 4.139.1 is pinned).
'use strict';
const { execFileSync } = require('child_process');
const { chromium } = require('playwright-core');

const RESPONSE = '.interactive-item-container.interactive-response';
const REQUEST = '.interactive-item-container.interactive-request';
const INPUT = '.interactive-input-part .interactive-input-editor .monaco-editor';
// A row of the chat list (the list renders only the rows in view), and the same without the copy of a request that
// sticks to the top while its response scrolls by (that copy has its request's data-index).
const ANY_ROW = '.interactive-list .monaco-list-row';
const ROW = `${ANY_ROW}:not(.monaco-tree-sticky-row)`;
const STOP = '.interactive-input-part .codicon-stop-circle';
// The Send action: disabled while Enter would not send (nothing to send, no model yet, a request running).
const SEND = '.interactive-input-part .action-label.codicon-arrow-up-compact';

const squash = (s) => s.replace(/\s+/g, ' ').trim();

/**
 * Runs in the page, once per page load: for every Enter keydown, records whether the chat input's suggestion list
 * showed a focused suggestion at that moment (this capture listener runs before the editor's own handler, in the
 * same task, so it sees what the editor's keybinding sees). window.__councilSuggestion() tells the same at any time.
 */
function enterProbe() {
  if (window.__councilEnters) return;
  window.__councilEnters = [];
  window.__councilSuggestion = () => {
    for (const widget of document.querySelectorAll('.suggest-widget')) {
      const focused = widget.checkVisibility() && widget.querySelector('.monaco-list-row.focused');
      if (focused) return (focused.getAttribute('aria-label') || focused.textContent || '(a suggestion)').trim().slice(0, 80);
    }
    return '';
  };
  window.addEventListener('keydown', (e) => {
    if (e.key === 'Enter') window.__councilEnters.push({ suggestion: window.__councilSuggestion() });
  }, true);
}

function chatUi(page, log) {
  const input = page.locator(INPUT).first();
  /** When the newest turn typed with send() was submitted (Date.now() just before its Enter); 0 before the first. */
  let sentAt = 0;
  const responses = page.locator(`${ROW} ${RESPONSE}`);
  const requests = page.locator(`${ROW} ${REQUEST}`);

  /** The highest list index of a row holding `selector` (-1: none). Rows are virtualized and not in DOM order. */
  function lastIndex(selector) {
    return page.evaluate(([rowSel, sel]) => {
      const rows = [...document.querySelectorAll(rowSel)].filter((r) => r.querySelector(sel));
      return Math.max(-1, ...rows.map((r) => Number(r.getAttribute('data-index'))));
    }, [ANY_ROW, selector]);
  }
  const row = (index) => page.locator(`${ROW}[data-index="${index}"]`);
  /** The text of the row at `index`, itself or its sticky copy ('' when neither is rendered). */
  const rowText = (index) => page.locator(`${ANY_ROW}[data-index="${index}"]`).first().innerText().then(squash, () => '');

  /** Poll `check` (async; done when it returns a truthy value, which is returned) every 100 ms; throws after `ms`. */
  async function until(what, check, ms) {
    const t0 = Date.now();
    for (;;) {
      const value = await check();
      if (value) return value;
      if (Date.now() - t0 > ms) throw new Error(`${what} (waited ${ms / 1000} s)`);
      await page.waitForTimeout(100);
    }
  }

  /**
   * What the chat input shows, spaces as typed: Monaco renders them as U+00A0 and breaks a long line into view lines
   * (no turn holds a line break).
   */
  const inputText = () => page.locator(`${INPUT} .view-lines`).first().innerText()
    .then((t) => t.replace(/\n/g, '').replace(/\u00a0/g, ' '), () => '');

  /**
   * Type a chat turn (replacing whatever the input holds, e.g. a sticky "@council") and press Enter; returns the
   * row of its response (the row after its request). `typed` runs once the input shows the text, before Enter.
   *
   * What each Enter did is decided from the page, never guessed from a timeout: enterProbe records whether a
   * suggestion was focused at the moment the editor handled the key. Without one, Enter submitted the turn, and this
   * waits for its request row however long it takes to render (a busy machine takes seconds) — a second Enter would
   * send the sticky "@council" alone. With one (e.g. "/skipAll" while its completion is open), Enter either accepted
   * the completion — the input then shows our text completed and the suggestions close, and Enter is pressed again —
   * or, for a completion that changes nothing, submitted: the request row appears or the input is cleared.
   */
  async function send(text, { typed } = {}) {
    const shown = squash(text.replace(/^@council\s+/, '')).slice(0, 30);
    await until('a request was still running before a new turn', async () => !(await page.locator(STOP).count()), 180_000);
    const before = await lastIndex(REQUEST);
    /** The newest request row's index if it is this turn's, else null. */
    const sentRow = async () => {
      const i = await lastIndex(REQUEST);
      return i > before && (await rowText(i)).includes(shown) ? i : null;
    };
    await page.evaluate(enterProbe);
    await input.click({ force: true });
    await until('the chat input did not take the focus', () => input.evaluate((el) => el.contains(document.activeElement)), 10_000);
    await page.keyboard.press('Control+KeyA');
    await page.keyboard.press('Backspace');
    await until('the chat input was not emptied', async () => (await inputText()).trim() === '', 10_000);
    await page.keyboard.type(text, { delay: 8 });
    let current = await until(`the chat input does not show ${JSON.stringify(text)}`, async () => {
      const shows = await inputText();
      return shows === text && shows;
    }, 10_000);
    await until('the Send button stayed disabled', async () => (await page.locator(`${SEND}:not(.disabled)`).count()) > 0, 60_000);
    if (typed) await typed();
    sentAt = Date.now();
    for (let press = 1; ; press++) {
      const seen = await page.evaluate(() => window.__councilEnters.length);
      await page.keyboard.press('Enter');
      const enter = await until('the page did not see the Enter', () => page.evaluate((n) => window.__councilEnters[n], seen), 10_000);
      if (!enter.suggestion) break;
      const outcome = await until(`Enter met the suggestion ${JSON.stringify(enter.suggestion)} and neither accepted it nor sent the turn`, async () => {
        if ((await sentRow()) !== null) return 'sent';
        const now = await inputText();
        if (/^\s*(@council\s*)?$/.test(now)) return 'sent'; // the chat cleared the input: the turn was submitted
        return now !== current && now.startsWith(current.trimEnd()) && !(await page.evaluate(() => window.__councilSuggestion())) ? now : null;
      }, 10_000);
      if (outcome === 'sent') break;
      log(`Enter accepted the suggestion ${JSON.stringify(enter.suggestion)}: ${JSON.stringify(current)} -> ${JSON.stringify(outcome)}`);
      current = outcome;
      if (press === 3) throw new Error(`three Enters only accepted suggestions; the input shows ${JSON.stringify(current)}`);
    }
    // The turn was submitted: its request row renders, after the participant's activation on a busy machine too.
    let index;
    try {
      index = await until(`the turn ${JSON.stringify(text)} was submitted but did not appear in the chat`,
        async () => {
          const found = await sentRow();
          if (found === null) await toBottom(); // a chat scrolled up (a screenshot) does not follow the new turn
          return (found ?? -1) + 1;
        }, 90_000) - 1;
    } catch (err) {
      throw new Error(`${err.message}; the input shows ${JSON.stringify(await inputText())}`);
    }
    log(`sent ${JSON.stringify(text.slice(0, 80))}`);
    return row(index + 1);
  }

  /**
   * Scroll the chat list to its end, as a person does with the wheel: the list renders only the rows in view, and
   * while it is scrolled up VS Code does not follow a new turn down.
   */
  async function toBottom() {
    const box = await page.locator('.interactive-list').first().boundingBox().catch(() => null);
    if (!box) return;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.wheel(0, 20_000);
  }

  /**
   * The list scrolled to its end, so that its newest rows are rendered: a chat scrolled up (a screenshot, a person
   * reading) renders only the rows in view, and VS Code does not always follow new rows down (under load it did not:
   * the newest response was never rendered and the turn looked busy forever).
   */
  async function atEnd() {
    await toBottom();
    await painted(page); // every caller polls: a list still moving is read again on the next round
  }

  /** The row of the newest response (the list scrolled to its end first). */
  async function newest() {
    await atEnd();
    return row(await lastIndex(RESPONSE));
  }

  /** The text of the newest request row ('' when the conversation has none; the list scrolled to its end first). */
  async function lastRequestText() {
    await atEnd();
    const index = await lastIndex(REQUEST);
    return index < 0 ? '' : rowText(index);
  }

  /**
   * Wait until the newest turn is done: no request runs (the Stop button is gone), and its response row is rendered
   * and complete — VS Code drops the row's chat-response-loading class once the response is complete or cancelled
   * and its whole content is rendered, and a Council response always has content.
   */
  async function idle(timeout = 180_000) {
    await until('the chat was still busy', async () => {
      if (await page.locator(STOP).count()) return false;
      await atEnd();
      const [request, response] = [await lastIndex(REQUEST), await lastIndex(RESPONSE)];
      if (response < request) return false;
      const newestResponse = row(response).locator(RESPONSE).first();
      if (await newestResponse.evaluate((el) => el.classList.contains('chat-response-loading')).catch(() => true)) return false;
      return (await newestResponse.locator('.value').first().innerText().catch(() => '')).trim() !== '';
    }, timeout);
  }

  /**
   * Wait until the chat has selected the model `name` (VS Code calls no participant without one): the chat input's
   * accessible name says which model it uses — also in Restricted Mode, where the model picker only says
   * "unavailable".
   */
  async function modelSelected(name, timeout = 90_000) {
    await until(`the chat did not select the model "${name}"`, async () =>
      (await page.locator(`${INPUT} [aria-label*="${name}"]`).count()) > 0, timeout);
  }

  /** Wait for `text` (string or RegExp) in `locator` (default: the newest response, looked up until it shows). */
  async function see(text, locator, timeout = 120_000) {
    if (locator) {
      await locator.filter({ hasText: text }).first().waitFor({ timeout });
      return;
    }
    const t0 = Date.now();
    while (!(await (await newest()).filter({ hasText: text }).count())) {
      if (Date.now() - t0 > timeout) throw new Error(`${text} did not appear in the newest response`);
      await page.waitForTimeout(250);
    }
  }

  /** Click a button with this label: one under the newest response, else a followup above the input. */
  async function click(label, timeout = 30_000) {
    const exact = typeof label === 'string' ? new RegExp(`^\\s*${label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*$`) : label;
    const t0 = Date.now();
    for (;;) {
      const inResponse = (await newest()).locator('.monaco-button', { hasText: exact });
      const followup = page.locator('.interactive-followup-reply, .interactive-followup-command', { hasText: exact });
      for (const button of [inResponse, followup]) {
        if (await button.count()) {
          await button.last().click();
          log(`clicked ${label}`);
          return;
        }
      }
      if (Date.now() - t0 > timeout) throw new Error(`no button "${label}" under the newest response or among the followups`);
      await page.waitForTimeout(250);
    }
  }

  /** Press the chat's Stop button while a request runs. */
  async function stop() {
    const button = page.locator(STOP).first();
    await button.waitFor({ timeout: 30_000 });
    await button.click();
    log('pressed Stop');
  }

  /** A new, empty chat conversation (so each scenario reads only its own turns). */
  async function newChat() {
    // The Chat view's own "New Chat" action (the palette's "Chat: New Chat" may open a chat editor instead), named
    // exactly: "New Chat" or "New Chat (<its keybinding>)", not "New Chat Editor" or another "New Chat…".
    const named = ['[aria-label="New Chat"]', '[aria-label^="New Chat ("]'];
    const action = page.locator(['.part.auxiliarybar', '.part.sidebar'].flatMap((part) => named.map((n) => `${part} a.action-label${n}`)).join(', ')).first();
    if (await action.count()) {
      await action.click();
    } else {
      await input.click({ force: true });
      await page.keyboard.press('Control+KeyL');
    }
    await input.waitFor({ state: 'visible', timeout: 30_000 });
    // The old conversation leaves the view a moment later (seconds on a busy 2-core machine): wait for it to go.
    const t0 = Date.now();
    // Any row of it counts, a sticky copy too: a long answer can leave no request row but that copy in view.
    const old = page.locator(`${ANY_ROW} .interactive-item-container`);
    let left = await old.count();
    while (left !== 0 && Date.now() - t0 < 20_000) {
      await page.waitForTimeout(250);
      left = await old.count();
    }
    if (left !== 0) throw new Error(`New Chat left ${left} rows of the old conversation on screen after 20 s`);
    log(`new chat (${Date.now() - t0} ms)`);
  }

  /** The Chat view open (it is, after the start; else through the palette), its input visible. */
  async function open() {
    try {
      await input.waitFor({ state: 'visible', timeout: 10_000 });
    } catch {
      await palette('Chat: Open Chat');
      await input.waitFor({ state: 'visible', timeout: 30_000 });
    }
  }

  /**
   * Run a palette command by its exact title: type it into the Command Palette, wait until the list (it filters as
   * it is typed) shows the entry whose label is exactly that title — not one that only contains it, e.g. "Council
   * Test: Invoke council_consult over MCP" for "Council Test: Invoke council_consult", which the palette lists first
   * once it was used recently — make that entry the focused one with the arrow keys, then Enter, and wait for the
   * palette to close.
   */
  async function palette(title) {
    const quickInput = page.locator('.quick-input-widget');
    await page.keyboard.press('F1');
    await quickInput.waitFor({ state: 'visible', timeout: 30_000 });
    await page.keyboard.type(title, { delay: 10 });
    /** The entries' labels in list order, and which one has the focus (-1: none). */
    const entries = () => quickInput.locator('.quick-input-list .monaco-list-row').evaluateAll((rows) => {
      const shown = rows.map((r) => ({
        index: Number(r.getAttribute('data-index')),
        label: (r.querySelector('.label-name')?.textContent || '').replace(/\s+/g, ' ').trim(),
        focused: r.classList.contains('focused'),
      })).sort((a, b) => a.index - b.index);
      return { labels: shown.map((e) => e.label), focus: shown.findIndex((e) => e.focused) };
    });
    let last = { labels: [], focus: -1 };
    await until(`the Command Palette does not offer "${title}"`, async () => {
      last = await entries();
      const want = last.labels.indexOf(title);
      if (want < 0 || last.focus < 0) return false;
      if (want === last.focus) return true;
      await page.keyboard.press(want > last.focus ? 'ArrowDown' : 'ArrowUp');
      return false;
    }, 30_000).catch((err) => {
      throw new Error(`${err.message}; it lists ${JSON.stringify(last.labels.slice(0, 8))}`);
    });
    await page.keyboard.press('Enter');
    await quickInput.waitFor({ state: 'hidden', timeout: 30_000 });
    log(`palette: ${title}`);
  }

  /** The text of every response of this conversation. */
  async function transcript() {
    return (await responses.allInnerTexts()).join('\n---\n');
  }

  return {
    input, responses, requests, send, newest, lastRequestText, idle, see, click, stop, newChat, open, palette,
    modelSelected, transcript, atEnd, sentAt: () => sentAt,
  };
}

/**
 * Two animation frames of the page: what a wheel or a click changed has been laid out and painted (the list renders
 * the rows now in view on the scroll event). For screenshots, and for a poll's next read.
 */
function painted(page) {
  return page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))).catch(() => undefined);
}

/** The headless Chromium the drivers use (CHROMIUM: another binary). */
function launchBrowser() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
  });
}

/** Kill the sidecar of this e2e run with SIGKILL (matched by the run's extension folder); returns the pids. */
function killSidecar(runDir) {
  let out = '';
  try {
    out = execFileSync('pgrep', ['-f', `council serve.*${runDir}`], { encoding: 'utf8' });
  } catch {
    return [];
  }
  const pids = out.split('\n').map((s) => Number(s.trim())).filter(Boolean);
  for (const pid of pids) process.kill(pid, 'SIGKILL');
  return pids;
}

module.exports = { chatUi, killSidecar, launchBrowser, painted };
