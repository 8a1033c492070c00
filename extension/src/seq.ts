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
