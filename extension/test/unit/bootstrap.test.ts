/**
 * The first-run bootstrap without the network: staging the sources from an installed-extension layout, pip's output
 * as progress, failures as actionable errors, and ensurePrivateVenv end to end against a scripted `python`.
 * (extension/test/integration/vsix.test.ts runs the real pip on the real VSIX.)
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { BOOTSTRAP_TITLE, PipProgress, PythonSetupError, ensurePrivateVenv, pipFailure, stageSources } from '../../src/python';

const tmp = (prefix: string) => fs.mkdtempSync(path.join(os.tmpdir(), prefix));
const write = (file: string, text: string, mode?: number) => {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text, { mode });
};

/** An extension folder as VS Code unpacks the VSIX: readme.md in lower case, plus a cache and a symlink to skip. */
function installedExtension(): string {
  const ext = tmp('council-ext-');
  write(path.join(ext, 'pyproject.toml'), '[project]\nname = "council"\nreadme = "README.md"\n');
  write(path.join(ext, 'readme.md'), '# Council\n');
  write(path.join(ext, 'server', 'council', '__init__.py'), '');
  write(path.join(ext, 'server', 'council', '__pycache__', '__init__.cpython-311.pyc'), 'x');
  write(path.join(ext, 'personas', 'ops-architect.toml'), 'id = "ops"\n');
  fs.symlinkSync('../../personas', path.join(ext, 'server', 'council', '_personas'));
  return ext;
}

const files = (dir: string): string[] =>
  fs.readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => !e.isDirectory()).map((e) => path.relative(dir, path.join(e.parentPath ?? (e as any).path, e.name))).sort();

describe('staging the shipped sidecar for pip', () => {
  it('copies what pyproject.toml needs, README.md under the name it names, and no caches or symlinks', () => {
    const ext = installedExtension();
    const dest = stageSources(ext, path.join(ext, 'storage'));
    assert.deepEqual(files(dest), ['README.md', 'personas/ops-architect.toml', 'pyproject.toml', 'server/council/__init__.py']);
    assert.equal(fs.readFileSync(path.join(dest, 'README.md'), 'utf8'), '# Council\n');
  });

  it('writes a README.md when the extension has none, and refuses an incomplete extension', () => {
    const ext = installedExtension();
    fs.rmSync(path.join(ext, 'readme.md'));
    assert.match(fs.readFileSync(path.join(stageSources(ext, tmp('council-st-')), 'README.md'), 'utf8'), /Council/);
    fs.rmSync(path.join(ext, 'personas'), { recursive: true });
    assert.throws(() => stageSources(ext, tmp('council-st-')), (e: unknown) => e instanceof PythonSetupError && /incomplete \(personas missing\).*reinstall/.test(e.message));
  });
});

