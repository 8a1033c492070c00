import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { ResponseError } from 'vscode-jsonrpc';
import * as vscode from 'vscode';
import { PendingAnswers } from '../../src/buttons';
import { GitProblem, readChanges, runGit } from '../../src/git';
import type { CouncilChatResult } from '../../src/participant';
import { createHandler } from '../../src/participant';
import { buildReviewRequest, newRequestId, parseReviewPrompt, reviewFolder, reviewParams } from '../../src/review';
import { readSettings } from '../../src/settings';
import { TurnRegistry } from '../../src/turns';
import { FakeStream } from './fixtures';
import type { Call } from './helpers';
import { FakeClient, chatContext, chatRequest, fakeModel } from './helpers';

const mock = (vscode as unknown as { __mock: any }).__mock;
const mockWindow = vscode.window as unknown as { activeTextEditor: unknown };
const mockWorkspace = vscode.workspace as unknown as { workspaceFolders: unknown };
const REQUEST_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=Test', '-c', 'user.email=test@example.com', '-c', 'commit.gpgsign=false', '-c', 'init.defaultBranch=main', ...args], { cwd, encoding: 'utf8' });
}

/** A repository with one commit (fees.py, README.md); `dirty` edits fees.py and adds an untracked notes.txt. */
function repo(dirty = true): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'council-review-'));
  git(dir, 'init', '-q');
  fs.writeFileSync(path.join(dir, 'fees.py'), 'def fee(x):\n    return 0.001 * x\n');
  fs.writeFileSync(path.join(dir, 'README.md'), '# Fees\n');
  git(dir, 'add', '.');
  git(dir, 'commit', '-q', '-m', 'first');
  if (dirty) {
    fs.writeFileSync(path.join(dir, 'fees.py'), 'def fee(x, rate=0.001):\n    return rate * x\n');
    fs.writeFileSync(path.join(dir, 'notes.txt'), 'scratch\n');
  }
  return dir;
}

const DECISION_MD = '## Council review: ❌ REJECT\n\n### Blocking issues\n\n- Code Reviewer: no test covers the new rate.\n';

function reviewResult(requestId: string) {
  return {
    decision: { request_id: requestId, final_outcome: 'REJECT', audit: { rule: 'blocking_issues' } },
    markdown: DECISION_MD,
    compactMarkdown: '**Council review: REJECT**',
  };
}

function setup(script: (call: Call, turns: TurnRegistry<vscode.LanguageModelChat>) => unknown) {
  const turns = new TurnRegistry<vscode.LanguageModelChat>();
  const client = new FakeClient((call) => script(call, turns));
  const settings = () => readSettings({ get: () => undefined });
  const handler = createHandler({ client, turns, pending: new PendingAnswers(), settings });
  return { client, turns, handler };
}

async function run(handler: vscode.ChatRequestHandler, prompt: string, token = new vscode.CancellationTokenSource().token, model: any = fakeModel()) {
  const stream = new FakeStream();
  const result = (await handler(chatRequest(prompt, { command: 'review', model }), chatContext(), stream as unknown as vscode.ChatResponseStream, token)) as CouncilChatResult;
  return { stream, result };
}

