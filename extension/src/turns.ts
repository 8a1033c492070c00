/**
 * The chat turns currently running, by session: routes `council/event` notifications to the right response
 * stream and `council/complete` requests to the right chat model and cancellation token.
 *
 * A turn that may start a new session proposes the new session's id (`newSessionId`), so events of a session
 * the sidecar starts are routed from the first one, even when the chat's history still names an older session.
 */
import type { WireEvent } from './protocol';

/** Delivers one session's events in `seq` order exactly once: repeats are dropped, early arrivals held briefly. */
export class SeqOrderer<E extends { seq: number }> {
  private last: number | undefined;
  private readonly held = new Map<number, E>();

  constructor(private readonly deliver: (event: E) => void, private readonly maxHeld = 8) {}

  push(event: E): void {
    // The first event sets the baseline (a turn joins a session's stream part way through).
    this.last ??= event.seq - 1;
    if (event.seq <= this.last || this.held.has(event.seq)) return;
    this.held.set(event.seq, event);
    this.drain();
    if (this.held.size > this.maxHeld) this.flush();
  }

  /** Deliver everything held, in order (a gap will not be filled: the turn is over). */
  flush(): void {
    for (const seq of [...this.held.keys()].sort((a, b) => a - b)) {
      const e = this.held.get(seq) as E;
      this.held.delete(seq);
      if (this.last === undefined || seq > this.last) {
        this.last = seq;
        this.deliver(e);
      }
    }
  }

  private drain(): void {
    while (this.last !== undefined && this.held.has(this.last + 1)) {
      const e = this.held.get(this.last + 1) as E;
      this.held.delete(this.last + 1);
      this.last += 1;
      this.deliver(e);
    }
  }
}

/** The chat model of the current request (structural subset of vscode.LanguageModelChat). */
export interface TurnModel {
  readonly id: string;
  readonly name: string;
  readonly vendor?: string;
}

export interface CancellationLike {
  readonly isCancellationRequested: boolean;
  onCancellationRequested(listener: () => void): { dispose(): void };
}

export interface TurnHandlers<M extends TurnModel = TurnModel> {
  /** The model that serves `council/complete` for this turn, undefined when the chat's model may not be used. */
  model: M | undefined;
  token: CancellationLike;
  onEvent(event: WireEvent): void;
}

export class ActiveTurn<M extends TurnModel = TurnModel> {
  /** The id proposed for a session this turn may start (`TurnParams.newSessionId`). */
  proposedSessionId: string | undefined;
  private orderer: SeqOrderer<WireEvent>;

  constructor(public sessionId: string | undefined, readonly handlers: TurnHandlers<M>) {
    this.orderer = new SeqOrderer<WireEvent>((e) => handlers.onEvent(e));
  }

  /** The turn is sent again to a new sidecar (or as a new session): its events get a new baseline. */
  resetOrder(): void {
    this.orderer.flush();
    this.orderer = new SeqOrderer<WireEvent>((e) => this.handlers.onEvent(e));
  }

  deliver(event: WireEvent): void {
    this.orderer.push(event);
  }

  flush(): void {
    this.orderer.flush();
  }
}

export class TurnRegistry<M extends TurnModel = TurnModel> {
  private readonly turns: ActiveTurn<M>[] = [];

  begin(sessionId: string | undefined, handlers: TurnHandlers<M>): ActiveTurn<M> {
    const turn = new ActiveTurn<M>(sessionId, handlers);
    this.turns.push(turn);
    return turn;
  }

  end(turn: ActiveTurn<M>): void {
    turn.flush();
    const i = this.turns.indexOf(turn);
    if (i >= 0) this.turns.splice(i, 1);
  }

  /** The turn serving `sessionId`; binds the oldest turn still without a session id when none is bound yet. */
  forSession(sessionId: string): ActiveTurn<M> | undefined {
    const bound = this.turns.filter((t) => t.sessionId === sessionId);
    if (bound.length > 0) return bound[bound.length - 1];
    const proposer = this.turns.find((t) => t.proposedSessionId === sessionId);
    if (proposer) {
      proposer.sessionId = sessionId;
      return proposer;
    }
    const unbound = this.turns.find((t) => t.sessionId === undefined);
    if (unbound) unbound.sessionId = sessionId;
    return unbound;
  }

  /** Route one notification; false when no turn is waiting for it. */
  dispatch(event: WireEvent): boolean {
    const turn = this.forSession(event.sessionId);
    if (!turn) return false;
    turn.deliver(event);
    return true;
  }

  get active(): readonly ActiveTurn<M>[] {
    return this.turns;
  }
}
