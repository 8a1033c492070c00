import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SeqOrderer } from '../../src/turns';

describe('SeqOrderer', () => {
  const ev = (seq: number) => ({ seq });
  it('delivers in order, drops repeats, holds early arrivals', () => {
    const got: number[] = [];
    const o = new SeqOrderer<{ seq: number }>((e) => got.push(e.seq));
    for (const s of [5, 6, 8, 7, 6, 9, 9]) o.push(ev(s));
    assert.deepEqual(got, [5, 6, 7, 8, 9]);
  });
  it('flush delivers what is held across a gap, in order', () => {
    const got: number[] = [];
    const o = new SeqOrderer<{ seq: number }>((e) => got.push(e.seq));
    for (const s of [1, 4, 3]) o.push(ev(s));
    assert.deepEqual(got, [1]);
    o.flush();
    assert.deepEqual(got, [1, 3, 4]);
    o.push(ev(2));
    assert.deepEqual(got, [1, 3, 4]);
  });
  it('gives up waiting when too many events are held', () => {
    const got: number[] = [];
    const o = new SeqOrderer<{ seq: number }>((e) => got.push(e.seq), 3);
    for (const s of [1, 3, 4, 5, 6]) o.push(ev(s));
    assert.deepEqual(got, [1, 3, 4, 5, 6]);
  });
});
