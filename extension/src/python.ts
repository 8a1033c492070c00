/**
 * The sidecar's Python: `council.python.interpreter`, else the Python extension's active environment, else python3;
 * it must be ≥ 3.10. `preparePython` uses it directly when the probe finds the sidecar's core dependencies (the
 * shipped `server/` on PYTHONPATH); otherwise `ensurePrivateVenv` creates a venv in the extension's global storage and
 * pip-installs the sidecar shipped inside the VSIX into it, once per extension version, reporting each pip step as
 * readable progress and turning failures into messages that say what to do.
 */
import { execFile, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as readline from 'node:readline';
import { log } from './log';

export const MIN_PYTHON: readonly [number, number] = [3, 10];

export interface Interpreter {
  command: string;
  source: 'setting' | 'python-extension' | 'default';
}

export interface PythonLaunch {
  command: string;
  env: Record<string, string>;
}

/** An actionable failure: `message` says what is wrong and how to fix it. */
export class PythonSetupError extends Error {
  constructor(message: string, readonly fix: 'setInterpreter' | 'installPython' | 'showLogs' = 'showLogs') {
    super(message);
    this.name = 'PythonSetupError';
  }
}

export interface ProbeResult {
  version: [number, number, number];
  executable: string;
  sidecar: boolean;
  error?: string;
}

/** The sidecar's core dependencies (pyproject.toml) and the versions it needs of the two it is picky about. */
const PROBE = [
  'import json, sys',
  'r = {"version": list(sys.version_info[:3]), "executable": sys.executable, "sidecar": False}',
  'try:',
  '    import anyio, httpx, tenacity, pygls, pydantic, mcp, council.protocol',
  '    from importlib.metadata import version',
  '    v = {n: tuple(int(x) for x in version(n).split(".")[:2]) for n in ("pygls", "pydantic")}',
  '    if v["pygls"] != (2, 1) or v["pydantic"] < (2, 7):',
  '        raise ImportError(f"pygls {version(\'pygls\')} / pydantic {version(\'pydantic\')}: needs pygls 2.1, pydantic >= 2.7")',
  '    r["sidecar"] = True',
  'except Exception as e:',
  '    r["error"] = repr(e)',
  'print(json.dumps(r))',
].join('\n');

export function run(command: string, args: string[], env?: NodeJS.ProcessEnv, timeoutMs = 30_000): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { env: env ?? process.env, cwd: neutralCwd(), timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024, windowsHide: true }, (err, stdout, stderr) => {
      if (err) {
        const e = err as Error & { stderr?: string };
        e.stderr = stderr;
        reject(e);
      } else {
        resolve({ stdout, stderr });
      }
    });
  });
}

export function versionOk(v: readonly number[]): boolean {
  return v[0] > MIN_PYTHON[0] || (v[0] === MIN_PYTHON[0] && v[1] >= MIN_PYTHON[1]);
}

let emptyDir: string | undefined;
/**
 * The working folder for every Python we run: an empty private folder. `python -c` and `python -m` put their working
 * folder first on the import path, so started in the workspace (or wherever the extension host runs) a file there
 * named like a module (`anyio.py`, `venv.py`) would run in our process.
 */
export function neutralCwd(): string {
  if (!emptyDir || !fs.existsSync(emptyDir)) emptyDir = fs.mkdtempSync(path.join(os.tmpdir(), 'council-cwd-'));
  return emptyDir;
}

/** `env`'s set variables, without the `drop`ped ones. */
function definedEnv(env: NodeJS.ProcessEnv, drop: readonly string[] = []): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined && !drop.includes(e[0])));
}

export function withPythonPath(env: NodeJS.ProcessEnv, dir: string): Record<string, string> {
  return { ...definedEnv(env), PYTHONPATH: env.PYTHONPATH ? `${dir}${path.delimiter}${env.PYTHONPATH}` : dir };
}

export async function probe(command: string, env: NodeJS.ProcessEnv): Promise<ProbeResult> {
  let stdout: string;
  try {
    ({ stdout } = await run(command, ['-c', PROBE], env, 60_000));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const reason = code === 'ENOENT' ? 'not found' : `failed: ${(err as Error & { stderr?: string }).stderr?.trim() || String(err)}`;
    throw new PythonSetupError(
      `Python interpreter "${command}" ${reason}. Install Python ${MIN_PYTHON.join('.')} or newer, or set ` +
        '"council.python.interpreter" to a Python executable.',
      code === 'ENOENT' ? 'installPython' : 'setInterpreter',
    );
  }
  const line = stdout.trim().split('\n').pop() ?? '';
  try {
    return JSON.parse(line) as ProbeResult;
  } catch {
    throw new PythonSetupError(`Could not read the version of "${command}" (it printed: ${line.slice(0, 200)}).`, 'setInterpreter');
  }
}

