/** The session keeper: journals after turns, the bound, restore into a new sidecar, opt-in persistence. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JournalStore } from '../../src/keeper';
import { MAX_KEPT, SessionKeeper } from '../../src/keeper';

class MemoryStore implements JournalStore {
  data = new Map<string, unknown>();
  get<T>(key: string): T | undefined {
    return this.data.get(key) as T | undefined;
  }
  update(key: string, value: unknown): Thenable<void> {
    if (value === undefined) this.data.delete(key);
    else this.data.set(key, value);
    return Promise.resolve();
  }
}

const snap = (status = 'debating', journal: Record<string, unknown>[] = [{ kind: 'created' }]) => async () => ({ journal, status: status as any, problem: 'Should we split?' });

describe('SessionKeeper', () => {
  it('keeps the journal and the last seq seen, and restores with both', async () => {
    const keeper = new SessionKeeper();
    keeper.noteSeq('s1', 7);
    keeper.noteSeq('s1', 5);
    await keeper.remember('s1', snap());
    keeper.noteSeq('s1', 12); // events of a turn the sidecar died in
    const sent: any[] = [];
    const restored = await keeper.restoreAll(async (method, params) => {
      sent.push({ method, params });
      return { sessionId: params.sessionId, status: 'debating', awaiting: 'nothing', records: 1 };
    });
    assert.equal(restored.length, 1);
    assert.deepEqual(sent, [{ method: 'council/restore', params: { sessionId: 's1', journal: [{ kind: 'created' }], lastSeq: 12 } }]);
    assert.equal(keeper.get('s1')?.problem, 'Should we split?');
  });

  it('lets a cancelled session go, and drops a journal the sidecar refuses', async () => {
    const keeper = new SessionKeeper();
    await keeper.remember('a', snap());
    await keeper.remember('b', snap());
    await keeper.remember('a', snap('cancelled'));
    assert.equal(keeper.has('a'), false);
    await keeper.restoreAll(async () => {
      throw new Error('journal does not validate');
    });
    assert.equal(keeper.size, 0);
  });

  it('never throws when the snapshot fails, and keeps at most MAX_KEPT sessions (oldest out)', async () => {
    const keeper = new SessionKeeper();
    await keeper.remember('x', async () => {
      throw new Error('sidecar gone');
    });
    assert.equal(keeper.size, 0);
    for (let i = 0; i < MAX_KEPT + 3; i++) await keeper.remember(`s${i}`, snap());
    assert.equal(keeper.size, MAX_KEPT);
    assert.equal(keeper.has('s0'), false);
    assert.equal(keeper.has(`s${MAX_KEPT + 2}`), true);
  });

  it('persists only when opted in; a new window loads what was saved; clearing removes it', async () => {
    const store = new MemoryStore();
    const off = new SessionKeeper(() => undefined);
    await off.remember('s1', snap());
    assert.equal(store.data.size, 0);
    const on = new SessionKeeper(() => store);
    await on.remember('s1', snap());
    on.noteSeq('s1', 9);
    await on.remember('s1', snap('completed'));
    const next = new SessionKeeper(() => store);
    assert.equal(next.load(), 1);
    assert.equal(next.get('s1')?.status, 'completed');
    assert.equal(next.lastSeq('s1'), 9);
    await next.clearPersisted(store);
    assert.equal(new SessionKeeper(() => store).load(), 0);
  });
});
