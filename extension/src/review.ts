/**
 * `@council /review`: the review council (seed 004) on this workspace's git changes (the working tree against HEAD,
 * or the staged changes) as a `CouncilRequest`, sent with `council/review`; the decision's markdown is printed as the
 * sidecar wrote it. With the chat's model allowed, the roles answer with it (`council/complete` finds this turn by
 * its review id). No repository or nothing to review: a plain message.
 */
import { randomBytes } from 'node:crypto';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { CouncilClient } from './client';
import { handleError, isCancellation } from './errors';
import type { Changes, GitRun } from './git';
import { GitProblem, readChanges } from './git';
import { log } from './log';
import { chooseModel } from './models';
import { EventRenderer } from './render';
import type { CouncilSettings } from './settings';
import type { TurnRegistry } from './turns';
import { localFolders } from './vscodeapi';
import type { ChangeType, CouncilRequest, ReviewParams } from './wire';
import { LIMITS } from './wire';

/** Words a `/review` turn may start with: which changes, and what kind of change they are. */
const STAGED_WORDS = new Set(['staged', 'cached', 'index']);
const CHANGE_WORDS: Record<string, ChangeType> = {
  config: 'UPDATE_CONFIG', configuration: 'UPDATE_CONFIG', update_config: 'UPDATE_CONFIG',
  refactor: 'CODE_REFACTOR', code: 'CODE_REFACTOR', code_refactor: 'CODE_REFACTOR',
  pass: 'DECLARE_PASS', declare_pass: 'DECLARE_PASS',
  spec: 'FREEZE_SPEC', freeze: 'FREEZE_SPEC', freeze_spec: 'FREEZE_SPEC',
};
const FILES_IN_SUMMARY = 5;
const DIFF_CHARS = LIMITS.Artifacts.diff_content.maxLength;
const PROPOSER = 'VS Code @council /review';

export interface ReviewAsk {
  staged: boolean;
  changeType: ChangeType;
  /** What the person says the change is (empty: a summary is made from the diff's files). */
  summary: string;
}

/** `staged config Raise the leverage cap` → staged, UPDATE_CONFIG, "Raise the leverage cap". Only leading words count. */
export function parseReviewPrompt(prompt: string): ReviewAsk {
  const ask: ReviewAsk = { staged: false, changeType: 'CODE_REFACTOR', summary: '' };
  let rest = prompt.trim();
  for (;;) {
    const m = /^(\S+)\s*/.exec(rest);
    if (!m) break;
    const word = m[1].toLowerCase().replace(/^--?/, '').replace(/[:,.;]$/, '');
    if (STAGED_WORDS.has(word)) ask.staged = true;
    else if (CHANGE_WORDS[word]) ask.changeType = CHANGE_WORDS[word];
    else break;
    rest = rest.slice(m[0].length);
  }
  ask.summary = rest.trim();
  return ask;
}

/** A request id the sidecar accepts (`^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$`), unique per review. */
export function newRequestId(now: Date = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
  return `vscode-review-${stamp}-${randomBytes(4).toString('hex')}`;
}

/** What the models read as the change's summary when the person gave none. */
function defaultSummary(ask: ReviewAsk, changes: Changes, folderName: string): string {
  const shown = changes.files.slice(0, FILES_IN_SUMMARY).join(', ');
  const more = changes.files.length > FILES_IN_SUMMARY ? ` and ${changes.files.length - FILES_IN_SUMMARY} more` : '';
  const what = changes.staged ? 'Staged changes' : 'Uncommitted changes';
  return `${what} in ${folderName} (${ask.changeType}): ${changes.files.length} file(s) changed: ${shown}${more}.`;
}

/** The seed-004 CouncilRequest for these changes: the diff as `diff_content`, its files as `files_changed`. */
export function buildReviewRequest(ask: ReviewAsk, changes: Changes, folderName: string, now: Date = new Date()): CouncilRequest {
  const diff = changes.diff.length > DIFF_CHARS ? changes.diff.slice(0, DIFF_CHARS) : changes.diff;
  const context: CouncilRequest['context'] = {
    summary: (ask.summary || defaultSummary(ask, changes, folderName)).slice(0, LIMITS.RequestContext.summary.maxLength),
    files_changed: changes.files.filter((f) => f.length <= 1000).slice(0, LIMITS.RequestContext.files_changed.maxItems),
  };
  const extra: Record<string, unknown> = { source: changes.staged ? 'git diff --cached' : 'git diff HEAD' };
  if (changes.truncated || diff.length < changes.diff.length) extra.diff_cut = `only the first ${diff.length} characters of the diff were sent`;
  if (changes.untracked > 0) extra.untracked_files_not_in_diff = changes.untracked;
  return {
    request_id: newRequestId(now),
    timestamp: now.toISOString(),
    proposer: PROPOSER,
    change_type: ask.changeType,
    context: { ...context, ...extra },
    artifacts: { diff_content: diff },
  };
}

/** `council/review` params: with the chat's model, the roles answer with it (as a chat turn's session does). */
export function reviewParams(request: CouncilRequest, model: { name: string } | undefined): ReviewParams {
  if (!model) return { request, client: { completion: false } };
  const name = model.name.slice(0, LIMITS.ReviewParams.model.maxLength);
  return { request, provider: 'client', model: name, client: { completion: true, completionModel: name } };
}

