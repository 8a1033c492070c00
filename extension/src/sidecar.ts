/**
 * Owns the sidecar process: starts `python -m council serve` with vscode-languageclient, restarts it (debounced),
 * tells the user when it crashes, and gives the rest of the extension typed requests and the event stream.
 */
import * as vscode from 'vscode';
import type { CloseHandlerResult, ErrorHandlerResult, LanguageClientOptions, ServerOptions } from 'vscode-languageclient/node';
import { CloseAction, ErrorAction, LanguageClient, State } from 'vscode-languageclient/node';
import type { CouncilClient } from './client';
import type { RawRequest } from './keeper';
import { SidecarUnavailableError } from './client';
import { describeError, log } from './log';
import type { WireEvent } from './protocol';
import { isWireEvent } from './protocol';
import type { SidecarCommand } from './settings';
import { sidecarStdio } from './sidecarlog';
import type { CompleteDelta, CompleteParams, CompleteResult, MethodTypes } from './wire';
import { COMPLETE_DELTA_METHOD, COMPLETE_METHOD, EVENT_METHOD } from './wire';

export interface SidecarOptions {
  outputChannel: vscode.LogOutputChannel;
  /** Resolves how to start the sidecar (may bootstrap a venv); throws an actionable error. */
  resolveCommand(): Promise<SidecarCommand>;
  /** Shown when the sidecar cannot start; the buttons map to commands. */
  onStartFailed(err: unknown): void;
  /** Runs when a sidecar process is ready, before any waiting request is sent (restores the kept sessions). */
  onReady?(send: RawRequest): Promise<unknown>;
}

type CompletionHandler = (params: CompleteParams, token: vscode.CancellationToken) => Promise<CompleteResult>;

const CRASH_WINDOW_MS = 3 * 60_000;
const MAX_CRASHES = 4;

export class Sidecar implements CouncilClient, vscode.Disposable {
  private client: LanguageClient | undefined;
  private starting: Promise<LanguageClient | undefined> | undefined;
  private restarting: Promise<void> | undefined;
  private stopping = false;
  private crashes: number[] = [];
  private readonly events = new vscode.EventEmitter<WireEvent>();
  private completion: CompletionHandler | undefined;
  private readonly readyEvents = new vscode.EventEmitter<void>();
  /** Counts the processes that became ready; a request remembers it to wait for a newer one after a crash. */
  generation = 0;
  /** The client whose current run had its `onReady` work done (undefined while it starts again). */
  private prepared: LanguageClient | undefined;
  readonly onEvent = this.events.event;

  constructor(private readonly options: SidecarOptions) {}

  setCompletionHandler(handler: CompletionHandler): void {
    this.completion = handler;
  }

  get running(): boolean {
    return this.client?.state === State.Running;
  }

  /** Start once; concurrent callers share the attempt. Resolves undefined (and logs why) on failure. */
  start(): Promise<LanguageClient | undefined> {
    if (this.client && this.client.state !== State.Stopped) return Promise.resolve(this.client);
    this.starting ??= this.doStart().finally(() => {
      this.starting = undefined;
    });
    return this.starting;
  }