export function venvPython(venvDir: string): string {
  return process.platform === 'win32' ? path.join(venvDir, 'Scripts', 'python.exe') : path.join(venvDir, 'bin', 'python');
}

export interface ResolveOptions {
  configured: string;
  /** The Python extension's active interpreter, if it is installed. */
  pythonExtension?: () => Promise<string | undefined>;
}

export async function resolveInterpreter(o: ResolveOptions): Promise<Interpreter> {
  if (o.configured) return { command: o.configured, source: 'setting' };
  if (o.pythonExtension) {
    try {
      const p = await o.pythonExtension();
      if (p) return { command: p, source: 'python-extension' };
    } catch (err) {
      log.warn(`Python extension did not report an interpreter: ${String(err)}`);
    }
  }
  return { command: process.platform === 'win32' ? 'python' : 'python3', source: 'default' };
}

export const homeDir = os.homedir();

export interface BootstrapOptions {
  /** The Python used to create the venv (already checked to be ≥ 3.10). */
  basePython: string;
  extensionPath: string;
  storagePath: string;
  version: string;
  /** Shows a progress notification around `task` (vscode.window.withProgress in the extension). */
  withProgress<T>(title: string, task: (report: (message: string) => void) => Promise<T>): Promise<T>;
}

/** Short: VS Code shows `title: message` on one line of a narrow notification. */
export const BOOTSTRAP_TITLE = 'Council setup';
const MARKER = 'council-sidecar-version.txt';
const PIP_TIMEOUT_MS = 15 * 60_000;
/** What pip builds the sidecar from: pyproject.toml maps `personas/` into the package as `council._personas`. */
export const SIDECAR_SOURCES = ['pyproject.toml', 'server', 'personas'] as const;
const CORE_DEPS = 'pygls, pydantic, anyio, httpx and tenacity';

