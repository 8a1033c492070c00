// What a person does in the real VS Code Chat view, as functions for the e2e scenarios: type a turn, wait for its
// response to finish, click a button or a followup, press Stop, start a new chat, reload the window, kill the
// sidecar process. Selectors are VS Code 1.139's (code-server 4.139.1 is pinned).
'use strict';
const { execFileSync } = require('child_process');

const RESPONSE = '.interactive-item-container.interactive-response';
const REQUEST = '.interactive-item-container.interactive-request';
const INPUT = '.interactive-input-part .interactive-input-editor .monaco-editor';
const STOP = '.interactive-input-part .codicon-stop-circle';

function chatUi(page, log) {
  const input = page.locator(INPUT).first();
  const responses = page.locator(RESPONSE);
  const requests = page.locator(REQUEST);

  /** Type a chat turn and press Enter; returns the locator of its response. */
  async function send(text) {
    const before = await requests.count();
    await input.click({ force: true });
    await page.waitForTimeout(200);
    await page.keyboard.type(text, { delay: 8 });
    await page.waitForTimeout(300);
    await page.keyboard.press('Enter');
    await requests.nth(before).waitFor({ timeout: 15_000 });
    log(`sent ${JSON.stringify(text.slice(0, 80))}`);
    return responses.nth(before);
  }

  /** The response of the last request. */
  function last() {
    return responses.last();
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

  /** Wait for `text` (string or RegExp) in `locator` (default: the last response). */
  async function see(text, locator = last(), timeout = 120_000) {
    await locator.filter({ hasText: text }).first().waitFor({ timeout });
  }

  /** Click a button (a markdown-part button or a followup) with this label in the last response area. */
  async function click(label, timeout = 30_000) {
    const exact = typeof label === 'string' ? new RegExp(`^\\s*${label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*$`) : label;
    const button = page.locator(`${RESPONSE} .monaco-button, .interactive-followup-reply, .interactive-followup-command`, { hasText: exact }).last();
    await button.waitFor({ timeout });
    await button.click();
    log(`clicked ${label}`);
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
    await page.waitForTimeout(800);
    await input.waitFor({ state: 'visible', timeout: 30_000 });
    const left = await requests.count();
    if (left !== 0) throw new Error(`New Chat left ${left} requests on screen`);
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

  return { input, responses, requests, send, last, idle, see, click, stop, newChat, palette, transcript };
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

module.exports = { chatUi, killSidecar };