/** The workspace folder to review: the active editor's, else the first. */
export function reviewFolder(): vscode.WorkspaceFolder | undefined {
  const folders = localFolders();
  const active = vscode.window.activeTextEditor?.document.uri;
  if (active?.scheme === 'file') {
    const hit = folders.find((f) => active.fsPath === f.uri.fsPath || active.fsPath.startsWith(f.uri.fsPath + path.sep));
    if (hit) return hit;
  }
  return folders[0];
}

/** What a plain message says when there is nothing to review (the extension's own words: no sidecar is involved). */
const PLAIN = {
  noFolder: 'Open a folder first: `/review` reviews the git changes of the workspace folder.\n',
  untrusted:
    'This workspace is in Restricted Mode, so `/review` does not run git in it (a repository\'s own git settings can run programs). ' +
    'Trust the workspace to review its changes.\n',
  problem: (p: GitProblem): string =>
    p.reason === 'not_a_repo'
      ? 'This folder is not a git repository, so there is no diff to review. `/review` reviews the changes of a git working tree.\n'
      : `Could not read the git changes: ${p.message}.\n`,
  empty: (staged: boolean): string =>
    staged
      ? 'Nothing is staged, so there is nothing to review. Stage changes with `git add`, or use `/review` for every uncommitted change.\n'
      : 'No uncommitted changes: the working tree matches HEAD, so there is nothing to review.\n',
  cut: (chars: number): string => `> ℹ️ The diff is larger than the review reads: the council got its first ${chars.toLocaleString('en-US')} characters.\n\n`,
  untracked: (n: number): string => `> ℹ️ ${n} untracked file(s) are not part of the diff (\`git add -N <file>\` includes a new file).\n\n`,
  stopped: '\n\n_Review stopped._\n',
};

export interface ReviewDeps {
  client: CouncilClient;
  turns: TurnRegistry<vscode.LanguageModelChat>;
  settings(): CouncilSettings;
  access?: Pick<vscode.LanguageModelAccessInformation, 'canSendRequest'>;
  git?: GitRun;
}

/** A review's ChatResult: no session metadata (a review is no council session; the next turn continues the
 * conversation's session), at most the error. */
export type ReviewChatResult = Pick<vscode.ChatResult, 'errorDetails'>;

/** The changes to review, or undefined after saying plainly why there are none. */
async function changesToReview(deps: ReviewDeps, folder: string, staged: boolean, stream: vscode.ChatResponseStream): Promise<Changes | undefined> {
  try {
    const changes = await readChanges(folder, staged, deps.git);
    if (changes.diff.trim()) return changes;
    stream.markdown(PLAIN.empty(staged));
  } catch (err) {
    if (!(err instanceof GitProblem)) throw err;
    log.info(`/review: ${err.reason}: ${err.message}`);
    stream.markdown(PLAIN.problem(err));
  }
  return undefined;
}

export async function reviewTurn(
  deps: ReviewDeps,
  request: vscode.ChatRequest,
  stream: vscode.ChatResponseStream,
  token: vscode.CancellationToken,
): Promise<ReviewChatResult> {
  const folder = reviewFolder();
  if (!folder) {
    stream.markdown(PLAIN.noFolder);
    return {};
  }
  if (!vscode.workspace.isTrusted) {
    stream.markdown(PLAIN.untrusted);
    stream.button({ command: 'workbench.trust.manage', title: 'Manage Workspace Trust' });
    return {};
  }
  const ask = parseReviewPrompt(request.prompt);
  stream.progress(ask.staged ? 'Reading the staged changes…' : 'Reading the uncommitted changes…');
  const changes = await changesToReview(deps, folder.uri.fsPath, ask.staged, stream);
  if (!changes || token.isCancellationRequested) return {};
  const { model, notice } = chooseModel(request, deps.settings(), deps.access);
  const council = buildReviewRequest(ask, changes, folder.name);
  // Notes go with the decision: VS Code folds whatever precedes the last progress line into "Completed N steps".
  const sent = council.artifacts!.diff_content!.length;
  const notes = [notice ?? '', changes.truncated || changes.diff.length > sent ? PLAIN.cut(sent) : '', changes.untracked > 0 ? PLAIN.untracked(changes.untracked) : ''];
  const renderer = new EventRenderer(stream);
  const turn = deps.turns.begin(`review:${council.request_id}`, { model, token, onEvent: (e) => renderer.render(e) });
  try {
    const result = await deps.client.request('council/review', reviewParams(council, model), token);
    deps.turns.end(turn);
    log.info(`review ${council.request_id}: ${result.decision.final_outcome} (${result.decision.audit.rule})`);
    for (const note of notes.filter(Boolean)) stream.markdown(note);
    stream.markdown(result.markdown);
    return {};
  } catch (err) {
    deps.turns.end(turn);
    if (token.isCancellationRequested || isCancellation(err)) {
      stream.markdown(PLAIN.stopped);
      return {};
    }
    const message = handleError(err, stream);
    return { errorDetails: { message } };
  }
}
