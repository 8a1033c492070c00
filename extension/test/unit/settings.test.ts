import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import * as vscode from 'vscode';
import { PythonSetupError, ensurePrivateVenv, preparePython, probe, resolveInterpreter, venvPython, versionOk } from '../../src/python';
import { expandPath, readSettings, sessionOptions, sidecarLaunch, transcriptDir } from '../../src/settings';
import { TurnRegistry } from '../../src/turns';
import { activePythonFromExtension } from '../../src/vscodeapi';

const cfg = (values: Record<string, unknown>) => ({ get: <T>(k: string) => values[k] as T | undefined });

describe('settings', () => {
  it('defaults and validation', () => {
    const s = readSettings(cfg({ maxCycles: 999, depth: 'bogus', personas: ['a', '', 3, ' b '], provider: 'nope' }));
    assert.equal(s.provider, 'chat');
    assert.equal(s.maxCycles, 50);
    assert.equal(s.depth, 'standard');
    assert.deepEqual(s.personas, ['a', 'b']);
    assert.equal(s.trace, 'off');
  });
  it('session options', () => {
    const s = readSettings(cfg({ personas: ['Ops Architect'], depth: 'deep', clarify: false }));
    assert.deepEqual(sessionOptions(s), { depth: 'deep', clarify: false, personas: ['Ops Architect'] }); // unset caps: the sidecar's defaults
    assert.deepEqual(sessionOptions(s, 'GPT').provider, 'client');
  });
  it('council.language: auto sends none (the question decides), else the language; VS Code\'s display language as uiLanguage', () => {
    const auto = readSettings(cfg({}));
    assert.equal(auto.language, 'auto');
    assert.equal(sessionOptions(auto, undefined, 'ru').language, undefined);
    assert.equal(sessionOptions(auto, undefined, 'ru').uiLanguage, 'ru');
    assert.equal(sessionOptions(readSettings(cfg({ language: 'ru' })), undefined, 'en').language, 'ru');
    assert.equal(readSettings(cfg({ language: 'klingon' })).language, 'auto');
    assert.equal(sessionOptions(auto, undefined, 'x'.repeat(80)).uiLanguage?.length, 35);
  });
  it('council.debate.speculate: auto sends none (the sidecar decides by the models), else the choice', () => {
    assert.equal(readSettings(cfg({})).speculate, 'auto');
    assert.equal(sessionOptions(readSettings(cfg({}))).speculate, undefined);
    assert.equal(sessionOptions(readSettings(cfg({ 'debate.speculate': 'always' }))).speculate, 'always');
    assert.equal(sessionOptions(readSettings(cfg({ 'debate.speculate': 'never' }))).speculate, 'never');
    assert.equal(readSettings(cfg({ 'debate.speculate': 'sometimes' })).speculate, 'auto');
  });
  it('council.models and council.maxModelCalls: the seating and the budget of a session', () => {
    const defaults = readSettings(cfg({}));
    assert.equal(defaults.models, 'diverse');
    assert.equal(defaults.maxModelCalls, undefined);
    assert.equal(sessionOptions(defaults).seating, undefined, 'no chat model: no seating on it');
    assert.equal(sessionOptions(defaults, 'GPT-5').seating, 'diverse');
    assert.equal(readSettings(cfg({ models: 'chat' })).models, 'chat');
    assert.equal(readSettings(cfg({ models: 'bogus' })).models, 'diverse');
    assert.equal(readSettings(cfg({ models: ['gpt-5'] })).models, 'diverse');
    const map = readSettings(cfg({ models: { ' Security Expert ': ' claude-sonnet-4 ', Chef: 3, '': 'x', ['x'.repeat(81)]: 'y' } })).models;
    assert.deepEqual(map, { 'Security Expert': 'claude-sonnet-4' });
    const budget = readSettings(cfg({ maxModelCalls: 25 }));
    assert.equal(sessionOptions(budget).maxModelCalls, 25, 'the budget holds whichever model answers');
    assert.equal(readSettings(cfg({ maxModelCalls: 1 })).maxModelCalls, 3);
    assert.equal(readSettings(cfg({ maxModelCalls: null })).maxModelCalls, undefined);
  });
  it('sidecar launch: chat mode uses the HTTP provider as the fallback default', () => {
    assert.deepEqual(sidecarLaunch(readSettings(cfg({})), ['/ext/personas']).args, ['--personas-dir', '/ext/personas']);
    const s = readSettings(cfg({ 'http.provider': 'ollama', 'http.model': 'llama3.1', 'http.baseUrl': 'http://h:11434' }));
    assert.deepEqual(sidecarLaunch(s, []).args, ['--provider', 'ollama', '--model', 'llama3.1', '--base-url', 'http://h:11434']);
    assert.deepEqual(sidecarLaunch(readSettings(cfg({ provider: 'scripted' })), []).args, ['--provider', 'scripted']);
    assert.deepEqual(sidecarLaunch(readSettings(cfg({ 'routing.embeddings': false })), []).args, ['--no-embeddings']);
  });
  it('mcp launch: in chat mode the HTTP fallback is a configured default (env), so the client model (sampling) comes first', () => {
    const s = readSettings(cfg({ 'http.provider': 'openai', 'http.model': 'm', 'http.baseUrl': 'http://h/v1', 'http.apiKeyEnv': 'KEY' }));
    const launch = sidecarLaunch(s, [], {}, 'mcp');
    assert.deepEqual(launch.args, ['--no-roots']);
    assert.deepEqual(launch.env, { COUNCIL_PROVIDER: 'openai', COUNCIL_MODEL: 'm', COUNCIL_BASE_URL: 'http://h/v1', COUNCIL_API_KEY_ENV: 'KEY' });
    assert.deepEqual(sidecarLaunch(readSettings(cfg({})), [], {}, 'mcp'), { args: ['--no-roots'], env: {} });
    const explicit = sidecarLaunch(readSettings(cfg({ provider: 'ollama', 'http.model': 'q' })), [], {}, 'mcp');
    assert.deepEqual(explicit, { args: ['--no-roots', '--provider', 'ollama', '--model', 'q'], env: {} }, 'an explicit provider wins over sampling');
    assert.deepEqual(sidecarLaunch(readSettings(cfg({})), [], { workspace: '/ws' }, 'mcp').args, ['--workspace', '/ws'],
      'the trusted workspace is given, so the roots are never asked');
  });
  it('sidecar launch: the workspace (trusted only) brings evidence, and memory when opted in', () => {
    const defaults = readSettings(cfg({}));
    assert.equal(defaults.evidence, true);
    assert.equal(defaults.memory, false);
    assert.equal(defaults.transcriptsDirectory, '');
    assert.deepEqual(sidecarLaunch(defaults, []).args, [], 'no workspace (untrusted): no evidence, no memory');
    assert.deepEqual(sidecarLaunch(defaults, [], {}, 'mcp').args, ['--no-roots'], 'untrusted: not the MCP roots either');
    assert.deepEqual(sidecarLaunch(defaults, [], { workspace: '/ws' }).args, ['--workspace', '/ws']);
    assert.deepEqual(sidecarLaunch(readSettings(cfg({ 'memory.enabled': true })), [], {}).args, [], 'memory needs the workspace');
    const both = readSettings(cfg({ 'memory.enabled': true, 'evidence.enabled': false }));
    assert.deepEqual(sidecarLaunch(both, [], { workspace: '/ws' }).args, ['--workspace', '/ws', '--no-evidence', '--memory']);
  });
  it('transcripts: written only when a folder is set; relative folders live in the workspace', () => {
    assert.equal(transcriptDir(readSettings(cfg({})), '/home/u', '/ws'), undefined);
    const rel = readSettings(cfg({ 'transcripts.directory': '.council/transcripts' }));
    assert.equal(transcriptDir(rel, '/home/u', '/ws'), '/ws/.council/transcripts');
    assert.equal(transcriptDir(rel, '/home/u', undefined), undefined, 'a relative folder needs a workspace');
    assert.equal(transcriptDir(readSettings(cfg({ 'transcripts.directory': '~/notes' })), '/home/u', undefined), '/home/u/notes');
    const dir = transcriptDir(readSettings(cfg({ 'transcripts.directory': '${workspaceFolder}/t' })), '/h', '/ws');
    assert.deepEqual(sidecarLaunch(readSettings(cfg({})), [], { transcriptDir: dir }).args, ['--transcript-dir', '/ws/t']);
  });
  it('expands ~ and ${workspaceFolder}', () => {
    assert.equal(expandPath('~/py', '/home/u', undefined), '/home/u/py');
    assert.equal(expandPath('${workspaceFolder}/.venv/bin/python', '/h', '/ws'), '/ws/.venv/bin/python');
  });
});