  async stop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (!client) return;
    this.stopping = true;
    try {
      if (client.state !== State.Stopped) await client.stop(5_000);
    } catch (err) {
      log.warn(`stopping the sidecar: ${describeError(err)}`);
    } finally {
      this.stopping = false;
      await client.dispose().catch(() => undefined);
    }
  }

  /** Stop and start again with freshly resolved settings; concurrent calls are coalesced. */
  restart(): Promise<void> {
    this.restarting ??= (async () => {
      try {
        await this.starting;
        await this.stop();
        this.crashes = [];
        await this.start();
      } finally {
        this.restarting = undefined;
      }
    })();
    return this.restarting;
  }

  async request<M extends keyof MethodTypes>(
    method: M,
    params: MethodTypes[M]['params'],
    token?: vscode.CancellationToken,
  ): Promise<MethodTypes[M]['result']> {
    if (this.restarting) await this.restarting;
    const client = await this.start();
    if (!client) throw new SidecarUnavailableError('it failed to start. See **Council: Show Logs** for the reason.');
    // A request sent before the process's `onReady` work (the restore) would find its session missing; after a
    // minute it is sent anyway rather than blocking forever.
    if (!(await this.waitReady(() => this.prepared === client, 60_000))) log.warn('the sidecar was not prepared within a minute; sending anyway');
    return token ? client.sendRequest<MethodTypes[M]['result']>(method, params, token) : client.sendRequest<MethodTypes[M]['result']>(method, params);
  }

  sendDelta(delta: CompleteDelta): void {
    const client = this.client;
    if (client?.state === State.Running) {
      client.sendNotification(COMPLETE_DELTA_METHOD, delta).catch((err: unknown) => log.trace(`completeDelta not sent: ${describeError(err)}`));
    }
  }

  /** True once `ready()` holds (checked now and whenever a process becomes ready); false after `timeoutMs`. */
  private waitReady(ready: () => boolean, timeoutMs: number): Promise<boolean> {
    if (ready()) return Promise.resolve(true);
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => {
        sub.dispose();
        resolve(false);
      }, timeoutMs);
      const sub = this.readyEvents.event(() => {
        if (!ready()) return;
        clearTimeout(timer);
        sub.dispose();
        resolve(true);
      });
    });
  }

  /**
   * Resolves when a sidecar process newer than `generation` is running and its `onReady` work (the restore) is
   * done. Rejects after `timeoutMs` (the sidecar was not restarted, e.g. it kept crashing).
   */
  async whenReadyAfter(generation: number, timeoutMs = 90_000): Promise<void> {
    const ready = () => this.generation > generation;
    const waiting = this.waitReady(ready, timeoutMs);
    if (!ready() && !this.client && !this.starting && !this.restarting) void this.start();
    if (!(await waiting)) throw new SidecarUnavailableError('it stopped and was not restarted. See **Council: Show Logs** for the reason.');
  }

  dispose(): void {
    void this.stop();
    this.events.dispose();
    this.readyEvents.dispose();
  }

  private async doStart(): Promise<LanguageClient | undefined> {
    let cmd: SidecarCommand;
    try {
      cmd = await this.options.resolveCommand();
    } catch (err) {
      log.error(`cannot start the council sidecar: ${describeError(err)}`);
      this.options.onStartFailed(err);
      return undefined;
    }
    log.info(`starting sidecar: ${cmd.command} ${cmd.args.join(' ')}`);
    const serverOptions: ServerOptions = {
      command: cmd.command,
      args: cmd.args,
      // No `transport`: plain stdio pipes. (TransportKind.stdio would append a `--stdio` argument.)
      options: { env: { ...cmd.env, PYTHONUNBUFFERED: '1', PYTHONIOENCODING: 'utf-8' }, cwd: cmd.cwd },
    };
    const clientOptions: LanguageClientOptions = {
      documentSelector: [],
      outputChannel: this.options.outputChannel,
      traceOutputChannel: this.options.outputChannel,
      // Each stderr line at its own level (the library's default logs all of them as errors).
      stdioOptions: sidecarStdio(),
      revealOutputChannelOn: 4 /* Never: errors are shown by us */,
      initializationFailedHandler: (error) => {
        log.error(`sidecar initialize failed: ${describeError(error)}`);
        return false;
      },
      errorHandler: {
        error: (error, _message, count): ErrorHandlerResult => {
          log.error(`sidecar connection error: ${describeError(error)}`);
          return { action: (count ?? 0) <= 3 ? ErrorAction.Continue : ErrorAction.Shutdown, handled: true };
        },
        closed: (): CloseHandlerResult => this.onClosed(),
      },
    };
    const client = new LanguageClient('council', 'Council Sidecar', serverOptions, clientOptions);
    client.onNotification(EVENT_METHOD, (params: unknown) => {
      if (isWireEvent(params)) this.events.fire(params);
      else log.warn(`malformed ${EVENT_METHOD}: ${JSON.stringify(params).slice(0, 300)}`);
    });
    client.onRequest(COMPLETE_METHOD, async (params: CompleteParams, token: vscode.CancellationToken) => {
      if (!this.completion) throw new Error('completion is not available');
      return this.completion(params, token);
    });
    client.onDidChangeState((e) => {
      if (this.client !== client) return;
      if (e.newState === State.Running) void this.prepare(client); // requests wait for it
      else this.prepared = undefined; // starting or stopped: the next run needs its own restore
    });
    this.client = client;
    try {
      const t0 = Date.now();
      await client.start();
      log.info(`sidecar ready in ${Date.now() - t0} ms`);
      return client;
    } catch (err) {
      const superseded = this.client !== client || this.stopping;
      log[superseded ? 'info' : 'error'](`the council sidecar ${superseded ? 'start was superseded by a restart' : 'failed to start'}: ${describeError(err)}`);
      if (this.client === client) this.client = undefined;
      await client.dispose().catch(() => undefined);
      if (!superseded) this.options.onStartFailed(err);
      return undefined;
    }
  }

  /** The `onReady` work for a process that just started (its failure is logged, never blocks requests). */
  private async prepare(client: LanguageClient): Promise<void> {
    try {
      await this.options.onReady?.((method, params) => client.sendRequest(method, params));
    } catch (err) {
      log.warn(`preparing the new sidecar: ${describeError(err)}`);
    } finally {
      this.prepared = client;
      this.generation++;
      this.readyEvents.fire();
    }
  }

  private onClosed(): CloseHandlerResult {
    if (this.stopping) return { action: CloseAction.DoNotRestart, handled: true };
    const now = Date.now();
    this.crashes = this.crashes.filter((t) => now - t < CRASH_WINDOW_MS);
    this.crashes.push(now);
    if (this.crashes.length > MAX_CRASHES) {
      log.error('the council sidecar keeps crashing; not restarting it');
      void vscode.window
        .showErrorMessage('The Council sidecar crashed repeatedly and was not restarted.', 'Show Logs', 'Restart Sidecar')
        .then((pick) => pick && vscode.commands.executeCommand(pick === 'Show Logs' ? 'council.showLogs' : 'council.restartSidecar'));
      return { action: CloseAction.DoNotRestart, handled: true };
    }
    log.warn('the council sidecar stopped unexpectedly; restarting it and restoring the sessions');
    return { action: CloseAction.Restart, handled: true };
  }
}