describe("pip's output as progress and failures", () => {
  it('turns the lines of a real pip run into short messages', () => {
    const p = new PipProgress();
    const lines = [
      'Processing /tmp/stage',
      '  Installing build dependencies: started',
      "  Installing build dependencies: finished with status 'done'",
      '  Preparing metadata (pyproject.toml): started',
      "WARNING: Location 'file:///opt/pypi/simple/pygls/' is ignored: it is neither a file nor a directory.",
      'Collecting pygls<2.2,>=2.1 (from council==0.1.0)',
      '  Downloading pygls-2.1.1-py3-none-any.whl.metadata (4.4 kB)',
      'Processing /opt/pypi/files/httpx-0.28.1-py3-none-any.whl (from council==0.1.0)',
      'Collecting pydantic<3,>=2.7 (from council==0.1.0)',
      '  Using cached pydantic-2.14.3-py3-none-any.whl (462 kB)',
      '  Downloading https://files.example/pydantic_core-2.50.4-cp311-cp311-manylinux_2_17_x86_64.whl (2.0 MB)',
      'Building wheels for collected packages: council',
      '  Building wheel for council (pyproject.toml): started',
      'Requirement already satisfied: idna in ./venv/lib/python3.11/site-packages',
      'Installing collected packages: typing_extensions, tenacity, pygls, council',
      'Successfully installed council-0.1.0 pygls-2.1.1',
    ];
    assert.deepEqual(lines.map((l) => p.message(l)), [
      'reading the sidecar shipped with Council',
      'fetching the build tools',
      undefined,
      'preparing the sidecar',
      undefined,
      'resolving pygls (1 so far)',
      'downloading pygls (4.4 kB)',
      'using httpx (2 so far)',
      'resolving pydantic (3 so far)',
      'using the cached pydantic',
      'downloading pydantic_core (2.0 MB)',
      'building the sidecar',
      undefined,
      undefined,
      'installing 4 packages',
      'done',
    ]);
  });

  it('says what to do: network, disk, timeout, anything else', () => {
    const net = pipFailure('Looking in indexes: https://pypi.org/simple\nERROR: Could not find a version that satisfies the requirement pygls<2.2,>=2.1 (from council) (from versions: none)\nERROR: No matching distribution found for pygls<2.2,>=2.1', '/s/venv');
    assert.match(net.message, /could not download its Python packages.*No matching distribution found for pygls.*HTTPS_PROXY, PIP_INDEX_URL.*council\.python\.interpreter/);
    assert.equal(net.fix, 'setInterpreter');
    assert.match(pipFailure("OSError: [Errno 28] No space left on device: '/s'", '/s/venv').message, /disk is full/);
    assert.match(pipFailure('', '/s/venv', true).message, /did not finish in 15 minutes/);
    const other = pipFailure('error: subprocess-exited-with-error\n× Getting requirements to build wheel did not run successfully.\nerror: [Errno 2] No such file or directory: README.md\nnote: This error originates from a subprocess', '/s/venv');
    assert.match(other.message, /into \/s\/venv failed: .*No such file or directory: README\.md.*Show Logs/);
    assert.doesNotMatch(other.message, /note:|×/);
    assert.equal(other.fix, 'showLogs');
  });
});

/**
 * A scripted base Python: `-m venv DIR` makes DIR/bin/python, whose `-m pip install … SRC` checks that SRC holds
 * what the real build needs and prints pip-like lines; FAKE_PIP=offline makes it fail like pip without a network.
 */
function scriptedPython(dir: string): string {
  const pip = [
    '#!/bin/sh',
    'for a; do src=$a; done',
    'for f in pyproject.toml README.md personas server; do [ -e "$src/$f" ] || { echo "missing $f" >&2; exit 3; }; done',
    'echo "Processing $src"',
    '[ -n "$FAKE_PIP_RUNS" ] && echo run >> "$FAKE_PIP_RUNS"',
    'sleep 0.2',
    'if [ "$FAKE_PIP" = offline ]; then echo "ERROR: No matching distribution found for pygls<2.2,>=2.1" >&2; exit 1; fi',
    'echo "Collecting pygls<2.2,>=2.1 (from council==0.1.0)"',
    'echo "  Downloading pygls-2.1.1-py3-none-any.whl (4.4 kB)"',
    'echo "Installing collected packages: pygls, council"',
    'echo "Successfully installed council-0.1.0 pygls-2.1.1"',
  ].join('\n');
  const base = path.join(dir, 'python3');
  write(base, `#!/bin/sh\n[ "$1 $2" = "-m venv" ] || exit 9\nmkdir -p "$3/bin" && cat > "$3/bin/python" <<'PIP'\n${pip}\nPIP\nchmod +x "$3/bin/python"\n`, 0o755);
  return base;
}

