import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import * as vscode from 'vscode';
import type { TurnButtonArgs } from '../../src/buttons';
import { ANSWER_COMMAND, PendingAnswers, answerButtonArgs, answerKey, chatQueryFor, chatQueryForTurn, confirmNewButtons, isTurnButtonArgs, questionButtons } from '../../src/buttons';
import type { CommandDeps } from '../../src/commands';
import { SessionTracker, answerQuestion } from '../../src/commands';
import type { CouncilChatResult } from '../../src/participant';
import { createHandler } from '../../src/participant';
import { readSettings } from '../../src/settings';
import { TurnRegistry } from '../../src/turns';
import { FakeStream, SID, question } from './fixtures';
import { FakeClient, chatContext, chatRequest, responseTurn, turnResult } from './helpers';

const mock = (vscode as any).__mock;

describe('button idempotency keys', () => {
  it('are deterministic per session, question, action and choice', () => {
    assert.equal(answerKey('s', 'q', 'answer', 'a'), answerKey('s', 'q', 'answer', 'a'));
    assert.notEqual(answerKey('s', 'q', 'answer', 'a'), answerKey('s', 'q', 'answer', 'b'));
    assert.notEqual(answerKey('s', 'q', 'answer'), answerKey('s', 'q', 'skip'));
    assert.notEqual(answerKey('s', 'q1', 'skip'), answerKey('s', 'q2', 'skip'));
    assert.ok(answerKey('s'.repeat(100), 'q'.repeat(100), 'answer', 'c'.repeat(120)).length <= 200);
  });
  it('re-rendering a question yields the same keys', () => {
    // the answer buttons (Skip all is a turn button, it carries no key)
    const keys = () => questionButtons(question()).filter((b) => b.command === ANSWER_COMMAND).map((b) => (b.arguments?.[0] as { idempotencyKey: string }).idempotencyKey);
    assert.deepEqual(keys(), keys());
    assert.equal(new Set(keys()).size, 3);
  });
  it('chat queries continue the conversation naturally', () => {
    const q = question();
    assert.equal(chatQueryFor(answerButtonArgs(q, 'answer', q.choices[0])), '@council /answer Under 10 engineers');
    assert.equal(chatQueryFor(answerButtonArgs(q, 'skip')), '@council /skip');
  });

  it('confirm-new buttons continue with /answer or /new and the same text', () => {
    const [keep, fresh] = confirmNewButtons('Should we move CI to GitHub Actions?');
    assert.deepEqual([keep.title, fresh.title], ['Use as my answer', 'Start a new question']);
    assert.equal(chatQueryForTurn(keep.arguments?.[0] as TurnButtonArgs), '@council /answer Should we move CI to GitHub Actions?');
    assert.equal(chatQueryForTurn(fresh.arguments?.[0] as TurnButtonArgs), '@council /new Should we move CI to GitHub Actions?');
    assert.equal(isTurnButtonArgs({ command: 'rm -rf', text: 'x' }), false);
    assert.equal(isTurnButtonArgs({ text: 'x' }), true);
  });
});

describe('PendingAnswers', () => {
  it('one click per question: repeats are duplicates, other buttons are refused', () => {
    const p = new PendingAnswers();
    const q = question();
    const a = answerButtonArgs(q, 'answer', q.choices[0]);
    assert.equal(p.click(a), 'submitted');
    assert.equal(p.click({ ...a }), 'duplicate');
    assert.equal(p.click(answerButtonArgs(q, 'skip')), 'alreadyAnswered');
    assert.equal(p.size, 1);
  });
  it('take matches the chat turn the click opened, once', () => {
    const p = new PendingAnswers();
    const q = question();
    p.click(answerButtonArgs(q, 'answer', q.choices[1]));
    assert.equal(p.take(SID, 'something else', undefined), undefined);
    assert.equal(p.take('other-session', '10 to 50 engineers', undefined), undefined);
    assert.equal(p.take(SID, ' 10 to 50 engineers ', undefined)?.choice, 'medium');
    assert.equal(p.take(SID, '10 to 50 engineers', undefined), undefined);
    const q2 = question('q2');
    p.click(answerButtonArgs(q2, 'skip'));
    assert.equal(p.take(SID, '', undefined), undefined);
    assert.equal(p.take(SID, '', 'skip')?.action, 'skip');
  });
  it('expires clicks whose chat turn never came', () => {
    let now = 0;
    const p = new PendingAnswers(1000, () => now);
    p.click(answerButtonArgs(question(), 'skip'));
    now = 2000;
    assert.equal(p.take(SID, '', 'skip'), undefined);
    assert.equal(p.click(answerButtonArgs(question(), 'skip')), 'submitted', 'the button works again');
  });
});