/** A private venv with the shipped sidecar installed; created or upgraded once per extension version. */
export async function ensurePrivateVenv(o: BootstrapOptions): Promise<string> {
  const venv = path.join(o.storagePath, 'venv');
  const python = venvPython(venv);
  const marker = path.join(venv, MARKER);
  if (fs.existsSync(python) && readMarker(marker) === o.version) return python;
  return o.withProgress(BOOTSTRAP_TITLE, (report) => withLock(path.join(o.storagePath, 'venv.lock'), report, async () => {
    if (fs.existsSync(python) && readMarker(marker) === o.version) return python; // another window just did it
    const t0 = Date.now();
    if (!fs.existsSync(python)) {
      report("creating the sidecar's Python environment");
      log.info(`creating the private venv ${venv} with ${o.basePython}`);
      await createVenv(o.basePython, venv);
    }
    report("installing the sidecar's packages");
    const src = stageSources(o.extensionPath, o.storagePath);
    try {
      await pipInstall(python, src, venv, report);
    } finally {
      fs.rmSync(src, { recursive: true, force: true });
    }
    fs.writeFileSync(marker, o.version);
    log.info(`the council sidecar ${o.version} is installed in ${venv} (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
    return python;
  }));
}

/**
 * One bootstrap at a time per storage folder (two windows may activate together): a lock directory (mkdir is
 * atomic), taken over when it is older than any install can last (a window that died mid-install).
 */
async function withLock<T>(lock: string, report: (message: string) => void, task: () => Promise<T>): Promise<T> {
  fs.mkdirSync(path.dirname(lock), { recursive: true });
  for (let waited = false; ; waited = true) {
    try {
      fs.mkdirSync(lock);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const since = fs.statSync(lock, { throwIfNoEntry: false })?.mtimeMs;
      if (since !== undefined && Date.now() - since > PIP_TIMEOUT_MS + 60_000) fs.rmSync(lock, { recursive: true, force: true });
      if (!waited) report('waiting for the setup running in another window');
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
  try {
    return await task();
  } finally {
    fs.rmSync(lock, { recursive: true, force: true });
  }
}

async function createVenv(basePython: string, venv: string): Promise<void> {
  try {
    await run(basePython, ['-m', 'venv', venv], undefined, 180_000);
  } catch (err) {
    fs.rmSync(venv, { recursive: true, force: true }); // a half-made venv would be mistaken for a good one next time
    const e = err as Error & { stderr?: string };
    const text = (e.stderr ?? '').trim() || e.message;
    log.error(text);
    const debian = /ensurepip is not available|No module named venv|python3(\.\d+)?-venv/.test(text) ? ' On Debian/Ubuntu install the python3-venv package.' : '';
    throw new PythonSetupError(
      `Could not create a Python environment for the council sidecar with ${basePython}: ${lastLines(text)}.${debian} ` +
        `Or set "council.python.interpreter" to a Python that has ${CORE_DEPS}.`,
      'setInterpreter',
    );
  }
}

async function pipInstall(python: string, src: string, venv: string, report: (message: string) => void): Promise<void> {
  const progress = new PipProgress();
  const args = ['-m', 'pip', 'install', '--disable-pip-version-check', '--no-input', '--progress-bar', 'off', '--upgrade', src];
  const result = await runLines(python, args, { ...process.env, PIP_NO_INPUT: '1' }, PIP_TIMEOUT_MS, (line) => {
    log.info(`pip: ${line}`);
    const message = progress.message(line);
    if (message) report(message);
  });
  if (result.code === 0) return;
  const output = result.tail.join('\n');
  if (/No module named pip/.test(output)) fs.rmSync(venv, { recursive: true, force: true }); // recreate it next time
  const err = pipFailure(output, venv, result.timedOut);
  log.error(err.message);
  throw err;
}

/** pip's output lines turned into short progress messages ("downloading pydantic_core (2.0 MB)"). */
export class PipProgress {
  private resolved = 0;
  private last: string | undefined;

  /** The message for `line`, or undefined when it says nothing new. */
  message(line: string): string | undefined {
    const next = this.describe(line.trim());
    if (next === undefined || next === this.last) return undefined;
    this.last = next;
    return next;
  }

  private describe(text: string): string | undefined {
    let m: RegExpExecArray | null;
    if ((m = /^Processing (\S+\.(?:whl|tar\.gz|zip))\b/.exec(text))) return `using ${distribution(m[1])} (${++this.resolved} so far)`;
    if (/^Processing /.test(text)) return 'reading the sidecar shipped with Council';
    if (/^Installing build dependencies/.test(text)) return 'fetching the build tools';
    if (/^(Getting requirements to build|Preparing metadata)/.test(text)) return 'preparing the sidecar';
    if ((m = /^Collecting ([A-Za-z0-9_.-]+)/.exec(text))) return `resolving ${m[1]} (${++this.resolved} so far)`;
    if ((m = /^Downloading (\S+)(?: \(([^)]+)\))?/.exec(text))) return `downloading ${distribution(m[1])}${m[2] ? ` (${m[2]})` : ''}`;
    if ((m = /^Using cached (\S+)/.exec(text))) return `using the cached ${distribution(m[1])}`;
    if (/^Building wheels? for (collected packages: )?council/.test(text)) return 'building the sidecar';
    if ((m = /^Installing collected packages: (.*)$/.exec(text))) return `installing ${m[1].split(',').length} packages`;
    if (/^Successfully installed /.test(text)) return 'done';
    return undefined;
  }
}

/** "…/pydantic_core-2.14.1-cp311-cp311-manylinux.whl" → "pydantic_core" (the version is noise in a notification). */
function distribution(file: string): string {
  const base = file.split('/').pop() ?? file;
  return /^([A-Za-z0-9_.]+?)-\d/.exec(base)?.[1] ?? base;
}

/** A failed pip install as an actionable error: what went wrong, in words, and what to do next. */
export function pipFailure(output: string, venv: string, timedOut = false): PythonSetupError {
  const detail = lastLines(output);
  const instead = `or set "council.python.interpreter" to a Python that has ${CORE_DEPS}`;
  if (timedOut) {
    return new PythonSetupError(`Installing the council sidecar's packages did not finish in ${PIP_TIMEOUT_MS / 60_000} minutes. Check the network, then run "Council: Restart Sidecar", ${instead}.`, 'setInterpreter');
  }
  if (/No space left on device/i.test(output)) {
    return new PythonSetupError(`Installing the council sidecar into ${venv} failed: the disk is full. Free some space, then run "Council: Restart Sidecar".`, 'showLogs');
  }
  if (/No module named pip/.test(output)) {
    return new PythonSetupError(`The private Python environment ${venv} has no pip (it was removed and is recreated on the next start). On Debian/Ubuntu install python3-venv, then run "Council: Restart Sidecar", ${instead}.`, 'setInterpreter');
  }
  const network = /Could not find a version that satisfies|No matching distribution found|Failed to establish a new connection|Name or service not known|Temporary failure in name resolution|getaddrinfo failed|Network is unreachable|Connection refused|ConnectTimeout|Read timed out|ProxyError|SSLError|CERTIFICATE_VERIFY_FAILED/;
  if (network.test(output)) {
    return new PythonSetupError(
      `Council could not download its Python packages (${CORE_DEPS}) from the package index: ${detail}. ` +
        `Check the network connection and pip's proxy or index settings (HTTPS_PROXY, PIP_INDEX_URL, pip.conf), then run "Council: Restart Sidecar", ${instead}.`,
      'setInterpreter',
    );
  }
  if (/Permission denied|Errno 13/.test(output)) {
    return new PythonSetupError(`Installing the council sidecar into ${venv} failed: permission denied (${detail}). Check who owns that folder, ${instead}.`, 'setInterpreter');
  }
  return new PythonSetupError(`Installing the council sidecar into ${venv} failed: ${detail}. The full pip output is in "Council: Show Logs"; ${instead}.`, 'showLogs');
}

function lastLines(text: string): string {
  const lines = text.split('\n').map((l) => l.trim()).filter((l) => l && !/^(note|hint):|^\[notice\]|^[╰│×]/.test(l));
  return lines.slice(-3).join(' ').slice(0, 600).replace(/[.:]$/, '');
}

/** Runs a command and calls `onLine` for each line of its stdout and stderr; keeps the last lines for errors. */
function runLines(command: string, args: string[], env: NodeJS.ProcessEnv, timeoutMs: number, onLine: (line: string) => void): Promise<{ code: number | null; timedOut: boolean; tail: string[] }> {
  return new Promise((resolve) => {
    const tail: string[] = [];
    let timedOut = false;
    const child = spawn(command, args, { env, cwd: neutralCwd(), stdio: ['ignore', 'pipe', 'pipe'], windowsHide: true });
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill();
    }, timeoutMs);
    const take = (line: string): void => {
      tail.push(line);
      if (tail.length > 60) tail.shift();
      onLine(line);
    };
    for (const stream of [child.stdout, child.stderr]) readline.createInterface({ input: stream, crlfDelay: Infinity }).on('line', take);
    child.on('error', (err) => take(String(err)));
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, timedOut, tail });
    });
  });
}

