/**
 * A workspace folder's git changes for `/review`: the diff (the working tree against HEAD, or only the staged
 * changes), the files it touches, and how many untracked files it leaves out. Git runs through `execFile` (no
 * shell) in the folder, under a timeout and an output cap: a diff larger than the cap is cut, and says so.
 * Nothing here knows VS Code.
 */
import type { ExecFileException } from 'node:child_process';
import { execFile } from 'node:child_process';

export const GIT_TIMEOUT_MS = 15_000;
/** The most of git's output read for the diff; the sidecar fits what the roles see into a far smaller budget. */
export const MAX_DIFF_BYTES = 4 * 1024 * 1024;
const MAX_LIST_BYTES = 1024 * 1024;
/** The empty tree's id (a repository without commits has no HEAD to diff against). */
const EMPTY_TREE = { sha1: '4b825dc642cb6eb9a060e54bf8d69288fbee4904', sha256: '6ef19b41225c5369f1c104d45d8d85efa9b057b53b14b4b9b939dd74decc5321' };

export interface GitOutput {
  stdout: string;
  /** The output was larger than the cap: `stdout` holds its beginning. */
  truncated: boolean;
}

export interface GitOptions {
  maxBytes: number;
  timeoutMs?: number;
  /** The git executable (tests point it elsewhere). */
  bin?: string;
}

export type GitRun = (args: string[], cwd: string, options: GitOptions) => Promise<GitOutput>;

export type GitProblemReason = 'no_git' | 'not_a_repo' | 'timeout' | 'failed';

/** Git could not tell what changed: not installed, not a repository, too slow, or it failed. */
export class GitProblem extends Error {
  constructor(readonly reason: GitProblemReason, message: string) {
    super(message);
    this.name = 'GitProblem';
  }
}

function problemOf(err: ExecFileException, stderr: string, args: string[]): GitProblem {
  if (err.code === 'ENOENT') return new GitProblem('no_git', 'git is not installed or not on the PATH');
  if (err.killed || err.signal === 'SIGTERM') return new GitProblem('timeout', `git ${args[0]} took longer than ${GIT_TIMEOUT_MS / 1000} s`);
  if (/not a git repository/i.test(stderr)) return new GitProblem('not_a_repo', 'this folder is not in a git repository');
  const said = stderr.trim().split('\n')[0] || err.message;
  return new GitProblem('failed', `git ${args[0]} failed: ${said}`);
}

/** Run git once: its stdout, cut at `maxBytes` (never an error for being large); failures are GitProblems. */
export const runGit: GitRun = (args, cwd, options) =>
  new Promise((resolve, reject) => {
    execFile(
      options.bin ?? 'git',
      options.bin ? args : ['-c', 'core.quotepath=off', ...args],
      {
        cwd,
        timeout: options.timeoutMs ?? GIT_TIMEOUT_MS,
        maxBuffer: options.maxBytes,
        encoding: 'utf8',
        windowsHide: true,
        env: { ...process.env, GIT_TERMINAL_PROMPT: '0', GIT_OPTIONAL_LOCKS: '0', LC_ALL: 'C' },
      },
      (err, stdout, stderr) => {
        if (!err) return resolve({ stdout, truncated: false });
        if ((err as { code?: unknown }).code === 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER') return resolve({ stdout, truncated: true });
        reject(problemOf(err, stderr, args));
      },
    );
  });

export interface Changes {
  root: string;
  staged: boolean;
  diff: string;
  /** Paths relative to the repository's top, as git prints them. */
  files: string[];
  /** The diff was longer than MAX_DIFF_BYTES and was cut. */
  truncated: boolean;
  /** Untracked files the working-tree diff leaves out (0 for staged changes). */
  untracked: number;
}

const DIFF_FLAGS = ['--no-color', '--no-ext-diff', '--no-textconv'];

/** What to diff against: HEAD, or the empty tree in a repository without commits. */
async function base(cwd: string, run: GitRun): Promise<string> {
  try {
    await run(['rev-parse', '--verify', '--quiet', 'HEAD'], cwd, { maxBytes: 4096 });
    return 'HEAD';
  } catch (err) {
    if (!(err instanceof GitProblem) || err.reason !== 'failed') throw err;
    const format = await run(['rev-parse', '--show-object-format'], cwd, { maxBytes: 4096 }).catch(() => ({ stdout: 'sha1' }));
    return format.stdout.trim() === 'sha256' ? EMPTY_TREE.sha256 : EMPTY_TREE.sha1;
  }
}

const nulList = (out: GitOutput): string[] => out.stdout.split('\0').filter((p) => p !== '');

/** The folder's changes: the staged ones (`git diff --cached`) or the working tree's (`git diff HEAD`). */
export async function readChanges(folder: string, staged: boolean, run: GitRun = runGit): Promise<Changes> {
  const root = (await run(['rev-parse', '--show-toplevel'], folder, { maxBytes: 64 * 1024 })).stdout.trim();
  const range = staged ? ['diff', '--cached'] : ['diff', await base(root, run)];
  const diff = await run([...range, ...DIFF_FLAGS], root, { maxBytes: MAX_DIFF_BYTES });
  const files = nulList(await run([...range, '--name-only', '-z'], root, { maxBytes: MAX_LIST_BYTES }));
  const untracked = staged ? 0 : nulList(await run(['ls-files', '--others', '--exclude-standard', '-z'], root, { maxBytes: MAX_LIST_BYTES })).length;
  return { root, staged, diff: diff.stdout, files, truncated: diff.truncated, untracked };
}
