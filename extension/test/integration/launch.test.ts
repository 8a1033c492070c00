/**
 * Integration: the sidecar started the way the extension starts it (settings.ts: sidecarLaunch + sidecarProcess)
 * never runs the workspace's own Python. `python -m` puts its working folder first on the import path, so a
 * workspace holding `anyio.py` would run inside a sidecar started there — the control case shows that this is real.
 * The interpreter probe (python.ts) likewise runs in an empty folder.
 * Skipped (not failed) only when the sidecar module or the project's Python is absent.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import { StreamMessageReader, StreamMessageWriter, createMessageConnection } from 'vscode-jsonrpc/node';
import { probe } from '../../src/python';
import { readSettings, sidecarLaunch, sidecarProcess } from '../../src/settings';

const ROOT = path.resolve(__dirname, '../../../..');
const PYTHON = process.env.COUNCIL_TEST_PYTHON ?? path.join(ROOT, '.venv', 'bin', 'python');
const SERVER = path.join(ROOT, 'server', 'council', 'server.py');
const skip = !fs.existsSync(SERVER) ? `sidecar module absent (${SERVER})` : !fs.existsSync(PYTHON) ? `no Python at ${PYTHON}` : false;

/** A workspace whose `anyio.py` leaves a marker file when imported. */
function hostileWorkspace(): { dir: string; marker: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'council-hostile-ws-'));
  const marker = path.join(dir, 'IMPORTED');
  fs.writeFileSync(path.join(dir, 'anyio.py'), `open(${JSON.stringify(marker)}, "w").write("the workspace's anyio.py ran")\n`);
  return { dir, marker };
}

/** Start `council serve` as described, ask `initialize` and then a request (the server loads after answering
 * `initialize`: everything it imports has been imported once the request is answered), stop it; whether both
 * were answered. */
async function initializes(proc: { command: string; args: string[]; env: Record<string, string>; cwd: string }): Promise<boolean> {
  const child = spawn(proc.command, proc.args, { env: { ...process.env, ...proc.env }, cwd: proc.cwd });
  const conn = createMessageConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin));
  conn.listen();
  const exited = new Promise((r) => child.once('exit', r));
  try {
    const init = Promise.race([
      conn
        .sendRequest('initialize', { processId: process.pid, rootUri: null, capabilities: {} })
        .then(() => conn.sendRequest('council/personas', {}).catch(() => undefined)) // answered, if with an error
        .then(() => true),
      exited.then(() => false),
      new Promise<boolean>((r) => setTimeout(() => r(false), 30_000)),
    ]);
    return await init;
  } finally {
    child.kill('SIGKILL');
    await exited;
    conn.dispose();
  }
}

describe('the sidecar as the extension launches it', { skip, timeout: 90_000 }, () => {
  const dirs: string[] = [];
  after(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

  it('runs in the extension storage, so a workspace module named like a dependency is not imported', async () => {
    const ws = hostileWorkspace();
    const storage = fs.mkdtempSync(path.join(os.tmpdir(), 'council-storage-'));
    dirs.push(ws.dir, storage);
    const settings = readSettings({ get: () => undefined });
    const launch = sidecarLaunch(settings, [path.join(ROOT, 'personas')], { workspace: ws.dir });
    const python = { command: PYTHON, env: { PYTHONPATH: path.join(ROOT, 'server') } };
    const proc = sidecarProcess(python, { ...launch, args: [...launch.args, '--no-embeddings'] }, 'serve', storage);
    assert.equal(proc.cwd, storage);
    assert.deepEqual(proc.args.slice(0, 5), ['-m', 'council', 'serve', '--workspace', ws.dir]);
    assert.equal(await initializes(proc), true, 'the sidecar answered initialize');
    assert.equal(fs.existsSync(ws.marker), false, "the workspace's anyio.py was imported");

    // Control: the same command started in the workspace folder does import it (what the cwd protects against).
    await initializes({ ...proc, cwd: ws.dir });
    assert.equal(fs.existsSync(ws.marker), true, 'control: python -m imports from its working folder');
  });

  it('probes the interpreter from an empty folder, whatever the extension host\'s working folder holds', async () => {
    const ws = hostileWorkspace();
    dirs.push(ws.dir);
    const home = process.cwd();
    process.chdir(ws.dir); // where the extension host happens to run
    try {
      const found = await probe(PYTHON, { ...process.env, PYTHONPATH: path.join(ROOT, 'server') });
      assert.equal(found.sidecar, true, found.error);
      assert.equal(fs.existsSync(ws.marker), false, "the probe imported the working folder's anyio.py");
      execFileSync(PYTHON, ['-c', 'import anyio'], { cwd: ws.dir }); // control: python -c imports from its working folder
      assert.equal(fs.existsSync(ws.marker), true);
    } finally {
      process.chdir(home);
    }
  });
});
