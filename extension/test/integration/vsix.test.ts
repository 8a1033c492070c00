/**
 * Integration: the first run on a fresh machine, on the real artifact. Builds the VSIX (`npm run package`), unpacks
 * it the way VS Code installs it, and gives `preparePython` — the extension's own code — a bare Python (a new venv
 * without any of the sidecar's packages). That bootstraps the private venv: the same staging and `pip install` the
 * extension runs (from the package index; ~10 s with a warm pip cache). Then `python -m council serve` from that
 * venv must answer JSON-RPC requests, with the personas that shipped inside the package.
 * Skipped (not failed) only when there is no python3 ≥ 3.10 to make the bare venv from.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import { StreamMessageReader, StreamMessageWriter, createMessageConnection } from 'vscode-jsonrpc/node';
import { BOOTSTRAP_TITLE, preparePython, probe, venvPython } from '../../src/python';
import type { PersonasResult } from '../../src/wire';

const ROOT = path.resolve(__dirname, '../../../..');
const BASE = process.env.COUNCIL_BARE_PYTHON ?? 'python3';
const baseVersion = spawnSync(BASE, ['-c', 'import sys; print(sys.version_info >= (3, 10))'], { encoding: 'utf8' });
const skip = baseVersion.stdout?.trim() === 'True' ? false : `no Python ≥ 3.10 at ${BASE} (set COUNCIL_BARE_PYTHON)`;
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string };

/** Every file of a folder, relative, with forward slashes. */
function listFiles(dir: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => !e.isDirectory())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)).split(path.sep).join('/'))
    .sort();
}

describe('the VSIX on a fresh machine', { skip, timeout: 240_000 }, () => {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'council-vsix-'));
  after(() => fs.rmSync(work, { recursive: true, force: true }));
  const unpacked = path.join(work, 'unpacked');
  const extension = path.join(unpacked, 'extension');

  it('the VSIX ships the extension and what pip needs to build the sidecar, and nothing else', () => {
    execFileSync('npm', ['run', '--silent', 'package'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
    const vsix = path.join(ROOT, `${pkg.name}-${pkg.version}.vsix`);
    execFileSync(BASE, ['-m', 'zipfile', '-e', vsix, unpacked]);
    const files = listFiles(extension);
    const top = [...new Set(files.map((f) => f.split('/')[0]))].sort();
    assert.deepEqual(top, ['agents', 'l10n', 'media', 'out', 'package.json', 'personas', 'pyproject.toml', 'readme.md', 'server']);
    assert.deepEqual(files.filter((f) => f.startsWith('out/')), ['out/extension.js']);
    assert.deepEqual(files.filter((f) => f.startsWith('agents/')), ['agents/council.agent.md']);
    assert.deepEqual(files.filter((f) => /__pycache__|\.py[co]$|\.egg-info|\.map$|_personas/.test(f)), []);
    assert.ok(files.filter((f) => f.startsWith('personas/')).every((f) => f.endsWith('.toml')));
    const shippedServer = files.filter((f) => f.startsWith('server/'));
    assert.ok(shippedServer.includes('server/council/__main__.py') && shippedServer.includes('server/council/py.typed'));
    // the package's data files (pyproject's package-data: the word catalogs, the lexicon, the stop words) ship too
    assert.deepEqual(shippedServer.filter((f) => !/^server\/council\/.*\.(py|typed|toml|txt)$/.test(f)), []);
    assert.ok(['words/en.toml', 'words/ru.toml', 'personas/lexicon.toml', 'session/calls/hints.toml', 'session/steps/intents.toml', 'stopwords.txt'].every((f) => shippedServer.includes(`server/council/${f}`)));
  });

  it('a bare Python bootstraps the private venv from the VSIX; the installed sidecar answers JSON-RPC', async () => {
    const bare = path.join(work, 'bare-py');
    execFileSync(BASE, ['-m', 'venv', bare]);
    const bareInfo = await probe(venvPython(bare), process.env);
    assert.equal(bareInfo.sidecar, false, 'the bare Python must lack the sidecar packages');

    const storage = path.join(work, 'storage');
    const progress: string[] = [];
    const t0 = Date.now();
    const launch = await preparePython(
      { command: venvPython(bare), source: 'setting' },
      { extensionPath: extension, storagePath: storage, version: pkg.version, withProgress: (title, task) => (progress.push(title), task((m) => progress.push(m))) },
    );
    console.log(`bootstrap took ${((Date.now() - t0) / 1000).toFixed(1)} s:\n  ${progress.join('\n  ')}`);
    assert.equal(launch.command, venvPython(path.join(storage, 'venv')));
    assert.equal(launch.env.PYTHONPATH, undefined, 'the venv runs the installed package, not the shipped sources');
    assert.equal(progress[0], BOOTSTRAP_TITLE);
    assert.ok(progress.some((m) => /^installing \d+ packages$/.test(m)), 'pip progress was reported');
    assert.equal(progress.at(-1), 'done');
    assert.deepEqual(fs.readdirSync(storage).sort(), ['venv'], 'the staged copy is cleaned up');

    const where = execFileSync(launch.command, ['-c', 'import council, council._personas as p, importlib.resources as r; print(council.__file__); print(len([f for f in r.files(p).iterdir() if f.name.endswith(".toml")])); from council.words import catalog; print(catalog("ru")["label.skip"])'], { cwd: work, env: launch.env, encoding: 'utf8' }).trim().split('\n');
    assert.ok(where[0].startsWith(path.join(storage, 'venv')), `council imported from ${where[0]}`);
    const shippedPersonas = fs.readdirSync(path.join(extension, 'personas')).filter((f) => f.endsWith('.toml')).length;
    assert.equal(Number(where[1]), shippedPersonas);
    assert.ok(where[2] && where[2] !== 'label.skip', `the installed package reads its Russian catalog (got ${where[2]})`);

    const proc = spawn(launch.command, ['-m', 'council', 'serve', '--no-embeddings'], { cwd: work, env: { ...launch.env, PYTHONUNBUFFERED: '1' } });
    const stderr: string[] = [];
    proc.stderr.on('data', (d: Buffer) => stderr.push(d.toString()));
    const conn = createMessageConnection(new StreamMessageReader(proc.stdout), new StreamMessageWriter(proc.stdin));
    conn.listen();
    try {
      const init = await conn.sendRequest<{ capabilities: unknown }>('initialize', { processId: process.pid, rootUri: null, capabilities: {} });
      assert.ok(init.capabilities, `initialize answered (stderr: ${stderr.join('')})`);
      await conn.sendNotification('initialized', {});
      const personas = await conn.sendRequest<PersonasResult>('council/personas', {});
      assert.equal(personas.personas.length, shippedPersonas, 'the personas packaged as council._personas are served');
      await conn.sendRequest('shutdown');
      await conn.sendNotification('exit');
      const code = await new Promise<number | null>((resolve) => proc.once('exit', resolve));
      assert.equal(code, 0, stderr.join(''));
    } finally {
      conn.dispose();
      if (proc.exitCode === null) proc.kill('SIGKILL');
    }
  });
});
