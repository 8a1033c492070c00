import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import { ANSWER_COMMAND, EXTEND_COMMAND } from '../../src/buttons';
import type { CouncilEvent } from '../../src/protocol';
import { EVENT_TYPES } from '../../src/protocol';
import { EventRenderer, SeqOrderer } from '../../src/render';
import { FakeStream, SID, question, resetSeq, sample } from './fixtures';

function renderAll(events: CouncilEvent[]): { stream: FakeStream; renderer: EventRenderer; unknown: string[] } {
  const stream = new FakeStream();
  const unknown: string[] = [];
  const renderer = new EventRenderer(stream, (t) => unknown.push(t));
  for (const e of events) renderer.render(e);
  return { stream, renderer, unknown };
}

describe('EventRenderer: every event type', () => {
  beforeEach(() => resetSeq());

  it('renders every type in EVENT_TYPES without throwing and leaves none unhandled', () => {
    const { stream, unknown } = renderAll(EVENT_TYPES.map((t) => sample(t)));
    assert.deepEqual(unknown, []);
    assert.ok(stream.parts.length > 0);
  });

  it('status.changed: silent except cancellation', () => {
    const { stream, renderer } = renderAll([sample('status.changed')]);
    assert.equal(stream.parts.length, 0);
    assert.equal(renderer.summary.status, 'clarifying');
    const c = renderAll([{ ...sample('status.changed'), status: 'cancelled', reason: 'stopped by user' } as CouncilEvent]);
    assert.match(c.stream.text, /Session cancelled: stopped by user/);
  });

  it('progress → a progress line', () => {
    const { stream } = renderAll([sample('progress')]);
    assert.deepEqual(stream.progressLines, ['Convening the council…']);
  });

  it('personas.selected → who sits on the council and why', () => {
    const { stream, renderer } = renderAll([sample('personas.selected')]);
    assert.match(stream.text, /\*\*Devil's Advocate\*\* — skeptic/);
    assert.match(stream.text, /\*\*Ops Architect\*\*/);
    assert.match(stream.text, /An architecture decision with operational risk/);
    assert.deepEqual(renderer.summary.personas, ["Devil's Advocate", 'Ops Architect']);
  });

  it('question.asked → the question, its choices as buttons, then Skip', () => {
    const { stream, renderer } = renderAll([sample('question.asked')]);
    assert.match(stream.text, /What is the team size\?/);
    assert.match(stream.text, /If you skip, the council assumes: A team of about 20 engineers/);
    const titles = stream.buttons.map((b) => b.title);
    assert.deepEqual(titles, ['Under 10 engineers', '10 to 50 engineers', 'Skip']);
    for (const b of stream.buttons) assert.equal(b.command, ANSWER_COMMAND);
    const first = stream.buttons[0].arguments?.[0];
    assert.equal(first.sessionId, SID);
    assert.equal(first.questionId, 'q1');
    assert.equal(first.action, 'answer');
    assert.equal(first.choice, 'small');
    assert.equal(stream.buttons[2].arguments?.[0].action, 'skip');
    assert.equal(renderer.summary.question?.questionId, 'q1');
  });

  it('question.asked twice for the same question renders it once', () => {
    const q = sample('question.asked');
    const { stream } = renderAll([q, { ...q, seq: q.seq + 1 }]);
    assert.equal(stream.buttons.length, 3);
  });

  it('question.resolved → the answer', () => {
    const { stream } = renderAll([sample('question.resolved')]);
    assert.match(stream.text, /What is the team size\?.*Under 10 engineers/);
    const skipped = renderAll([{ ...sample('question.resolved'), question: question('q2', { status: 'skipped' }) } as CouncilEvent]);
    assert.match(skipped.stream.text, /Skipped/);
  });

  it('assumption.recorded → a quoted assumption with its rationale', () => {
    const { stream } = renderAll([sample('assumption.recorded')]);
    assert.match(stream.text, /\*\*Assumption:\*\* Budget is flat/);
    assert.match(stream.text, /Skipped question 2/);
  });

  it('persona.started + persona.delta → streamed under the persona name', () => {
    const { stream } = renderAll([sample('persona.started'), sample('persona.delta'), { ...sample('persona.delta'), text: ' and cost.' } as CouncilEvent]);
    assert.match(stream.text, /#### Devil's Advocate · cycle 1\n\nSplitting now \*\*adds risk\*\* and cost\./);
    assert.equal(stream.text.match(/#### Devil's Advocate/g)?.length, 1);
    assert.ok(stream.progressLines.some((l) => l.includes("Devil's Advocate is thinking")));
  });

  it('interleaved personas each get their own heading', () => {
    const a = sample('persona.delta');
    const b = { ...sample('persona.delta'), persona: 'Ops Architect', text: 'Ops view' } as CouncilEvent;
    const a2 = { ...sample('persona.delta'), text: ' more' } as CouncilEvent;
    const { stream } = renderAll([a, b, a2]);
    assert.equal(stream.text.match(/#### Devil's Advocate/g)?.length, 2);
    assert.equal(stream.text.match(/#### Ops Architect/g)?.length, 1);
  });

  it('persona.completed without deltas → the structured response', () => {
    const { stream } = renderAll([sample('persona.started'), sample('persona.completed')]);
    assert.match(stream.text, /#### Devil's Advocate · cycle 1/);
    assert.match(stream.text, /\*\*Position:\*\* Do not split yet/);
    assert.match(stream.text, /Modularise the monolith first/);
    assert.match(stream.text, /Confidence: high/);
  });

  it('persona.delta that is raw JSON is not shown; the completed response is', () => {
    const json = { ...sample('persona.delta'), text: '{"position": "x"' } as CouncilEvent;
    const { stream } = renderAll([sample('persona.started'), json, sample('persona.completed')]);
    assert.doesNotMatch(stream.text, /"position"/);
    assert.match(stream.text, /\*\*Position:\*\* Do not split yet/);
  });

  it('persona.completed after prose deltas adds only the confidence', () => {
    const { stream } = renderAll([sample('persona.started'), sample('persona.delta'), sample('persona.completed')]);
    assert.doesNotMatch(stream.text, /\*\*Position:\*\*/);
    assert.match(stream.text, /_Confidence: high_/);
  });

  it('cycle.completed → the cycle summary', () => {
    const { stream } = renderAll([sample('cycle.completed')]);
    assert.match(stream.text, /\*\*Cycle 1 summary:\*\* Agreed to modularise first _\(converging\)_/);
  });

  it('debate.limitReached → notice plus an "Extend debate" button', () => {
    const { stream, renderer } = renderAll([sample('debate.limitReached')]);
    assert.match(stream.text, /limit of 3 cycles/);
    assert.deepEqual(stream.buttons.map((b) => [b.command, b.title]), [[EXTEND_COMMAND, 'Extend debate']]);
    assert.equal(renderer.summary.canExtend, true);
    const no = renderAll([{ ...sample('debate.limitReached'), canExtend: false } as CouncilEvent]);
    assert.equal(no.stream.buttons.length, 0);
  });

  it('options.proposed → the options', () => {
    const { stream } = renderAll([sample('options.proposed')]);
    assert.match(stream.text, /\*\*A\. Split now\*\* — Start extracting services/);
  });

  it('votes.tallied → a table with the winner', () => {
    const { stream } = renderAll([sample('votes.tallied')]);
    assert.match(stream.text, /3 voters, consensus: majority/);
    assert.match(stream.text, /\| \*\*B\. Modularise first\*\* ✓ \| 2 \| 1\.60 \|/);
  });

  it('final.answer → the answer markdown', () => {
    const { stream, renderer } = renderAll([sample('final.answer')]);
    assert.match(stream.text, /## The council's answer\n\n\*\*Modularise first\*\*, then split the billing service\./);
    assert.equal(renderer.summary.finalAnswer, true);
  });

  it('error → readable markdown naming the persona', () => {
    const { stream, renderer } = renderAll([sample('error')]);
    assert.match(stream.text, /⚠️ \*\*Ops Architect\*\* could not answer: model timed out/);
    assert.equal(renderer.summary.errors, 1);
    const perm = renderAll([{ ...sample('error'), persona: null, code: 'permission', message: 'denied' } as CouncilEvent]);
    assert.match(perm.stream.text, /Manage Language Model Access/);
  });

  it('unknown event types are ignored and reported', () => {
    const { stream, unknown } = renderAll([{ sessionId: SID, seq: 1, at: '', type: 'future.thing' } as unknown as CouncilEvent]);
    assert.equal(stream.parts.length, 0);
    assert.deepEqual(unknown, ['future.thing']);
  });
});

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