describe('python discovery', () => {
  it('order: setting, Python extension, python3', async () => {
    assert.deepEqual(await resolveInterpreter({ configured: '/x/python', pythonExtension: async () => '/y' }), { command: '/x/python', source: 'setting' });
    assert.deepEqual(await resolveInterpreter({ configured: '', pythonExtension: async () => '/y/python' }), { command: '/y/python', source: 'python-extension' });
    assert.equal((await resolveInterpreter({ configured: '', pythonExtension: async () => { throw new Error('x'); } })).source, 'default');
  });
  it("asks the Python extension's published API for the active interpreter, when it is installed", async () => {
    const mock = (vscode as unknown as { __mock: { extensions: Map<string, unknown>; reset(): void } }).__mock;
    mock.reset();
    assert.equal(await activePythonFromExtension(), undefined, 'not installed: nothing to ask');
    const asked: unknown[] = [];
    let resolved: unknown = { executable: { uri: vscode.Uri.file('/envs/app/bin/python') } };
    const environments = {
      getActiveEnvironmentPath: (resource?: unknown) => (asked.push(resource), { id: 'app', path: '/envs/app' }),
      resolveEnvironment: async (env: { path: string }) => (asked.push(env.path), resolved),
    };
    const python = { isActive: false, exports: { environments }, activate: async () => ((python.isActive = true), python.exports) };
    mock.extensions.set('ms-python.python', python);
    const folder = vscode.Uri.file('/ws');
    assert.equal(await activePythonFromExtension(folder), '/envs/app/bin/python');
    assert.equal(python.isActive, true, 'an inactive Python extension is activated first');
    assert.deepEqual(asked, [folder, '/envs/app']);
    resolved = undefined; // an environment it cannot resolve: the active path as it reported it
    assert.equal(await activePythonFromExtension(folder), '/envs/app');
    mock.reset();
  });
  it('version check', () => {
    assert.equal(versionOk([3, 10, 0]), true);
    assert.equal(versionOk([3, 9, 18]), false);
    assert.equal(versionOk([4, 0, 0]), true);
  });
  it('a missing interpreter is an actionable error', async () => {
    await assert.rejects(probe('/nonexistent/python3', process.env), (e: unknown) => e instanceof PythonSetupError && /not found.*council\.python\.interpreter/.test(e.message));
  });
  it('an old Python is refused with the fix', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'council-py-'));
    const fake = path.join(dir, 'python');
    fs.writeFileSync(fake, '#!/bin/sh\necho \'{"version": [3, 8, 10], "executable": "/old/python", "sidecar": false}\'\n', { mode: 0o755 });
    await assert.rejects(
      preparePython({ command: fake, source: 'setting' }, { extensionPath: dir, storagePath: dir, version: '1', withProgress: (_t, task) => task(() => {}) }),
      (e: unknown) => e instanceof PythonSetupError && /needs Python 3\.10 or newer.*3\.8\.10/.test(e.message),
    );
  });
  it('an interpreter with the sidecar dependencies runs the shipped sources via PYTHONPATH', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'council-py-'));
    const fake = path.join(dir, 'python');
    fs.writeFileSync(fake, '#!/bin/sh\necho \'{"version": [3, 12, 1], "executable": "/usr/bin/python3.12", "sidecar": true}\'\n', { mode: 0o755 });
    const launch = await preparePython({ command: fake, source: 'default' }, { extensionPath: '/ext', storagePath: dir, version: '1', withProgress: (_t, task) => task(() => {}) });
    assert.equal(launch.command, '/usr/bin/python3.12');
    assert.equal(launch.env.PYTHONPATH.split(path.delimiter)[0], '/ext/server');
  });
  it('the private venv is reused when its marker matches the version (no progress, no pip)', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'council-venv-'));
    const py = venvPython(path.join(dir, 'venv'));
    fs.mkdirSync(path.dirname(py), { recursive: true });
    fs.writeFileSync(py, '');
    fs.writeFileSync(path.join(dir, 'venv', 'council-sidecar-version.txt'), '0.1.0\n');
    let progress = 0;
    const got = await ensurePrivateVenv({ basePython: 'python3', extensionPath: dir, storagePath: dir, version: '0.1.0', withProgress: (_t, task) => { progress++; return task(() => {}); } });
    assert.equal(got, py);
    assert.equal(progress, 0);
  });
});