describe('clicking a question button', () => {
  beforeEach(() => mock.reset());

  function deps(client: FakeClient, pending: PendingAnswers, openChat: (q: string) => Promise<void>): CommandDeps {
    return { client, pending, sessions: new SessionTracker(), outputChannel: {} as vscode.OutputChannel, extensionPath: '/ext', restartSidecar: async () => {}, openChat };
  }

  it('a double click opens the chat once and submits one council/answer with the button key', async () => {
    const client = new FakeClient((call) => (call.method === 'council/answer' ? turnResult({ intent: 'answer', status: 'clarifying', awaiting: 'answer', question: question('q2') }) : turnResult()));
    const pending = new PendingAnswers();
    const turns = new TurnRegistry<vscode.LanguageModelChat>();
    const handler = createHandler({ client, turns, pending, settings: () => readSettings({ get: () => undefined }) });
    const history = [responseTurn({ sessionId: SID, status: 'clarifying', awaiting: 'answer', questionId: 'q1' })];
    const opened: string[] = [];
    // The chat opens a turn for each query it is given: simulate it by running the handler.
    const results: CouncilChatResult[] = [];
    const openChat = async (query: string) => {
      opened.push(query);
      const stream = new FakeStream();
      // As VS Code parses it: `@council /command rest` → request.command + request.prompt.
      const [, command, prompt] = /^@council (?:\/(\w+) ?)?(.*)$/s.exec(query) ?? [];
      const request = chatRequest(prompt, command ? { command } : {});
      results.push((await handler(request, chatContext(history), stream as any, new vscode.CancellationTokenSource().token)) as CouncilChatResult);
    };
    const q = question();
    const args = answerButtonArgs(q, 'answer', q.choices[0]);
    await Promise.all([answerQuestion(deps(client, pending, openChat), args), answerQuestion(deps(client, pending, openChat), { ...args })]);
    assert.deepEqual(opened, ['@council /answer Under 10 engineers']);
    const answers = client.callsTo('council/answer');
    assert.equal(answers.length, 1);
    assert.deepEqual(
      { ...answers[0].params, client: undefined },
      { sessionId: SID, questionId: 'q1', action: 'answer', choice: 'small', idempotencyKey: args.idempotencyKey, client: undefined },
    );
    assert.equal(client.callsTo('council/turn').length, 0);
    assert.equal(results[0].metadata?.questionId, 'q2');
    // Typing the same text again later is a normal turn, not a second answer.
    await handler(chatRequest('Under 10 engineers'), chatContext(history), new FakeStream() as any, new vscode.CancellationTokenSource().token);
    assert.equal(client.callsTo('council/answer').length, 1);
    assert.equal(client.callsTo('council/turn').length, 1);
  });

  it('Skip then a click on another choice of the same question does nothing', async () => {
    const client = new FakeClient();
    const pending = new PendingAnswers();
    const opened: string[] = [];
    const d = deps(client, pending, async (q) => void opened.push(q));
    const q = question();
    await answerQuestion(d, answerButtonArgs(q, 'skip'));
    await answerQuestion(d, answerButtonArgs(q, 'answer', q.choices[0]));
    assert.deepEqual(opened, ['@council /skip']);
    assert.equal(mock.messages[0]?.text, 'Council: that question was already answered.');
  });

  it('a question skipped by its button and re-asked by /revisit is answered by its new buttons (issue 31)', async () => {
    // "Council: that question was already answered." and nothing sent: the revisit's buttons were taken for the
    // first asking's, whose Skip had been clicked.
    const client = new FakeClient(() => turnResult({ intent: 'answer', status: 'completed' }));
    const pending = new PendingAnswers();
    const opened: string[] = [];
    const d = deps(client, pending, async (query) => {
      opened.push(query);
      const [, command, prompt] = /^@council (?:\/(\w+) ?)?(.*)$/s.exec(query) ?? [];
      assert.ok(pending.take(SID, prompt, command)); // the chat turn the click opened takes it
    });
    const first = question();
    const skip = answerButtonArgs(first, 'skip');
    await answerQuestion(d, skip);
    const again = question('q1', { revisited: true, timesAsked: 2 }); // what question.asked carries on /revisit
    const answer = answerButtonArgs(again, 'answer', again.choices[1]);
    await answerQuestion(d, answer);
    assert.deepEqual(opened, ['@council /skip', '@council /answer 10 to 50 engineers']);
    assert.equal(mock.messages.length, 0);
    // a new asking has new keys: skipping it again is not the first skip repeated (the sidecar would ignore that)
    const skipAgain = answerButtonArgs(again, 'skip');
    assert.notEqual(skipAgain.idempotencyKey, skip.idempotencyKey);
    assert.equal(answerButtonArgs(first, 'skip').idempotencyKey, skip.idempotencyKey);
    assert.equal(pending.click(answerButtonArgs(again, 'answer', again.choices[0])), 'alreadyAnswered'); // one per asking
  });

  it('without a chat to continue in, submits directly with the same key', async () => {
    const client = new FakeClient(() => turnResult({ intent: 'skip', status: 'debating' }));
    const pending = new PendingAnswers();
    const d = deps(client, pending, async () => {
      throw new Error('no chat');
    });
    const args = answerButtonArgs(question(), 'skip');
    await answerQuestion(d, args);
    await answerQuestion(d, args);
    const answers = client.callsTo('council/answer');
    assert.equal(answers.length, 1);
    assert.equal(answers[0].params.idempotencyKey, args.idempotencyKey);
    assert.equal(pending.size, 0);
  });

  it('malformed arguments are ignored', async () => {
    const client = new FakeClient();
    await answerQuestion(deps(client, new PendingAnswers(), async () => {}), { sessionId: 1 });
    assert.equal(client.calls.length, 0);
  });
});