describe('/review: the turn text', () => {
  it('reads the leading words as the changes and the change type, the rest as the summary', () => {
    assert.deepEqual(parseReviewPrompt(''), { staged: false, changeType: 'CODE_REFACTOR', summary: '' });
    assert.deepEqual(parseReviewPrompt('staged'), { staged: true, changeType: 'CODE_REFACTOR', summary: '' });
    assert.deepEqual(parseReviewPrompt('config'), { staged: false, changeType: 'UPDATE_CONFIG', summary: '' });
    assert.deepEqual(parseReviewPrompt('Staged config: Raise the leverage cap\nto 3x'), { staged: true, changeType: 'UPDATE_CONFIG', summary: 'Raise the leverage cap\nto 3x' });
    assert.deepEqual(parseReviewPrompt('--cached spec'), { staged: true, changeType: 'FREEZE_SPEC', summary: '' });
    assert.deepEqual(parseReviewPrompt('DECLARE_PASS v2.1 passed OOS'), { staged: false, changeType: 'DECLARE_PASS', summary: 'v2.1 passed OOS' });
    // Only leading words: a summary that mentions "config" or "staged" later keeps them as words.
    assert.deepEqual(parseReviewPrompt('Move the staged config loader'), { staged: false, changeType: 'CODE_REFACTOR', summary: 'Move the staged config loader' });
  });

  it('request ids are unique and valid seed ids', () => {
    const now = new Date('2026-01-05T09:30:00.123Z');
    const a = newRequestId(now);
    assert.match(a, /^vscode-review-20260105T093000Z-[0-9a-f]{8}$/);
    assert.match(a, REQUEST_ID);
    assert.notEqual(a, newRequestId(now));
  });
});

const extras = (r: { context: unknown }) => r.context as Record<string, unknown>;

describe('/review: the CouncilRequest', () => {
  const changes = { root: '/r', staged: false, diff: 'diff --git a/x b/x\n+1\n', files: ['x', 'src/y.py'], truncated: false, untracked: 2 };

  it('carries the diff, its files, the change type and a summary made from the files when none was given', () => {
    const now = new Date('2026-01-05T09:30:00Z');
    const r = buildReviewRequest(parseReviewPrompt(''), changes, 'ws', now);
    assert.match(r.request_id, REQUEST_ID);
    assert.equal(r.timestamp, '2026-01-05T09:30:00.000Z');
    assert.equal(r.change_type, 'CODE_REFACTOR');
    assert.deepEqual(r.artifacts, { diff_content: changes.diff });
    assert.deepEqual(r.context.files_changed, ['x', 'src/y.py']);
    assert.equal(r.context.summary, 'Uncommitted changes in ws (CODE_REFACTOR): 2 file(s) changed: x, src/y.py.');
    assert.equal(extras(r).source, 'git diff HEAD');
    assert.equal(extras(r).untracked_files_not_in_diff, 2);
  });

  it('keeps the person’s summary and says when the diff was cut', () => {
    const r = buildReviewRequest(parseReviewPrompt('staged config Raise the cap'), { ...changes, staged: true, truncated: true, untracked: 0 }, 'ws');
    assert.equal(r.change_type, 'UPDATE_CONFIG');
    assert.equal(r.context.summary, 'Raise the cap');
    assert.equal(extras(r).source, 'git diff --cached');
    assert.match(String(extras(r).diff_cut), /only the first 22 characters/);
    assert.equal('untracked_files_not_in_diff' in r.context, false);
  });

  it('lends the chat model to the roles only when there is one', () => {
    const r = buildReviewRequest(parseReviewPrompt(''), changes, 'ws');
    assert.deepEqual(reviewParams(r, undefined), { request: r, client: { completion: false } });
    assert.deepEqual(reviewParams(r, { name: 'GPT' }), { request: r, provider: 'client', model: 'GPT', client: { completion: true, completionModel: 'GPT' } });
  });
});

