/** Edit Personas is draft-gated: the draft says what would be written where; nothing is written without a yes. */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { beforeEach, describe, it } from 'node:test';
import * as vscode from 'vscode';
import { PendingAnswers } from '../../src/buttons';
import { SessionTracker, editPersonas } from '../../src/commands';
import { applyPersonaDraft, describeDraft, draftPersonaCopy } from '../../src/personaDraft';
import { FakeClient } from './helpers';

const mock = (vscode as any).__mock;

function layout() {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'council-personas-'));
  const ext = path.join(root, 'ext');
  fs.mkdirSync(path.join(ext, 'personas'), { recursive: true });
  const councils: Record<string, string> = { 'devils-advocate': '"business", "engineering", "review"', 'ops-architect': '"business"', 'culture-lead': '"business"', 'risk-officer': '"review"' };
  for (const [id, c] of Object.entries(councils)) {
    const name = id.split('-').map((w) => w[0].toUpperCase() + w.slice(1)).join(' ');
    fs.writeFileSync(path.join(ext, 'personas', `${id}.toml`), `id = "${id}"\nname = "${name}"\ncouncils = [${c}]\ndescription = "What the \\"${name}\\" weighs."\n`);
  }
  fs.writeFileSync(path.join(ext, 'personas', 'README.txt'), 'not a persona');
  const ws = path.join(root, 'ws');
  fs.mkdirSync(ws);
  return { ext, ws, target: path.join(ws, '.council', 'personas') };
}

describe('persona draft', () => {
  it('lists what would be written and what is kept, and writes only the new files', () => {
    const { ext, target } = layout();
    fs.mkdirSync(target, { recursive: true });
    fs.writeFileSync(path.join(target, 'ops-architect.toml'), 'edited by me\n');
    const draft = draftPersonaCopy(path.join(ext, 'personas'), target);
    assert.deepEqual(draft.toWrite, ['culture-lead.toml', 'devils-advocate.toml', 'risk-officer.toml']);
    assert.deepEqual(draft.kept, ['ops-architect.toml']);
    const { message, detail } = describeDraft(draft, '.council/personas');
    assert.equal(message, 'Copy 3 persona files into .council/personas?');
    assert.match(detail, new RegExp(`write these files into ${target.replace(/[/\\]/g, '.')}`));
    assert.match(detail, /\+ culture-lead\.toml\n {2}\+ devils-advocate\.toml/);
    assert.match(detail, /left as they are: ops-architect\.toml/);
    assert.deepEqual(applyPersonaDraft(draft, path.join(ext, 'personas')), ['culture-lead.toml', 'devils-advocate.toml', 'risk-officer.toml']);
    assert.equal(fs.readFileSync(path.join(target, 'ops-architect.toml'), 'utf8'), 'edited by me\n');
    assert.deepEqual(applyPersonaDraft(draft, path.join(ext, 'personas')), [], 'applying the same draft twice writes nothing');
  });

  it('says where the files really go when .council is a link out of the workspace', () => {
    const { ext, ws, target } = layout();
    const elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), 'council-elsewhere-'));
    fs.symlinkSync(elsewhere, path.join(ws, '.council'));
    const draft = draftPersonaCopy(path.join(ext, 'personas'), target);
    const real = path.join(fs.realpathSync(elsewhere), 'personas');
    assert.equal(draft.linkedTo, real);
    assert.match(describeDraft(draft, '.council/personas').detail, new RegExp(`^Council will write these files into ${real.replace(/[/\\]/g, '.')} \\(.*is linked there\\):`));
    assert.equal(draftPersonaCopy(path.join(ext, 'personas'), path.join(layout().ws, '.council', 'personas')).linkedTo, undefined);
  });
});

describe('Council: Edit Personas', () => {
  beforeEach(() => mock.reset());
  const deps = (ext: string, restarts: string[]) => ({
    client: new FakeClient(),
    pending: new PendingAnswers(),
    sessions: new SessionTracker(),
    outputChannel: {} as vscode.OutputChannel,
    extensionPath: ext,
    restartSidecar: async () => {
      restarts.push('restart');
    },
  });

  const pickNames = (names: string[]) => (items: any[]) => items.filter((i) => names.includes(i.label));

  it('offers the chat advisors, then the review-only roles under their own heading', async () => {
    const { ext, ws, target } = layout();
    fs.mkdirSync(target, { recursive: true });
    fs.writeFileSync(path.join(target, 'ops-architect.toml'), 'edited by me\n');
    (vscode.workspace as any).workspaceFolders = [{ uri: vscode.Uri.file(ws), name: 'ws', index: 0 }];
    await editPersonas(deps(ext, []));
    const [{ items, options }] = mock.quickPicks;
    assert.equal(options.canPickMany, true);
    assert.deepEqual(items.map((i: any) => i.label), ['Chat advisors', 'Culture Lead', 'Devils Advocate', 'Ops Architect', 'Review-only roles (review mode)', 'Risk Officer']);
    assert.equal(items[0].kind, vscode.QuickPickItemKind.Separator);
    assert.equal(items[4].kind, vscode.QuickPickItemKind.Separator);
    assert.match(items[5].description, /^review-only role/);
    assert.equal(items[1].description, 'business council');
    assert.match(items[3].description, /already in /);
    assert.equal(items[1].detail, 'What the "Culture Lead" weighs.');
    assert.equal(mock.messages.length, 0, 'dismissing the picker asks nothing and writes nothing');
    assert.deepEqual(fs.readdirSync(target), ['ops-architect.toml']);
  });

  it('copies only the picked persona, after a modal draft; dismissing the draft writes nothing', async () => {
    const { ext, ws, target } = layout();
    (vscode.workspace as any).workspaceFolders = [{ uri: vscode.Uri.file(ws), name: 'ws', index: 0 }];
    mock.quickPick = pickNames(['Culture Lead']);
    const restarts: string[] = [];
    await editPersonas(deps(ext, restarts));
    const ask = mock.messages[0];
    assert.equal(ask.options?.modal, true);
    assert.match(ask.text, /^Copy 1 persona file into .*\.council\/personas\?$/);
    assert.match(ask.options?.detail ?? '', /\+ culture-lead\.toml/);
    assert.doesNotMatch(ask.options?.detail ?? '', /devils-advocate|risk-officer|ops-architect/);
    assert.deepEqual(ask.items, ['Copy 1 File']);
    assert.equal(fs.existsSync(target), false);
    assert.deepEqual(restarts, [], 'the session is never dropped by a restart');
  });

  it('writes the picked files after the yes, opens them, and keeps the sidecar (and its sessions) running', async () => {
    const { ext, ws, target } = layout();
    (vscode.workspace as any).workspaceFolders = [{ uri: vscode.Uri.file(ws), name: 'ws', index: 0 }];
    mock.quickPick = pickNames(['Ops Architect', 'Risk Officer']);
    mock.reply = (_text: string, items: string[]) => items.find((i) => i.startsWith('Copy'));
    const restarts: string[] = [];
    await editPersonas(deps(ext, restarts));
    assert.deepEqual(fs.readdirSync(target).sort(), ['ops-architect.toml', 'risk-officer.toml']);
    assert.deepEqual(restarts, []);
    assert.ok(mock.executed.some((e: any) => e.command === 'revealInExplorer'));
    // Both are there now: picking them again opens them with nothing to confirm.
    mock.messages.length = 0;
    await editPersonas(deps(ext, restarts));
    assert.equal(mock.messages.filter((m: any) => m.options?.modal).length, 0);
    assert.deepEqual(fs.readdirSync(target).sort(), ['ops-architect.toml', 'risk-officer.toml']);
  });
});
