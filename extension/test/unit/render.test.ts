import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import { ANSWER_COMMAND, DEFAULT_LABELS, EXTEND_COMMAND, RETRY_COMMAND, TURN_COMMAND } from '../../src/buttons';
import type { WireEvent } from '../../src/protocol';
import { EventRenderer, MAX_REFERENCES } from '../../src/render';
import { EVENT_TYPES } from '../../src/wire';
import { FakeStream, MARKDOWN, SID, question, resetSeq, sample } from './fixtures';

function renderAll(events: WireEvent[]): { stream: FakeStream; renderer: EventRenderer; unknown: string[] } {
  const stream = new FakeStream();
  const unknown: string[] = [];
  const renderer = new EventRenderer(stream, (t) => unknown.push(t));
  for (const e of events) renderer.render(e);
  return { stream, renderer, unknown };
}

describe('EventRenderer prints the sidecar markdown', () => {
  beforeEach(() => resetSeq());

  it('appends every event type’s markdown as is, in order, and nothing else', () => {
    const { stream, unknown } = renderAll(EVENT_TYPES.map((t) => sample(t)));
    assert.deepEqual(unknown, []);
    assert.equal(stream.text, EVENT_TYPES.map((t) => MARKDOWN[t]).join(''));
    const pieces = stream.parts.filter((p) => p.kind === 'markdown').map((p) => p.value);
    assert.deepEqual(pieces, EVENT_TYPES.map((t) => MARKDOWN[t]).filter((m) => m !== ''), 'one append per non-empty markdown');
  });

  it('prints the markdown of event types it does not know', () => {
    const future = { sessionId: SID, seq: 1, at: '', type: 'future.thing', markdown: '**Something new** happened.\n\n', payload: { a: 1 } };
    const { stream, unknown } = renderAll([future]);
    assert.equal(stream.text, '**Something new** happened.\n\n');
    assert.deepEqual(unknown, ['future.thing']);
    assert.equal(stream.buttons.length, 0);
  });

  it('never stringifies a payload: no [object Object], whatever arrives', () => {
    const odd: WireEvent[] = [
      { sessionId: SID, seq: 1, at: '', type: 'cycle.completed', markdown: { text: 'x' }, cycle: 1, resolutionSummary: 's', convergence: { status: 'refining' } } as WireEvent,
      { sessionId: SID, seq: 2, at: '', type: 'future.thing', markdown: ['a'], data: { nested: true } } as WireEvent,
      { sessionId: SID, seq: 3, at: '', type: 'progress', markdown: '', message: { text: 'x' } } as WireEvent,
      { sessionId: SID, seq: 4, at: '', type: 'persona.delta', persona: 'P', cycle: 1 } as WireEvent,
      sample('cycle.completed'),
      sample('votes.tallied'),
    ];
    const { stream } = renderAll(odd);
    const all = stream.parts.map((p) => (typeof p.value === 'string' ? p.value : p.value.title)).join('\n');
    assert.doesNotMatch(all, /\[object Object\]/);
    assert.deepEqual(stream.progressLines, []);
    assert.equal(stream.text, MARKDOWN['cycle.completed'] + MARKDOWN['votes.tallied']);
  });

  it('adds no headings of its own: persona and final-answer headings come from the sidecar only', () => {
    const { stream } = renderAll([
      sample('persona.started'),
      sample('persona.delta'),
      sample('persona.delta', { markdown: ' and cost.' }),
      sample('persona.completed'),
      sample('final.answer'),
    ]);
    assert.equal(stream.text.match(/^#{1,6} /gm)?.length, 2);
    assert.equal(stream.text.match(/#### Devil's Advocate/g)?.length, 1);
    assert.equal(stream.text.match(/## The council's answer/g)?.length, 1);
    assert.match(stream.text, /Splitting now \*\*adds risk\*\* and cost\./);
  });

  it('progress → the transient progress line, not the transcript', () => {
    const { stream } = renderAll([sample('progress')]);
    assert.deepEqual(stream.progressLines, ['Convening the council…']);
    assert.equal(stream.text, '');
  });

  it('no progress after the first markdown: VS Code would fold the debate above it into "Completed N steps"', () => {
    const { stream } = renderAll([sample('progress'), sample('personas.selected'), sample('progress')]);
    assert.deepEqual(stream.progressLines, ['Convening the council…']);
    assert.notEqual(stream.text, '');
  });
});

describe('EventRenderer layout: buttons per event type', () => {
  beforeEach(() => resetSeq());

  it('question.asked → the markdown, then one button per choice, then Skip this question and Skip all', () => {
    const { stream, renderer } = renderAll([sample('question.asked')]);
    assert.equal(stream.parts[0].kind, 'markdown');
    assert.deepEqual(stream.buttons.map((b) => b.title), ['Under 10 engineers', '10 to 50 engineers', 'Skip this question', 'Skip all']);
    for (const b of stream.buttons.slice(0, 3)) assert.equal(b.command, ANSWER_COMMAND);
    const first = stream.buttons[0].arguments?.[0];
    assert.deepEqual([first.sessionId, first.questionId, first.action, first.choice], [SID, 'q1', 'answer', 'small']);
    assert.equal(stream.buttons[2].arguments?.[0].action, 'skip');
    assert.equal(stream.buttons[3].command, TURN_COMMAND);
    assert.deepEqual(stream.buttons[3].arguments?.[0], { command: 'skipAll', text: '' });
    assert.equal(renderer.state.question?.questionId, 'q1');
  });

  it('a question without choices gets Skip this question and Skip all only', () => {
    const { stream } = renderAll([sample('question.asked', { question: question('q1', { choices: [] }) })]);
    assert.deepEqual(stream.buttons.map((b) => b.title), ['Skip this question', 'Skip all']);
  });



  it('question.resolved clears the pending question; cancellation too', () => {
    assert.equal(renderAll([sample('question.asked'), sample('question.resolved')]).renderer.state.question, undefined);
    const cancelled = renderAll([sample('question.asked'), sample('status.changed', { previous: 'clarifying', status: 'cancelled' })]);
    assert.equal(cancelled.renderer.state.question, undefined);
    assert.equal(cancelled.renderer.state.status, 'cancelled');
  });

  it('debate.limitReached → Extend only when the debate can be extended', () => {
    const yes = renderAll([sample('debate.limitReached')]);
    assert.deepEqual(yes.stream.buttons.map((b) => [b.command, b.title]), [[EXTEND_COMMAND, 'Extend debate']]);
    assert.equal(yes.renderer.state.canExtend, true);
    const no = renderAll([sample('debate.limitReached', { canExtend: false })]);
    assert.equal(no.stream.buttons.length, 0);
    assert.equal(no.stream.text, MARKDOWN['debate.limitReached']);
  });

  it('error → Retry only when retryable; errors are counted', () => {
    const plain = renderAll([sample('error')]);
    assert.equal(plain.stream.buttons.length, 0);
    assert.equal(plain.renderer.state.errors, 1);
    const retry = renderAll([sample('error', { retryable: true })]);
    assert.deepEqual(retry.stream.buttons.map((b) => [b.command, b.title]), [[RETRY_COMMAND, 'Retry']]);
    assert.deepEqual(retry.stream.buttons[0].arguments, [{ sessionId: SID }]);
  });

  it('no other event type adds a button', () => {
    const others = EVENT_TYPES.filter((t) => !['question.asked', 'question.confirmNew', 'session.stopped', 'debate.limitReached', 'error'].includes(t));
    assert.equal(renderAll(others.map((t) => sample(t))).stream.buttons.length, 0);
  });

  it('question.confirmNew offers "Use as my answer" and "Start a new question"', () => {
    const { stream, renderer } = renderAll([sample('question.confirmNew')]);
    assert.deepEqual(stream.buttons.map((b) => b.title), ['Use as my answer', 'Start a new question']);
    assert.equal(renderer.state.confirming, true);
  });

  it('streams the answer as the chair writes it, then adds only the rest of the final answer', () => {
    const { stream, renderer, unknown } = renderAll([
      sample('answer.delta', { markdown: "## The council's answer\n\nModularise", text: 'Modularise' }),
      sample('answer.delta', { markdown: ' first, then split billing.\n\n', text: 'Modularise first, then split billing.' }),
      sample('final.answer', { markdown: '**Vote:** a majority for **B · Modularise first**.\n' }),
    ]);
    assert.deepEqual(unknown, []);
    assert.equal(stream.text, "## The council's answer\n\nModularise first, then split billing.\n\n**Vote:** a majority for **B · Modularise first**.\n");
    assert.equal(stream.text.match(/The council's answer/g)?.length, 1, 'the streamed part is not printed again');
    assert.equal(renderer.state.finalAnswer, true);
  });

  it('a withdrawn draft stays above its withdrawal line, and the whole answer that replaces it follows (issue 31)', () => {
    const final = "## The council's answer\n\nKeep the service and measure first.\n";
    const { stream, unknown } = renderAll([
      sample('answer.delta', { markdown: "## The council's answer\n\nRewrite it in Rust", text: 'Rewrite it in Rust' }),
      sample('answer.withdrawn', { text: 'Rewrite it in Rust' }),
      sample('final.answer', { markdown: final }),
    ]);
    assert.deepEqual(unknown, [], 'a known event: the chat cannot take back what it showed, so it prints the line');
    assert.equal(stream.text, "## The council's answer\n\nRewrite it in Rust" + MARKDOWN['answer.withdrawn'] + final);
  });

  it('final.answer is remembered (the result does not print it again)', () => {
    assert.equal(renderAll([sample('final.answer')]).renderer.state.finalAnswer, true);
  });

  it('evidence.gathered → its markdown, then each file as a chat reference, once per turn', () => {
    const again = sample('evidence.gathered', { references: ['file:///ws/src/app.py', 'file:///ws/README.md'] });
    const { stream } = renderAll([sample('evidence.gathered'), again]);
    assert.deepEqual(stream.references, ['file:///ws/src/app.py', 'file:///ws/README.md']);
    assert.equal(stream.text, MARKDOWN['evidence.gathered'].repeat(2));
    assert.equal(stream.buttons.length, 0);
  });

  it('references: only file URIs, at most MAX_REFERENCES, and nothing from a malformed payload', () => {
    const odd = sample('evidence.gathered', { references: ['https://example.com/x', 'command:workbench.action.quit', 'file:///ws/a.py'] });
    assert.deepEqual(renderAll([odd]).stream.references, ['file:///ws/a.py']);
    const many = sample('evidence.gathered', { references: Array.from({ length: MAX_REFERENCES + 5 }, (_, i) => `file:///ws/f${i}.py`) });
    assert.equal(renderAll([many]).stream.references.length, MAX_REFERENCES);
    const broken = { ...sample('evidence.gathered'), references: 'file:///ws/a.py' } as unknown as WireEvent;
    assert.deepEqual(renderAll([broken]).stream.references, []);
  });

  it('no other event type adds a reference', () => {
    const others = EVENT_TYPES.filter((t) => t !== 'evidence.gathered');
    assert.deepEqual(renderAll(others.map((t) => sample(t))).stream.references, []);
  });
});

describe('the buttons speak the session’s language (the sidecar’s ChatLabels)', () => {
  beforeEach(() => resetSeq());
  const ru = { ...DEFAULT_LABELS, skip: 'Пропустить', skipQuestion: 'Пропустить этот вопрос', skipAllButton: 'Пропустить все', extendButton: 'Продлить дебаты', retry: 'Повторить', resume: 'Продолжить', cancel: 'Отменить сессию', useAsAnswer: 'Это мой ответ', startNew: 'Начать новый вопрос' };

  it('takes the words from the session’s first event for every button after it', () => {
    const { stream } = renderAll([
      sample('personas.selected', { labels: ru }),
      sample('question.asked', { question: question('q1') }),
      sample('question.confirmNew'),
      sample('session.stopped'),
      sample('debate.limitReached', { canExtend: true }),
      sample('error', { retryable: true }),
    ]);
    const titles = stream.buttons.map((b) => b.title);
    for (const word of ['Пропустить этот вопрос', 'Пропустить все', 'Это мой ответ', 'Начать новый вопрос', 'Продолжить', 'Отменить сессию', 'Продлить дебаты', 'Повторить']) {
      assert.ok(titles.includes(word), word);
    }
    for (const word of ['Skip this question', 'Skip all', 'Resume', 'Cancel session', 'Extend debate', 'Retry', 'Use as my answer', 'Start a new question']) {
      assert.ok(!titles.includes(word), word);
    }
  });

  it('or from the previous turn’s result (a later turn of the session), else English', () => {
    const stream = new FakeStream();
    new EventRenderer(stream, () => {}, ru).render(sample('question.asked', { question: question('q1') }));
    assert.deepEqual(stream.buttons.slice(-2).map((b) => b.title), ['Пропустить этот вопрос', 'Пропустить все']);
    const { stream: plain } = renderAll([sample('question.asked', { question: question('q1') })]);
    assert.deepEqual(plain.buttons.slice(-2).map((b) => b.title), ['Skip this question', 'Skip all']);
  });
});