describe('turn registry', () => {
  const handlers = () => ({ model: undefined, token: { isCancellationRequested: false, onCancellationRequested: () => ({ dispose() {} }) }, onEvent: () => {} });

  it('routes a new session started from an old chat to the turn that proposed its id', () => {
    const r = new TurnRegistry<any>();
    const old = r.begin('finished-session', handlers());
    old.proposedSessionId = 'proposed-1';
    const other = r.begin(undefined, handlers());
    other.proposedSessionId = 'proposed-2';
    assert.equal(r.forSession('proposed-2'), other);
    assert.equal(r.forSession('proposed-1'), old);
    assert.equal(old.sessionId, 'proposed-1');
    assert.equal(r.forSession('finished-session'), undefined);
  });

  it('binds the oldest unbound turn to the first unknown session', () => {
    const r = new TurnRegistry<any>();
    const h = { model: undefined, token: { isCancellationRequested: false, onCancellationRequested: () => ({ dispose() {} }) }, onEvent: () => {} };
    const known = r.begin('s1', h);
    const fresh = r.begin(undefined, h);
    assert.equal(r.forSession('s1'), known);
    assert.equal(r.forSession('s2'), fresh);
    assert.equal(fresh.sessionId, 's2');
    assert.equal(r.forSession('s3'), undefined);
    r.end(fresh);
    assert.equal(r.active.length, 1);
  });
});
