/** The sidecar lifecycle (start, failure, events, completion routing, crash policy, restarts) with a fake LanguageClient. */
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { beforeEach, describe, it } from 'node:test';
import * as vscode from 'vscode';
import type * as ClientModule from '../../src/client';
import type * as PythonModule from '../../src/python';
import type * as SidecarModule from '../../src/sidecar';

const mock = (vscode as any).__mock;

// A stand-in for vscode-languageclient/node, installed in the require cache before sidecar.js loads.
const State = { Stopped: 1, Running: 2, Starting: 3 } as const;
const CloseAction = { DoNotRestart: 1, Restart: 2 } as const;
const ErrorAction = { Continue: 1, Shutdown: 2 } as const;
class FakeLanguageClient {
  static instances: FakeLanguageClient[] = [];
  static startBehaviour: () => Promise<void> = () => Promise.resolve();
  state: number = State.Stopped;
  notifications = new Map<string, (p: unknown) => void>();
  requests = new Map<string, (p: unknown, t: unknown) => unknown>();
  sent: { method: string; params: unknown }[] = [];
  stopped = 0;
  stateListeners: ((e: { oldState: number; newState: number }) => void)[] = [];
  constructor(readonly id: string, readonly name: string, readonly serverOptions: any, readonly clientOptions: any) {
    FakeLanguageClient.instances.push(this);
  }
  async start(): Promise<void> {
    this.setState(State.Starting);
    await FakeLanguageClient.startBehaviour();
    this.setState(State.Running);
  }
  setState(newState: number): void {
    const oldState = this.state;
    this.state = newState;
    for (const l of this.stateListeners) l({ oldState, newState });
  }
  onDidChangeState(l: (e: { oldState: number; newState: number }) => void): { dispose(): void } {
    this.stateListeners.push(l);
    return { dispose: () => undefined };
  }
  async stop(): Promise<void> {
    this.stopped++;
    this.state = State.Stopped;
  }
  async dispose(): Promise<void> {
    this.state = State.Stopped;
  }
  onNotification(method: string, h: (p: unknown) => void): void {
    this.notifications.set(method, h);
  }
  onRequest(method: string, h: (p: unknown, t: unknown) => unknown): void {
    this.requests.set(method, h);
  }
  async sendRequest(method: string, params: unknown): Promise<unknown> {
    this.sent.push({ method, params });
    return { ok: method };
  }
  async sendNotification(method: string, params: unknown): Promise<void> {
    this.sent.push({ method, params });
  }
}
const lcPath = require.resolve('vscode-languageclient/node');
require.cache[lcPath] = { id: lcPath, filename: lcPath, loaded: true, exports: { LanguageClient: FakeLanguageClient, State, CloseAction, ErrorAction } } as any;
const { Sidecar } = require('../../src/sidecar') as typeof SidecarModule;
const { SidecarUnavailableError } = require('../../src/client') as typeof ClientModule;
const { PythonSetupError } = require('../../src/python') as typeof PythonModule;

const command = { command: '/py', args: ['-m', 'council', 'serve'], env: {} };
function make(resolve: () => Promise<typeof command> = async () => command) {
  const failures: unknown[] = [];
  const sidecar = new Sidecar({ outputChannel: {} as vscode.LogOutputChannel, resolveCommand: resolve, onStartFailed: (e) => failures.push(e) });
  return { sidecar, failures };
}
const last = () => FakeLanguageClient.instances[FakeLanguageClient.instances.length - 1];

