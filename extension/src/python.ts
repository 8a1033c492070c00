/**
 * Finding a Python for the sidecar: `council.python.interpreter`, else the Python extension's active
 * environment, else python3. Python must be ≥ 3.10. If that interpreter lacks the sidecar's dependencies, a
 * private venv in the extension's global storage gets the sidecar shipped inside the VSIX (once per version).
 */
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { log } from './log';

export const MIN_PYTHON: readonly [number, number] = [3, 10];

export type InterpreterSource = 'setting' | 'python-extension' | 'default';

export interface Interpreter {
  command: string;
  source: InterpreterSource;
}

/** How to start the sidecar: `command args… -m council serve …` with this env. */
export interface PythonLaunch {
  command: string;
  env: Record<string, string>;
  /** Where the sidecar code comes from, for the log. */
  origin: string;
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

const PROBE = [
  'import json, sys',
  'r = {"version": list(sys.version_info[:3]), "executable": sys.executable, "sidecar": False}',
  'try:',
  '    import pygls, pydantic, mcp, council.protocol',
  '    r["sidecar"] = True',
  'except Exception as e:',
  '    r["error"] = repr(e)',
  'print(json.dumps(r))',
].join('\n');

export function run(command: string, args: string[], env?: NodeJS.ProcessEnv, timeoutMs = 30_000): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { env: env ?? process.env, timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024, windowsHide: true }, (err, stdout, stderr) => {
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

/** Prepend `dir` to PYTHONPATH. */
export function withPythonPath(env: NodeJS.ProcessEnv, dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined) out[k] = v;
  out.PYTHONPATH = env.PYTHONPATH ? `${dir}${path.delimiter}${env.PYTHONPATH}` : dir;
  return out;
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

export interface BootstrapOptions {
  /** The Python used to create the venv (already checked to be ≥ 3.10). */
  basePython: string;
  extensionPath: string;
  storagePath: string;
  version: string;
  /** Shows a progress notification around `task` (vscode.window.withProgress in the extension). */
  withProgress<T>(title: string, task: (report: (message: string) => void) => Promise<T>): Promise<T>;
}

const MARKER = 'council-sidecar-version.txt';

/** A private venv with the shipped sidecar installed; created or upgraded once per extension version. */
export async function ensurePrivateVenv(o: BootstrapOptions): Promise<string> {
  const venv = path.join(o.storagePath, 'venv');
  const python = venvPython(venv);
  const marker = path.join(venv, MARKER);
  if (fs.existsSync(python) && readMarker(marker) === o.version) return python;
  return o.withProgress('Council: setting up the Python sidecar (first run)…', async (report) => {
    fs.mkdirSync(o.storagePath, { recursive: true });
    if (!fs.existsSync(python)) {
      report('creating a virtual environment');
      try {
        await run(o.basePython, ['-m', 'venv', venv], undefined, 180_000);
      } catch (err) {
        throw new PythonSetupError(
          `Could not create a virtual environment with ${o.basePython}: ${stderrOf(err)} ` +
            '(on Debian/Ubuntu install python3-venv), or set "council.python.interpreter" to a Python that has the sidecar installed.',
          'setInterpreter',
        );
      }
    }
    report('installing the council sidecar');
    const src = stageSources(o.extensionPath, o.storagePath);
    try {
      const { stdout } = await run(
        python,
        ['-m', 'pip', 'install', '--disable-pip-version-check', '--no-input', '--upgrade', src],
        { ...process.env, PIP_NO_INPUT: '1' },
        900_000,
      );
      log.info(stdout.split('\n').slice(-3).join('\n'));
    } catch (err) {
      throw new PythonSetupError(`Installing the council sidecar into ${venv} failed: ${stderrOf(err)}`, 'showLogs');
    } finally {
      fs.rmSync(src, { recursive: true, force: true });
    }
    fs.writeFileSync(marker, o.version);
    return python;
  });
}

function readMarker(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8').trim();
  } catch {
    return undefined;
  }
}

function stderrOf(err: unknown): string {
  const e = err as Error & { stderr?: string };
  const text = (e.stderr ?? '').trim() || e.message;
  log.error(text);
  return text.split('\n').slice(-4).join(' ').slice(0, 600);
}

/** pip builds in-tree: copy the shipped sources to a scratch folder so the extension folder stays untouched. */
function stageSources(extensionPath: string, storagePath: string): string {
  const dest = fs.mkdtempSync(path.join(storagePath, 'src-'));
  for (const item of ['pyproject.toml', 'README.md', 'server']) {
    const from = path.join(extensionPath, item);
    if (fs.existsSync(from)) fs.cpSync(from, path.join(dest, item), { recursive: true });
  }
  return dest;
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

/**
 * The full decision: check the interpreter's version; use it directly (with the shipped sidecar on PYTHONPATH)
 * when it has the sidecar's dependencies, else bootstrap the private venv.
 */
export async function preparePython(interpreter: Interpreter, o: Omit<BootstrapOptions, 'basePython'>): Promise<PythonLaunch> {
  const shipped = path.join(o.extensionPath, 'server');
  const env = withPythonPath(process.env, shipped);
  const info = await probe(interpreter.command, env);
  const where = interpreter.source === 'setting' ? ' (from "council.python.interpreter")' : interpreter.source === 'python-extension' ? ' (the Python extension\'s active environment)' : '';
  if (!versionOk(info.version)) {
    throw new PythonSetupError(
      `Council needs Python ${MIN_PYTHON.join('.')} or newer, but ${interpreter.command}${where} is ${info.version.join('.')}. ` +
        'Install a newer Python or set "council.python.interpreter".',
      'setInterpreter',
    );
  }
  if (info.sidecar) {
    log.info(`using ${info.executable} ${info.version.join('.')}${where} with the sidecar shipped in ${shipped}`);
    return { command: info.executable || interpreter.command, env, origin: shipped };
  }
  log.info(`${info.executable} lacks the sidecar's dependencies (${info.error ?? '?'}): using a private venv`);
  const python = await ensurePrivateVenv({ ...o, basePython: info.executable || interpreter.command });
  const venvEnv: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && k !== 'PYTHONPATH' && k !== 'PYTHONHOME') venvEnv[k] = v;
  return { command: python, env: venvEnv, origin: path.dirname(path.dirname(python)) };
}

export const homeDir = os.homedir();