function readMarker(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8').trim();
  } catch {
    return undefined;
  }
}

/**
 * pip builds in-tree: copy what it needs from the installed extension to a scratch folder under `parent`, so the
 * extension folder stays untouched. vsce stores README.md as readme.md, while pyproject.toml names README.md (case
 * matters on Linux), so the readme is copied under the name pip looks for. Caches and symlinks are left behind.
 */
export function stageSources(extensionPath: string, parent: string): string {
  const missing = SIDECAR_SOURCES.filter((item) => !fs.existsSync(path.join(extensionPath, item)));
  if (missing.length) {
    throw new PythonSetupError(`The Council extension in ${extensionPath} is incomplete (${missing.join(', ')} missing): reinstall the extension.`, 'showLogs');
  }
  fs.mkdirSync(parent, { recursive: true });
  const dest = fs.mkdtempSync(path.join(parent, 'src-'));
  const keep = (src: string): boolean => !/(^|[\\/])(__pycache__|[^\\/]+\.egg-info)$|\.py[co]$/.test(src) && !fs.lstatSync(src).isSymbolicLink();
  for (const item of SIDECAR_SOURCES) fs.cpSync(path.join(extensionPath, item), path.join(dest, item), { recursive: true, filter: keep });
  const readme = fs.readdirSync(extensionPath).find((name) => name.toLowerCase() === 'readme.md');
  if (readme) fs.copyFileSync(path.join(extensionPath, readme), path.join(dest, 'README.md'));
  else fs.writeFileSync(path.join(dest, 'README.md'), '# Council\n\nThe council sidecar.\n');
  return dest;
}

export async function preparePython(interpreter: Interpreter, o: Omit<BootstrapOptions, 'basePython'>): Promise<PythonLaunch> {
  const shipped = path.join(o.extensionPath, 'server');
  const env = withPythonPath(process.env, shipped);
  const info = await probe(interpreter.command, env);
  const where = interpreter.source === 'setting' ? ' (from "council.python.interpreter")' : interpreter.source === 'python-extension' ? " (the Python extension's active environment)" : '';
  if (!versionOk(info.version)) {
    throw new PythonSetupError(
      `Council needs Python ${MIN_PYTHON.join('.')} or newer, but ${interpreter.command}${where} is ${info.version.join('.')}. ` +
        'Install a newer Python or set "council.python.interpreter".',
      'setInterpreter',
    );
  }
  if (info.sidecar) {
    log.info(`using ${info.executable} ${info.version.join('.')}${where} with the sidecar shipped in ${shipped}`);
    return { command: info.executable || interpreter.command, env };
  }
  log.info(`${info.executable} lacks the sidecar's dependencies (${info.error ?? '?'}): using a private venv`);
  const python = await ensurePrivateVenv({ ...o, basePython: info.executable || interpreter.command });
  return { command: python, env: definedEnv(process.env, ['PYTHONPATH', 'PYTHONHOME']) };
}