describe('Sidecar lifecycle', () => {
  beforeEach(() => {
    mock.reset();
    FakeLanguageClient.instances = [];
    FakeLanguageClient.startBehaviour = () => Promise.resolve();
  });

  it('starts once for concurrent callers, without a --stdio argument, and forwards requests', async () => {
    const { sidecar } = make();
    const [a, b] = await Promise.all([sidecar.start(), sidecar.start()]);
    assert.equal(a, b);
    assert.equal(FakeLanguageClient.instances.length, 1);
    assert.equal(last().serverOptions.transport, undefined);
    assert.deepEqual(last().serverOptions.args, ['-m', 'council', 'serve']);
    assert.deepEqual(last().clientOptions.documentSelector, []);
    assert.deepEqual(await sidecar.request('council/personas', {}), { ok: 'council/personas' });
  });

  it('an interpreter problem is reported once per attempt and requests fail readably', async () => {
    const { sidecar, failures } = make(async () => {
      throw new PythonSetupError('Council needs Python 3.10 or newer', 'setInterpreter');
    });
    assert.equal(await sidecar.start(), undefined);
    assert.equal(failures.length, 1);
    await assert.rejects(sidecar.request('council/personas', {}), (e: unknown) => e instanceof SidecarUnavailableError);
    assert.equal(failures.length, 2, 'the next request tries again');
  });

  it('a failed initialize is reported; a start superseded by a restart is not', async () => {
    FakeLanguageClient.startBehaviour = () => Promise.reject(new Error('initialize failed'));
    const { sidecar, failures } = make();
    assert.equal(await sidecar.start(), undefined);
    assert.equal(failures.length, 1);
    let release: () => void = () => {};
    FakeLanguageClient.startBehaviour = () => new Promise<void>((_r, reject) => (release = () => reject(new Error('Pending response rejected since connection got disposed'))));
    const starting = sidecar.start();
    await new Promise((r) => setImmediate(r));
    const stopping = sidecar.stop();
    release();
    await Promise.all([starting, stopping]);
    assert.equal(failures.length, 1);
  });

  it('routes council/event notifications and council/complete requests', async () => {
    const { sidecar } = make();
    const events: unknown[] = [];
    sidecar.onEvent((e) => events.push(e));
    sidecar.setCompletionHandler(async (p) => ({ text: `for ${p.purpose}` }));
    await sidecar.start();
    const notify = last().notifications.get('council/event')!;
    notify({ sessionId: 's', seq: 1, type: 'progress', message: 'hi', at: '' });
    notify({ nonsense: true });
    assert.equal(events.length, 1);
    const complete = last().requests.get('council/complete')!;
    assert.deepEqual(await complete({ purpose: 'clarifier' }, new vscode.CancellationTokenSource().token), { text: 'for clarifier' });
    sidecar.sendDelta({ streamId: 'x', text: 'y' });
    assert.deepEqual(last().sent.at(-1), { method: 'council/completeDelta', params: { streamId: 'x', text: 'y' } });
  });

  it('a crash restarts the sidecar quietly (sessions are restored); repeated crashes stop restarting', async () => {
    const { sidecar } = make();
    await sidecar.start();
    const closed = () => last().clientOptions.errorHandler.closed();
    for (let i = 0; i < 4; i++) assert.equal(closed().action, CloseAction.Restart);
    assert.equal(mock.messages.length, 0);
    assert.equal(closed().action, CloseAction.DoNotRestart);
    assert.ok(mock.messages.some((m: any) => m.level === 'error' && /crashed repeatedly/.test(m.text)));
  });

  it('every new process runs onReady (the restore) before requests are sent, and whenReadyAfter waits for a newer one', async () => {
    const order: string[] = [];
    let release!: () => void;
    const sidecar = new Sidecar({
      outputChannel: {} as vscode.LogOutputChannel,
      resolveCommand: async () => command,
      onStartFailed: () => undefined,
      onReady: async (send) => {
        order.push('ready');
        await new Promise<void>((r) => (release = r));
        await send('council/restore', { sessionId: 's', journal: [{}], lastSeq: 3 });
      },
    });
    const pending = sidecar.request('council/personas', {}).then(() => order.push('request'));
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(order, ['ready']);
    assert.equal(sidecar.generation, 0);
    release();
    await pending;
    assert.deepEqual(order, ['ready', 'request']);
    assert.deepEqual(last().sent.map((m) => m.method), ['council/restore', 'council/personas']);
    assert.equal(sidecar.generation, 1);
    await sidecar.whenReadyAfter(0);
    // A crash: the language client restarts the process by itself; whoever waits gets the next ready process.
    const waiting = sidecar.whenReadyAfter(1, 5_000).then(() => order.push('restarted'));
    last().setState(State.Starting);
    last().setState(State.Running);
    await new Promise((r) => setImmediate(r));
    release();
    await waiting;
    assert.equal(sidecar.generation, 2);
    assert.deepEqual(order.slice(-2), ['ready', 'restarted']);
  });

  it('a request waits for the restore even when the client reports Running only after start() resolved', async () => {
    const order: string[] = [];
    const original = FakeLanguageClient.prototype.start;
    FakeLanguageClient.prototype.start = async function (this: FakeLanguageClient) {
      this.state = State.Running; // no event yet: it comes later, as the real client may do
      setTimeout(() => this.setState(State.Running), 30);
    };
    try {
      const sidecar = new Sidecar({
        outputChannel: {} as vscode.LogOutputChannel,
        resolveCommand: async () => command,
        onStartFailed: () => undefined,
        onReady: async () => {
          order.push('restored');
        },
      });
      await sidecar.request('council/personas', {});
      order.push('request');
      assert.deepEqual(order, ['restored', 'request']);
    } finally {
      FakeLanguageClient.prototype.start = original;
    }
  });

  it('whenReadyAfter rejects with a readable error when no new process comes', async () => {
    const { sidecar } = make();
    await sidecar.start();
    await assert.rejects(sidecar.whenReadyAfter(sidecar.generation, 20), (e: unknown) => e instanceof SidecarUnavailableError && /not restarted/.test((e).message));
  });

  it('a deliberate stop is not a crash', async () => {
    const { sidecar } = make();
    await sidecar.start();
    const client = last();
    const stopping = sidecar.stop();
    assert.equal(client.clientOptions.errorHandler.closed().action, CloseAction.DoNotRestart);
    await stopping;
    assert.equal(mock.messages.length, 0);
  });

  it('concurrent restarts are coalesced into one stop and one start', async () => {
    const { sidecar } = make();
    await sidecar.start();
    const first = last();
    await Promise.all([sidecar.restart(), sidecar.restart()]);
    assert.equal(first.stopped, 1);
    assert.equal(FakeLanguageClient.instances.length, 2);
    assert.equal(sidecar.running, true);
  });

  it("the sidecar's stderr reaches the channel at each record's level, not all as errors", async () => {
    const { sidecar } = make();
    await sidecar.start();
    const seen: string[] = [];
    const channel = Object.fromEntries(['trace', 'debug', 'info', 'warn', 'error'].map((l) => [l, (t: string) => seen.push(`${l} ${t}`)]));
    const stderr = new PassThrough();
    last().clientOptions.stdioOptions.stderr(stderr, channel);
    stderr.end('2026-11-23 10:54:11,568 INFO council.serve: ready\n2026-11-23 10:54:11,570 WARNING council.gate: odd frame\n');
    await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(seen, ['info council.serve: ready', 'warn council.gate: odd frame']);
  });
});
