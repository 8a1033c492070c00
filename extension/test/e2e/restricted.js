// Restricted Mode in the real VS Code (run.sh starts code-server with workspace trust on, on a folder never trusted).
// The folder's own settings name another interpreter (a script that leaves a marker) and an API key variable, and
// it holds an anyio.py that leaves a marker when imported. A person asks @council a question and gets the first
// clarifying question; `/review` explains that it does not run git here and offers Manage Workspace Trust; neither
// marker exists and the sidecar was started without the workspace. Then the person trusts the folder: the sidecar
// restarts with it. Usage: node restricted.js <url> <shots-dir>; env COUNCIL_E2E_RUN, COUNCIL_E2E_UNTRUSTED.
'use strict';
const fs = require('fs');
const path = require('path');
const { chatUi, launchBrowser } = require('./chatui');

const [url, shots] = process.argv.slice(2);
const RUN = process.env.COUNCIL_E2E_RUN;
const FOLDER = process.env.COUNCIL_E2E_UNTRUSTED;
const MARKERS = ['WORKSPACE_MODULE_RAN', 'WORKSPACE_INTERPRETER_RAN'].map((m) => path.join(RUN, m));
const LOG = path.join(RUN, 'council.log');
const MODEL = process.env.COUNCIL_E2E_MODEL || 'Council Test Model';
const t0 = Date.now();
const say = (m) => console.log(`[e2e] ${m}`);
const logFrom = fs.existsSync(LOG) ? fs.statSync(LOG).size : 0;
const MODELS_LOG = path.join(RUN, 'fake-lm.log');
const modelsLogFrom = fs.existsSync(MODELS_LOG) ? fs.statSync(MODELS_LOG).size : 0;

/** The Council output channel's lines written since this driver started. */
const newLog = () => fs.readFileSync(LOG, 'utf8').slice(logFrom).split('\n');
/** The sidecar launches logged since this driver started ("starting sidecar: <command line>"). */
const launches = () => newLog().filter((l) => l.includes('starting sidecar: '));

async function until(what, check, ms = 60_000) {
  const start = Date.now();
  while (!check()) {
    if (Date.now() - start > ms) throw new Error(`timed out after ${ms / 1000}s: ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

(async () => {
  const browser = await launchBrowser();
  const page = await browser.newPage({ viewport: { width: 1500, height: 1000 } });
  const shot = (name) => page.screenshot({ path: path.join(shots, `restricted-${name}.png`) }).catch(() => undefined);
  let step = 'workbench';
  try {
    await page.goto(`${url}?folder=${encodeURIComponent(FOLDER)}`); // without ?folder= code-server reopens the last folder
    await page.waitForSelector('.monaco-workbench .statusbar', { timeout: 90_000 });
    await page.locator('.statusbar-item', { hasText: 'Restricted Mode' }).first().waitFor({ timeout: 30_000 });
    const title = await page.title();
    if (!title.includes(path.basename(FOLDER))) throw new Error(`the window shows another folder: ${title}`);
    say(`the window is in Restricted Mode on ${path.basename(FOLDER)}`);

    step = 'a question in Restricted Mode';
    const ui = chatUi(page, (m) => say(`  ${m}`));
    await ui.open();
    await ui.modelSelected(MODEL);
    // The window shows the remembered model before the extension host has started the extensions; "@council …" sent
    // then is no known participant yet and goes to VS Code's default agent. Wait for Council and the test models.
    await until('Council and the test model provider activated', () => newLog().some((l) => /\[info\] Council \S+ on /.test(l))
      && /\[fake-lm\] activate /.test(fs.readFileSync(MODELS_LOG, 'utf8').slice(modelsLogFrom)), 90_000);
    const asked = await ui.send('@council Should we split our monolith into services this quarter?');
    await ui.see('How large is the engineering team', asked);
    await ui.idle();
    await shot('question');

    step = '/review in Restricted Mode';
    const review = await ui.send('@council /review');
    await ui.see(/Restricted Mode/, review, 30_000);
    await ui.idle();
    const text = await review.innerText();
    if (!/does not run git/.test(text)) throw new Error(`unexpected /review reply: ${text.slice(0, 300)}`);
    await shot('review');

    step = 'nothing of the folder ran';
    for (const m of MARKERS) if (fs.existsSync(m)) throw new Error(`${path.basename(m)}: the untrusted folder's code ran`);
    const [first] = launches();
    if (!first) throw new Error('no sidecar launch in the Council output channel');
    if (first.includes('--workspace') || first.includes(FOLDER)) throw new Error(`the sidecar got the untrusted folder: ${first}`);
    say(`sidecar started without the folder: ${first.replace(/^.*starting sidecar: /, '')}`);

    step = 'trusting the folder restarts the sidecar with it';
    await ui.click('Manage Workspace Trust');
    const trust = page.locator('.workspace-trust-editor .monaco-button', { hasText: /^\s*Trust\s*$/ }).first();
    await trust.waitFor({ timeout: 30_000 });
    await trust.click();
    await until('a sidecar launch with the folder', () => launches().some((l) => l.includes(`--workspace ${FOLDER}`)));
    say('trusted: the sidecar restarted with --workspace');
    await shot('trusted');
    say(`RESULT: PASS in ${((Date.now() - t0) / 1000).toFixed(1)}s`);
  } catch (err) {
    say(`FAILED at step "${step}": ${err && err.message ? err.message.split('\n')[0] : err}`);
    await shot('failure');
    process.exitCode = 1;
  }
  await browser.close();
})();
