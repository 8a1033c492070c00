/**
 * Keeps each live session's journal (`council/snapshot` with `includeJournal`, after every turn) and the last event
 * seq seen per session, so a new sidecar gets every session back through `council/restore` and a restored session's
 * events continue after what the chat already shows. Across window reloads only with
 * `council.sessions.keepAcrossReloads` (then in the workspace state). See README, 'In VS Code'.
 */
import { describeError, log } from './log';
import type { RestoreResult, SessionStatus } from './wire';

/** Sends one request to the sidecar that is starting (the normal request path waits for the restore). */
export type RawRequest = (method: 'council/restore', params: { sessionId: string; journal: Record<string, unknown>[]; lastSeq: number }) => Promise<RestoreResult>;

export type SnapshotRequest = (sessionId: string) => Promise<{ journal?: Record<string, unknown>[] | null; status: SessionStatus; problem: string }>;

/** Where journals are persisted when the user opted in (vscode.Memento in the extension). */
export interface JournalStore {
  get<T>(key: string): T | undefined;
  update(key: string, value: unknown): Thenable<void>;
}

export interface KeptSession {
  sessionId: string;
  journal: Record<string, unknown>[];
  lastSeq: number;
  status: SessionStatus;
  problem: string;
}

export const MAX_KEPT = 32;
const STORE_KEY = 'council.sessions';
/** Persisted journals are bounded in size too (workspace state is not a database). */
const MAX_PERSISTED_CHARS = 4_000_000;

export class SessionKeeper {
  private readonly kept = new Map<string, KeptSession>();
  private readonly seqs = new Map<string, number>();

  /** `persist`: where journals are saved for the next window, or undefined while the user has not opted in. */
  constructor(private readonly persist: () => JournalStore | undefined = () => undefined) {}

  /** Load what an earlier window persisted (only when the user opted in). */
  load(): number {
    const store = this.persist();
    const saved = store?.get<KeptSession[]>(STORE_KEY);
    if (!Array.isArray(saved)) return 0;
    for (const s of saved) {
      if (s && typeof s.sessionId === 'string' && Array.isArray(s.journal) && s.journal.length > 0) {
        this.kept.set(s.sessionId, s);
        this.noteSeq(s.sessionId, s.lastSeq);
      }
    }
    return this.kept.size;
  }

  noteSeq(sessionId: string, seq: number): void {
    if (seq > (this.seqs.get(sessionId) ?? 0)) this.seqs.set(sessionId, seq);
  }

  lastSeq(sessionId: string): number {
    return this.seqs.get(sessionId) ?? 0;
  }

  has(sessionId: string): boolean {
    return this.kept.has(sessionId);
  }

  get(sessionId: string): KeptSession | undefined {
    return this.kept.get(sessionId);
  }

  get size(): number {
    return this.kept.size;
  }

  /** Take the session's journal after a turn; a cancelled session is let go. Never throws. */
  async remember(sessionId: string, snapshot: SnapshotRequest): Promise<void> {
    try {
      const snap = await snapshot(sessionId);
      if (snap.status === 'cancelled' || !snap.journal || snap.journal.length === 0) {
        this.forget(sessionId);
        return;
      }
      this.kept.delete(sessionId);
      this.kept.set(sessionId, {
        sessionId, journal: snap.journal, lastSeq: this.lastSeq(sessionId), status: snap.status, problem: snap.problem,
      });
      // At most MAX_KEPT: the map keeps insertion order and the session was just re-inserted, so the first is the oldest.
      while (this.kept.size > MAX_KEPT) this.kept.delete(this.kept.keys().next().value as string);
      await this.save();
    } catch (err) {
      log.warn(`could not keep the journal of session ${sessionId}: ${describeError(err)}`);
    }
  }

  forget(sessionId: string): void {
    if (this.kept.delete(sessionId)) void this.save();
  }

  /** Restore every kept session into a sidecar that just started; a journal the sidecar refuses is dropped. */
  async restoreAll(send: RawRequest): Promise<RestoreResult[]> {
    const out: RestoreResult[] = [];
    for (const s of [...this.kept.values()]) {
      try {
        out.push(await send('council/restore', { sessionId: s.sessionId, journal: s.journal, lastSeq: this.lastSeq(s.sessionId) }));
      } catch (err) {
        log.warn(`session ${s.sessionId} could not be restored and is dropped: ${describeError(err)}`);
        this.kept.delete(s.sessionId);
      }
    }
    if (out.length > 0) log.info(`restored ${out.length} session(s) into the new sidecar: ${out.map((r) => `${r.sessionId} (${r.status})`).join(', ')}`);
    return out;
  }

  private async save(): Promise<void> {
    const store = this.persist();
    if (!store) return;
    const newestFirst = [...this.kept.values()].reverse();
    const keep: KeptSession[] = [];
    let chars = 0;
    for (const s of newestFirst) {
      chars += JSON.stringify(s.journal).length;
      if (chars > MAX_PERSISTED_CHARS) break;
      keep.push({ ...s, lastSeq: this.lastSeq(s.sessionId) });
    }
    try {
      await store.update(STORE_KEY, keep.reverse());
      log.info(`kept ${keep.length} session journal(s) for the next window`);
    } catch (err) {
      log.warn(`could not save the council sessions: ${describeError(err)}`);
    }
  }

  async clearPersisted(store: JournalStore): Promise<void> {
    await store.update(STORE_KEY, undefined);
  }
}
