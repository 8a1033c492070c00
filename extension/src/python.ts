/**
 * Finding a Python for the sidecar: `council.python.interpreter`, else the Python extension's active
 * environment, else python3. Python must be ≥ 3.10; the probe says whether it has the sidecar's core dependencies
 * (bootstrap.ts decides what to do when it has not).
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
