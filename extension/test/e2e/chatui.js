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
const STOP = '.interactive-input-part .codicon-stop-circle';

const squash = (s) => s.replace(/\s+/g, ' ').trim();

function chatUi(page, log) {
  const input = page.locator(INPUT).first();
  const responses = page.locator(RESPONSE);
  const requests = page.locator(REQUEST);

  /** The highest list index of a row holding `selector` (-1: none). Rows are virtualized and not in DOM order. */
  function lastIndex(selector) {
    return page.evaluate((sel) => {
      const rows = [...document.querySelectorAll('.interactive-list .monaco-list-row')].filter((r) => r.querySelector(sel));
      return Math.max(-1, ...rows.map((r) => Number(r.getAttribute('data-index'))));
    }, selector);
  }
  const row = (index) => page.locator(`.interactive-list .monaco-list-row[data-index="${index}"]`);

  /**
   * Type a chat turn (replacing whatever the input holds, e.g. a sticky "@council") and press Enter; returns the
   * row of its response (the row after its request).
   */
  async function send(text) {
    const before = await lastIndex(REQUEST);
    await input.click({ force: true });
    await page.waitForTimeout(200);
    await page.keyboard.press('Control+KeyA');
    await page.keyboard.press('Backspace');
    await page.keyboard.type(text, { delay: 8 });
    await page.waitForTimeout(300);
    await page.keyboard.press('Enter');
    const want = squash(text.replace(/^@council\s+/, '')).slice(0, 30);
    const t0 = Date.now();
    let again = true; // an Enter that only accepted a slash-command suggestion: press it once more
    for (;;) {
      if (again && Date.now() - t0 > 1500) {
        again = false;
        if ((await lastIndex(REQUEST)) === before) await page.keyboard.press('Enter');
      }
      const index = await lastIndex(REQUEST);
      if (index > before && squash(await row(index).innerText().catch(() => '')).includes(want)) {
        log(`sent ${JSON.stringify(text.slice(0, 80))}`);
        return row(index + 1);
      }
      if (Date.now() - t0 > 15_000) throw new Error(`the turn ${JSON.stringify(text)} did not appear in the chat`);
      await page.waitForTimeout(150);
    }
  }

  /** The row of the newest response. */
  async function newest() {
    return row(await lastIndex(RESPONSE));
  }

  /** Wait until no request runs (the Stop button is gone), then a little for the last parts to render. */
  async function idle(timeout = 180_000) {
    const t0 = Date.now();
    await page.waitForTimeout(500);
    while (await page.locator(STOP).count()) {
      if (Date.now() - t0 > timeout) throw new Error(`the chat was still busy after ${timeout / 1000}s`);
      await page.waitForTimeout(250);
    }
    await page.waitForTimeout(400);
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
    // The Chat view's own "New Chat" action (the palette's "Chat: New Chat" may open a chat editor instead).
    const action = page.locator('.part.auxiliarybar a.action-label[aria-label^="New Chat"], .part.sidebar a.action-label[aria-label^="New Chat"]').first();
    if (await action.count()) {
      await action.click();
    } else {
      await input.click({ force: true });
      await page.keyboard.press('Control+KeyL');
    }
    await input.waitFor({ state: 'visible', timeout: 30_000 });
    // The old conversation leaves the view a moment later (seconds on a busy 2-core machine): wait for it to go.
    const t0 = Date.now();
    let left = await requests.count();
    while (left !== 0 && Date.now() - t0 < 20_000) {
      await page.waitForTimeout(250);
      left = await requests.count();
    }
    if (left !== 0) throw new Error(`New Chat left ${left} requests on screen after 20 s`);
    await page.waitForTimeout(300);
    log(`new chat (${Date.now() - t0} ms)`);
  }

  /** The Chat view open (it is, after the start; else through the palette), its input visible. */
  async function open() {
    try {
      await input.waitFor({ state: 'visible', timeout: 10_000 });
    } catch {
      await page.keyboard.press('F1');
      await page.keyboard.type('Chat: Open Chat');
      await page.waitForTimeout(800);
      await page.keyboard.press('Enter');
      await input.waitFor({ state: 'visible', timeout: 30_000 });
    }
  }

  /** Run a palette command by its title. */
  async function palette(title) {
    await page.keyboard.press('F1');
    await page.waitForTimeout(300);
    await page.keyboard.type(title, { delay: 10 });
    await page.waitForTimeout(600);
    await page.keyboard.press('Enter');
    log(`palette: ${title}`);
  }

  /** The text of every response of this conversation. */
  async function transcript() {
    return (await responses.allInnerTexts()).join('\n---\n');
  }

  return { input, responses, requests, send, newest, idle, see, click, stop, newChat, open, palette, transcript };
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

module.exports = { chatUi, killSidecar, launchBrowser };