describe('/review: git', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
  });

  it('reads the working tree against HEAD, or only what is staged', async () => {
    const dir = repo();
    dirs.push(dir);
    const tree = await readChanges(dir, false);
    assert.equal(tree.root, fs.realpathSync(dir));
    assert.deepEqual(tree.files, ['fees.py']);
    assert.match(tree.diff, /^diff --git a\/fees.py b\/fees.py/);
    assert.match(tree.diff, /\+def fee\(x, rate=0.001\):/);
    assert.equal(tree.untracked, 1);
    assert.equal(tree.truncated, false);
    const none = await readChanges(dir, true);
    assert.equal(none.diff, '');
    git(dir, 'add', 'fees.py');
    const staged = await readChanges(dir, true);
    assert.deepEqual(staged.files, ['fees.py']);
    assert.equal(staged.diff, tree.diff);
    assert.equal(staged.untracked, 0);
  });

  it('a repository without commits is diffed against the empty tree', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'council-review-'));
    dirs.push(dir);
    git(dir, 'init', '-q');
    fs.writeFileSync(path.join(dir, 'a.txt'), 'hello\n');
    git(dir, 'add', 'a.txt');
    const changes = await readChanges(dir, false);
    assert.deepEqual(changes.files, ['a.txt']);
    assert.match(changes.diff, /new file mode/);
  });

  it('names what went wrong: no repository, no git, too slow; a large output is cut, not an error', async () => {
    const plain = fs.mkdtempSync(path.join(os.tmpdir(), 'council-plain-'));
    dirs.push(plain);
    await assert.rejects(readChanges(plain, false), (e: GitProblem) => e instanceof GitProblem && e.reason === 'not_a_repo');
    await assert.rejects(runGit(['status'], plain, { maxBytes: 100, bin: path.join(plain, 'no-such-git') }), (e: GitProblem) => e.reason === 'no_git');
    await assert.rejects(runGit(['5'], plain, { maxBytes: 100, bin: 'sleep', timeoutMs: 200 }), (e: GitProblem) => e.reason === 'timeout');
    const big = await runGit([], plain, { maxBytes: 10_000, bin: 'yes' });
    assert.equal(big.truncated, true);
    assert.ok(big.stdout.length > 0 && big.stdout.length <= 10_000);
  });
});