describe('ensurePrivateVenv with a scripted python', { skip: process.platform === 'win32' && 'POSIX shell scripts' }, () => {
  it('creates the venv, installs the staged sources with progress, writes the marker and cleans up', async () => {
    const ext = installedExtension();
    const storage = tmp('council-storage-');
    const titles: string[] = [];
    const messages: string[] = [];
    const python = await ensurePrivateVenv({
      basePython: scriptedPython(ext),
      extensionPath: ext,
      storagePath: storage,
      version: '0.1.0',
      withProgress: (title, task) => (titles.push(title), task((m) => messages.push(m))),
    });
    assert.equal(python, path.join(storage, 'venv', 'bin', 'python'));
    assert.deepEqual(titles, [BOOTSTRAP_TITLE]);
    assert.deepEqual(messages, [
      "creating the sidecar's Python environment",
      "installing the sidecar's packages",
      'reading the sidecar shipped with Council',
      'resolving pygls (1 so far)',
      'downloading pygls (4.4 kB)',
      'installing 2 packages',
      'done',
    ]);
    assert.equal(fs.readFileSync(path.join(storage, 'venv', 'council-sidecar-version.txt'), 'utf8'), '0.1.0');
    assert.deepEqual(fs.readdirSync(storage), ['venv'], 'the staged sources are removed');
  });

  it('two windows starting together install once: the second waits for the first and reuses its venv', async () => {
    const ext = installedExtension();
    const storage = tmp('council-storage-');
    const runs = path.join(ext, 'pip-runs');
    const messages: string[][] = [[], []];
    const base = scriptedPython(ext);
    const bootstrap = (i: number) =>
      ensurePrivateVenv({ basePython: base, extensionPath: ext, storagePath: storage, version: '1', withProgress: (_t, task) => task((m) => messages[i].push(m)) });
    process.env.FAKE_PIP_RUNS = runs;
    try {
      const [a, b] = await Promise.all([bootstrap(0), bootstrap(1)]);
      assert.equal(a, b);
    } finally {
      delete process.env.FAKE_PIP_RUNS;
    }
    assert.equal(fs.readFileSync(runs, 'utf8'), 'run\n', 'pip ran once');
    assert.deepEqual(messages[1], ['waiting for the setup running in another window']);
    assert.deepEqual(fs.readdirSync(storage), ['venv'], 'the lock is released');
  });

  it('a failed install is an actionable error, writes no marker, and the next start tries again', async () => {
    const ext = installedExtension();
    const storage = tmp('council-storage-');
    const o = { basePython: scriptedPython(ext), extensionPath: ext, storagePath: storage, version: '0.2.0', withProgress: <T>(_t: string, task: (r: (m: string) => void) => Promise<T>) => task(() => {}) };
    process.env.FAKE_PIP = 'offline';
    try {
      await assert.rejects(ensurePrivateVenv(o), (e: unknown) => e instanceof PythonSetupError && /could not download.*No matching distribution found for pygls/.test(e.message));
    } finally {
      delete process.env.FAKE_PIP;
    }
    assert.equal(fs.existsSync(path.join(storage, 'venv', 'council-sidecar-version.txt')), false);
    assert.equal(await ensurePrivateVenv(o), path.join(storage, 'venv', 'bin', 'python'));
  });

  it('a Python without venv support: the half-made venv is removed and the message names the fix', async () => {
    const dir = tmp('council-novenv-');
    const base = path.join(dir, 'python3');
    write(base, `#!/bin/sh\nmkdir -p "$3/bin" && touch "$3/bin/python"\necho "The virtual environment was not created successfully because ensurepip is not available." >&2\nexit 1\n`, 0o755);
    const o = { basePython: base, extensionPath: installedExtension(), storagePath: dir, version: '1', withProgress: <T>(_t: string, task: (r: (m: string) => void) => Promise<T>) => task(() => {}) };
    await assert.rejects(ensurePrivateVenv(o), (e: unknown) => e instanceof PythonSetupError && /ensurepip is not available.*python3-venv.*council\.python\.interpreter/.test(e.message));
    assert.equal(fs.existsSync(path.join(dir, 'venv')), false);
  });
});