describe('@council /review', () => {
  const dirs: string[] = [];
  beforeEach(() => {
    mock.reset();
    mockWindow.activeTextEditor = undefined;
  });
  afterEach(() => {
    mockWorkspace.workspaceFolders = undefined;
    for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
  });
  function open(...folders: string[]): void {
    dirs.push(...folders);
    mockWorkspace.workspaceFolders = folders.map((f, index) => ({ uri: vscode.Uri.file(f), name: path.basename(f), index }));
  }

  it('reviews the working tree: sends the request, shows the progress, prints the sidecar’s decision', async () => {
    open(repo());
    const model = fakeModel();
    const { handler, client } = setup((call, turns) => {
      const id = `review:${call.params.request.request_id}`;
      assert.equal(turns.forSession(id)?.handlers.model, model); // council/complete for the roles finds the chat model
      turns.dispatch({ sessionId: id, seq: 1, at: '2026-01-05T09:30:00Z', type: 'progress', message: 'Review panel for CODE_REFACTOR: Code Reviewer.', markdown: '' } as any);
      return reviewResult(call.params.request.request_id);
    });
    const token = new vscode.CancellationTokenSource().token;
    const { stream, result } = await run(handler, '', token, model);
    const [call] = client.callsTo('council/review');
    const request = call.params.request;
    assert.equal(request.change_type, 'CODE_REFACTOR');
    assert.deepEqual(request.context.files_changed, ['fees.py']);
    assert.match(request.artifacts.diff_content, /\+def fee\(x, rate=0.001\):/);
    assert.equal(request.proposer, 'VS Code @council /review');
    assert.deepEqual(call.params.client, { completion: true, completionModel: 'Fake Model' });
    assert.equal(call.token, token); // Stop sends $/cancelRequest
    assert.deepEqual(stream.progressLines, ['Reading the uncommitted changes…', 'Review panel for CODE_REFACTOR: Code Reviewer.']);
    assert.match(stream.text, /1 untracked file\(s\) are not part of the diff/);
    // The note comes after the last progress line (VS Code folds what precedes it into "Completed N steps").
    const note = stream.parts.findIndex((p) => p.kind === 'markdown' && /untracked/.test(p.value));
    assert.ok(note > stream.parts.map((p) => p.kind).lastIndexOf('progress'));
    assert.ok(stream.text.endsWith(DECISION_MD), 'the decision is printed as the sidecar wrote it');
    assert.deepEqual(result, {});
    assert.equal(client.callsTo('council/turn').length, 0);
  });

  it('/review staged config reviews the staged changes as a configuration change, in the active editor’s folder', async () => {
    const other = repo(false);
    const dir = repo();
    git(dir, 'add', 'fees.py');
    open(other, dir);
    mockWindow.activeTextEditor = { document: { uri: vscode.Uri.file(path.join(dir, 'fees.py')) } };
    assert.equal(reviewFolder()?.uri.fsPath, dir);
    const { handler, client } = setup((call) => reviewResult(call.params.request.request_id));
    const { stream } = await run(handler, 'staged config Make the fee rate a parameter');
    const request = client.callsTo('council/review')[0].params.request;
    assert.equal(request.change_type, 'UPDATE_CONFIG');
    assert.equal(request.context.summary, 'Make the fee rate a parameter');
    assert.equal(request.context.source, 'git diff --cached');
    assert.doesNotMatch(stream.text, /untracked/);
  });

  it('nothing to review, no repository, no folder: a plain message and no request', async () => {
    const { handler, client } = setup(() => assert.fail('no request expected'));
    assert.match((await run(handler, '')).stream.text, /^Open a folder first/);
    open(repo(false));
    assert.match((await run(handler, '')).stream.text, /^No uncommitted changes: the working tree matches HEAD/);
    assert.match((await run(handler, 'staged')).stream.text, /^Nothing is staged, so there is nothing to review/);
    mockWorkspace.workspaceFolders = undefined;
    open(fs.mkdtempSync(path.join(os.tmpdir(), 'council-plain-')));
    assert.match((await run(handler, '')).stream.text, /^This folder is not a git repository/);
    assert.equal(client.calls.length, 0);
  });

  it('in Restricted Mode git is not run: a plain message and a button to manage workspace trust', async () => {
    open(repo());
    const ws = vscode.workspace as unknown as { isTrusted: boolean };
    ws.isTrusted = false;
    try {
      const { handler, client } = setup(() => assert.fail('no request expected')); // the repo has changes to review
      const { stream } = await run(handler, '');
      assert.match(stream.text, /^This workspace is in Restricted Mode, so `\/review` does not run git/);
      assert.deepEqual(stream.buttons.map((b) => b.command), ['workbench.trust.manage']);
      assert.deepEqual(stream.progressLines, []); // not even "Reading the uncommitted changes…"
      assert.equal(client.calls.length, 0);
    } finally {
      ws.isTrusted = true;
    }
  });

  it('a virtual workspace folder is not reviewed (git needs a folder on disk)', async () => {
    mockWorkspace.workspaceFolders = [{ uri: vscode.Uri.from({ scheme: 'vscode-vfs', path: '/github/owner/repo' }), name: 'repo', index: 0 }];
    assert.equal(reviewFolder(), undefined);
    const { handler, client } = setup(() => assert.fail('no request expected'));
    assert.match((await run(handler, '')).stream.text, /^Open a folder first/);
    assert.equal(client.calls.length, 0);
  });

  it('a review that could not be done is an error in plain words, never a verdict', async () => {
    open(repo());
    const data = { code: 'internal', message: 'could not review: no verdict from Code Reviewer: scripted: client, bad request', details: { reason: 'roles_failed' } };
    const { handler, turns } = setup(() => {
      throw new ResponseError(-32603, data.message, data);
    });
    const { stream, result } = await run(handler, '');
    assert.match(stream.text, /⚠️ The council hit a problem: could not review: no verdict from Code Reviewer/);
    assert.doesNotMatch(stream.text, /REJECT|APPROVE/);
    assert.equal(result.errorDetails?.message, data.message);
    assert.equal(turns.active.length, 0);
  });

  it('Stop cancels the review request and says so', async () => {
    open(repo());
    const source = new vscode.CancellationTokenSource();
    const { handler } = setup(() => {
      source.cancel();
      throw new ResponseError(-32800, 'cancelled');
    });
    const { stream, result } = await run(handler, '', source.token);
    assert.match(stream.text, /_Review stopped\._/);
    assert.deepEqual(result, {});
  });
});
