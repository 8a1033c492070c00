import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import * as vscode from 'vscode';
import { DEFAULT_LABELS, PendingAnswers, transcriptButton } from '../../src/buttons';
import { SidecarUnavailableError } from '../../src/client';
import { SessionKeeper } from '../../src/keeper';
import { ChatModels } from '../../src/models';
import type { CouncilChatResult, ParticipantDeps } from '../../src/participant';
import { chooseModel } from '../../src/models';
import { createHandler, followupsFor, isCouncilMetadata, sessionIdFromHistory } from '../../src/participant';
import { mapCommand } from '../../src/participant';
import { readSettings } from '../../src/settings';
import { TurnRegistry } from '../../src/turns';
import { FakeStream, MARKDOWN, SID, question, resetSeq, sample } from './fixtures';
import { FakeClient, chatContext, chatRequest, emitter, fakeModel, responseTurn, turnResult } from './helpers';

const settings = () => readSettings({ get: () => undefined });

function setup(
  script?: ConstructorParameters<typeof FakeClient>[0],
  access?: { canSendRequest(): boolean | undefined },
  extra: Partial<Pick<ParticipantDeps, 'models' | 'settings'>> = {},
) {
  const client = new FakeClient(script);
  const turns = new TurnRegistry<vscode.LanguageModelChat>();
  const pending = new PendingAnswers();
  const sessions: string[] = [];
  const handler = createHandler({ client, turns, pending, settings, access, onSession: (id) => sessions.push(id), ...extra });
  return { client, turns, pending, handler, sessions, emit: emitter(turns) };
}

async function run(handler: vscode.ChatRequestHandler, request: vscode.ChatRequest, history: unknown[] = [], token?: vscode.CancellationToken) {
  const stream = new FakeStream();
  const result = (await handler(request, chatContext(history), stream as unknown as vscode.ChatResponseStream, token ?? new vscode.CancellationTokenSource().token)) as CouncilChatResult;
  return { stream, result };
}

describe('session id recovery from history', () => {
  it('takes the most recent council result', () => {
    const history = [
      responseTurn({ sessionId: 'old', status: 'completed', awaiting: 'nothing' }),
      new (vscode.ChatRequestTurn as unknown as new (...a: unknown[]) => unknown)('hi', undefined, [], 'council.chat'),
      responseTurn({ sessionId: 'new', status: 'clarifying', awaiting: 'answer' }),
    ];
    assert.equal(sessionIdFromHistory(history as any), 'new');
  });
  it('skips other participants and malformed metadata', () => {
    const history = [
      responseTurn({ sessionId: 'mine', status: 'clarifying', awaiting: 'answer' }),
      responseTurn({ sessionId: 'theirs', status: 'x', awaiting: 'answer' }, 'other.participant'),
      responseTurn({ sessionId: 42 }),
      responseTurn(undefined),
    ];
    assert.equal(sessionIdFromHistory(history as any), 'mine');
  });
  it('is undefined for a fresh conversation', () => {
    assert.equal(sessionIdFromHistory([]), undefined);
  });
  it('type guard', () => {
    assert.equal(isCouncilMetadata({ sessionId: 's', status: 'completed', awaiting: 'nothing' }), true);
    assert.equal(isCouncilMetadata({ sessionId: '', status: 'completed', awaiting: 'nothing' }), false);
    assert.equal(isCouncilMetadata({ sessionId: 's', status: 'completed', awaiting: 'maybe' }), false);
    assert.equal(isCouncilMetadata(null), false);
  });
});

describe('chat turn handler', () => {
  beforeEach(() => resetSeq());

  it('sends only what the user attached: context VS Code adds by itself is not their evidence (issue 31)', async () => {
    // "Your attachments are evidence for the council — ✓ E1 attached `Chat customizations index` — 12 lines", with
    // nothing attached: VS Code's instructions index and the editor's view came in request.references.
    const { handler, client } = setup(() => turnResult({ status: 'clarifying', awaiting: 'answer', question: question() }));
    const index = { id: 'vscode.prompt.instructions.text', name: 'Chat customizations index', modelDescription: 'Chat customizations index', value: Array(12).fill('- rule').join('\n') };
    const instructions = { id: 'vscode.prompt.instructions.root__file:///ws/.github/copilot-instructions.md', value: vscode.Uri.file('/ws/.github/copilot-instructions.md') };
    const viewport = { id: 'vscode.implicit.viewport', value: new vscode.Location(vscode.Uri.file('/ws/src/open.ts'), new vscode.Range(0, 0, 9, 0)) };
    const selection = { id: 'vscode.implicit.selection', value: new vscode.Location(vscode.Uri.file('/ws/src/open.ts'), new vscode.Range(2, 0, 3, 0)) };
    await run(handler, chatRequest('Should we split our monolith?', { references: [index, instructions, viewport, selection] }));
    assert.deepEqual(client.callsTo('council/turn')[0].params.references, []);
    const fileRef = { id: 'vscode.file', value: vscode.Uri.file('/ws/src/app.ts') };
    const pasted = { id: 'copilot.selection', modelDescription: 'Pasted note', value: 'ten engineers, one team' };
    await run(handler, chatRequest('Should we split our monolith?', { references: [index, fileRef, viewport, pasted] }));
    assert.deepEqual(client.callsTo('council/turn')[1].params.references, [
      { name: 'src/app.ts', uri: 'file:///ws/src/app.ts', content: 'file content' },
      { name: 'Pasted note', content: 'ten engineers, one team' },
    ]);
  });

  it('forwards a new question with options, references and the chat model, and renders events as they arrive', async () => {
    const { handler, client, emit, sessions } = setup((call) => {
      if (call.method === 'council/turn') {
        emit(sample('progress'), sample('personas.selected'), sample('question.asked'));
        return turnResult({ status: 'clarifying', awaiting: 'answer', question: question() });
      }
      throw new Error('unexpected ' + call.method);
    });
    const fileRef = { id: 'vscode.file', value: vscode.Uri.file('/ws/src/app.ts') };
    const { stream, result } = await run(handler, chatRequest('Should we split our monolith?', { references: [fileRef] }));
    const turn = client.callsTo('council/turn')[0];
    assert.equal(turn.params.sessionId, undefined);
    assert.equal(turn.params.text, 'Should we split our monolith?');
    assert.deepEqual(turn.params.client, { completion: true, completionModel: 'Fake Model' });
    assert.equal(turn.params.options.provider, 'client');
    assert.equal(turn.params.options.maxCycles, undefined); // the sidecar's default applies
    assert.deepEqual(turn.params.references, [{ name: 'src/app.ts', uri: 'file:///ws/src/app.ts', content: 'file content' }]);
    assert.ok(turn.token, 'the chat token is passed so the stop button sends $/cancelRequest');
    assert.deepEqual(stream.progressLines, ['Convening the council…']);
    assert.match(stream.text, /What is the team size\?/);
    assert.deepEqual(stream.buttons.map((b) => b.title), ['Under 10 engineers', '10 to 50 engineers', 'Skip this question', 'Skip all']);
    assert.deepEqual(result.metadata, {
      sessionId: SID,
      status: 'clarifying',
      awaiting: 'answer',
      questionId: 'q1',
      question: 'What is the team size?',
      choices: ['Under 10 engineers', '10 to 50 engineers'],
      problem: 'Should we split our monolith?',
    });
    assert.deepEqual(sessions, [SID]);
  });

  it('continues the session from history and maps slash commands', async () => {
    const { handler, client } = setup(() => turnResult({ intent: 'skip_all' }));
    const history = [responseTurn({ sessionId: 'abc', status: 'clarifying', awaiting: 'answer' })];
    await run(handler, chatRequest('', { command: 'skipAll' }), history);
    const p = client.callsTo('council/turn')[0].params;
    assert.equal(p.sessionId, 'abc');
    assert.equal(p.command, 'skipAll');
  });

  it('a repeated @council mention is not part of the text', async () => {
    const { handler, client } = setup();
    await run(handler, chatRequest('@council  Should we split?'));
    assert.equal(client.callsTo('council/turn')[0].params.text, 'Should we split?');
    await run(handler, chatRequest('@councillor is a word'));
    assert.equal(client.callsTo('council/turn')[1].params.text, '@councillor is a word');
  });

  it('/new starts a fresh session even with history', async () => {
    const { handler, client } = setup();
    const history = [responseTurn({ sessionId: 'abc', status: 'completed', awaiting: 'nothing' })];
    await run(handler, chatRequest('Another question', { command: 'new' }), history);
    const p = client.callsTo('council/turn')[0].params;
    assert.equal(p.sessionId, undefined);
    assert.equal(p.command, 'new');
  });

  it('renders the final answer, tally and persona contributions in seq order', async () => {
    const { handler, emit } = setup(() => {
      const a = sample('persona.started');
      const b = sample('persona.delta');
      const c = sample('persona.completed');
      const d = sample('votes.tallied');
      const e = sample('final.answer');
      emit(a, c, b, e, d); // out of order on purpose: rendered by seq
      return turnResult({ finalAnswer: 'x' });
    });
    const { stream, result } = await run(handler, chatRequest('q'));
    const text = stream.text;
    assert.ok(text.indexOf('#### Devil') < text.indexOf('adds risk'));
    assert.ok(text.indexOf('adds risk') < text.indexOf('**Vote:**'));
    assert.ok(text.indexOf('**Vote:**') < text.indexOf("## The council's answer"));
    assert.equal(text.match(/## The council's answer/g)?.length, 1, 'final answer from events is not repeated from the result');
    assert.equal(result.metadata?.status, 'completed');
  });

  it('/personas prints the sidecar message only, never the final answer again', async () => {
    const message = "**On the council:** Devil's Advocate, Ops Architect.";
    const { handler } = setup(() => turnResult({ intent: 'personas', message, finalAnswer: "## The council's answer\n\nModularise first.\n" }));
    const history = [responseTurn({ sessionId: SID, status: 'completed', awaiting: 'nothing' })];
    const { stream } = await run(handler, chatRequest('', { command: 'personas' }), history);
    assert.equal(stream.text, `${message}\n\n`);
  });

  it('/status prints the sidecar message as is and offers the pending question’s buttons without re-printing it', async () => {
    const message = '**Clarifying.** The moderator is waiting for your answer to: _What is the team size?_\n\n';
    const { handler } = setup(() => turnResult({ intent: 'status', status: 'clarifying', awaiting: 'answer', question: question(), message }));
    const history = [responseTurn({ sessionId: SID, status: 'clarifying', awaiting: 'answer', questionId: 'q1' })];
    const { stream, result } = await run(handler, chatRequest('', { command: 'status' }), history);
    assert.equal(stream.text, message);
    assert.deepEqual(stream.buttons.map((b) => b.title), ['Under 10 engineers', '10 to 50 engineers', 'Skip this question', 'Skip all']);
    assert.equal(result.metadata?.questionId, 'q1');
  });

  it('after /cancel the pending question and its buttons are never shown again', async () => {
    const { handler, emit } = setup(() => {
      emit(sample('status.changed', { previous: 'clarifying', status: 'cancelled', markdown: '_The session was cancelled._\n\n' }));
      return turnResult({ intent: 'cancel', status: 'cancelled', awaiting: 'answer', question: question(), message: 'The session was cancelled.' });
    });
    const history = [responseTurn({ sessionId: SID, status: 'clarifying', awaiting: 'answer', questionId: 'q1' })];
    const { stream, result } = await run(handler, chatRequest('', { command: 'cancel' }), history);
    assert.equal(stream.buttons.length, 0);
    assert.doesNotMatch(stream.text, /team size/);
    assert.deepEqual(result.metadata, { sessionId: SID, status: 'cancelled', awaiting: 'nothing' });
  });

  it('a final answer whose event was not printed comes from the result, as is (its heading is the sidecar’s)', async () => {
    const finalAnswer = "## The council's answer\n\nModularise first.\n";
    const { handler } = setup(() => turnResult({ intent: 'skip_all', finalAnswer }));
    const { stream } = await run(handler, chatRequest('', { command: 'skipAll' }), [responseTurn({ sessionId: SID, status: 'clarifying', awaiting: 'answer' })]);
    assert.equal(stream.text, `${finalAnswer}\n`);
    assert.equal(stream.text.match(/The council's answer/g)?.length, 1);
  });

  it("under the answer, the sidecar's line of model calls (TurnResult.usage.markdown) as is; no answer, no line", async () => {
    const markdown = '_Model calls: 14 (it said about 9–13 model calls, at most 17) — 9 on GPT-5, 4 on Claude Sonnet 4; 2 cancelled (sent, then not needed), 1 failed._\n\n';
    const usage = { calls: 14, byModel: { 'GPT-5': 9, 'Claude Sonnet 4': 4, 'Gone Model': 1 }, cancelled: 2, failed: 1, maxCalls: 17, markdown };
    const { handler, emit } = setup((call) => {
      if (call.params.command === 'skipAll') emit(sample('final.answer'));
      return turnResult({ intent: call.params.command === 'skipAll' ? 'skip_all' : 'status', usage });
    });
    const history = [responseTurn({ sessionId: SID, status: 'clarifying', awaiting: 'answer' })];
    const { stream } = await run(handler, chatRequest('', { command: 'skipAll' }), history);
    assert.equal(stream.text, `${MARKDOWN['final.answer']}${markdown}`);
    // the full positions (the transcript) one click away, last in the response
    assert.deepEqual(stream.parts.at(-1), { kind: 'button', value: transcriptButton(SID) });
    const status = await run(handler, chatRequest('', { command: 'status' }), history);
    assert.doesNotMatch(status.stream.text, /Model calls/);
  });

  it('a repeated submission does not print anything twice', async () => {
    const { handler } = setup(() => turnResult({ intent: 'answer', duplicate: true, finalAnswer: '## The council’s answer\n\nx\n' }));
    const { stream } = await run(handler, chatRequest('Under 10 engineers'), [responseTurn({ sessionId: SID, status: 'completed', awaiting: 'nothing' })]);
    assert.equal(stream.text, '_That answer was already submitted._\n\n');
  });

  it('ignores events of other sessions once bound', async () => {
    const { handler, emit } = setup(() => {
      emit(sample('progress'));
      emit({ ...sample('progress'), sessionId: 'other', message: 'not mine' });
      return turnResult();
    });
    const { stream } = await run(handler, chatRequest('q'));
    assert.deepEqual(stream.progressLines, ['Convening the council…']);
  });

  it('stop button: stops (pauses) the session in the sidecar; the turn shows its Stopped note and offers Resume', async () => {
    const source = new vscode.CancellationTokenSource();
    let release: (v: unknown) => void = () => {};
    const { handler, client, emit } = setup((call) => {
      if (call.method === 'council/turn') {
        emit(sample('progress'));
        call.token?.onCancellationRequested(() => {
          emit(sample('session.stopped'));
          release(Promise.reject(Object.assign(new Error('Request got cancelled'), { name: 'Canceled' })));
        });
        return new Promise((r) => (release = r));
      }
      if (call.method === 'council/stop') return { sessionId: SID, status: 'debating', stopped: true, cancelledCalls: 2 };
      throw new Error(call.method);
    });
    const pending = run(handler, chatRequest('q'), [], source.token);
    await new Promise((r) => setImmediate(r));
    source.cancel();
    const { stream, result } = await pending;
    assert.deepEqual(client.callsTo('council/stop').map((c) => c.params), [{ sessionId: SID }]);
    assert.equal(client.callsTo('council/cancel').length, 0, 'Stop never cancels');
    assert.equal(stream.text.match(/Stopped/g)?.length, 1);
    assert.deepEqual(stream.buttons.map((b) => b.title), ['Resume', 'Cancel session']);
    assert.equal(result.metadata?.stopped, true);
    assert.deepEqual(followupsFor(result).map((f) => f.label).slice(0, 2), ['Resume the stopped session', 'Cancel the session']);
  });

  it('the followups and the question’s buttons speak the session’s language (the result’s labels, kept in the metadata)', async () => {
    const labels = { ...DEFAULT_LABELS, skip: 'Пропустить', skipQuestion: 'Пропустить этот вопрос', skipAllButton: 'Пропустить все', newQuestion: 'Задать новый вопрос' };
    const q = question('q9');
    const { handler } = setup(() => turnResult({ intent: 'status', status: 'clarifying', awaiting: 'answer', question: q, language: 'ru', labels }));
    const { stream, result } = await run(handler, chatRequest('', { command: 'status' }), [responseTurn({ sessionId: SID, status: 'clarifying', awaiting: 'answer' })]);
    assert.deepEqual(stream.buttons.slice(-2).map((b) => b.title), ['Пропустить этот вопрос', 'Пропустить все']);
    assert.deepEqual(result.metadata?.labels, labels);
    assert.deepEqual(followupsFor(result), []); // a question's Skip and Skip all are its buttons only
    const done = followupsFor({ metadata: { sessionId: SID, status: 'completed', awaiting: 'nothing', labels } });
    assert.equal(done.at(-1)?.label, 'Задать новый вопрос');
  });

  it('sidecar errors become readable markdown and keep the session id', async () => {
    const { ResponseError } = await import('vscode-jsonrpc');
    const { handler } = setup(() => {
      throw new ResponseError(-32602, 'bad', { code: 'validation', message: 'the council is still working on this session', details: {} });
    });
    const history = [responseTurn({ sessionId: 'abc', status: 'debating', awaiting: 'nothing' })];
    const { stream, result } = await run(handler, chatRequest('hello'), history);
    assert.match(stream.text, /could not accept that: the council is still working on this session/);
    assert.equal(result.metadata?.sessionId, 'abc');
    assert.equal(result.metadata?.error, 'the council is still working on this session');
  });

  it('the sidecar dies under a turn: the same turn is sent again to the new sidecar, with one note', async () => {
    const { ResponseError } = await import('vscode-jsonrpc');
    let attempts = 0;
    const { handler, client, emit } = setup((call) => {
      if (call.method !== 'council/turn') throw new Error(call.method);
      attempts++;
      emit(sample('progress'));
      if (attempts === 1) throw new ResponseError(-32097, 'Pending response rejected since connection got disposed');
      emit(sample('final.answer'));
      return turnResult({ finalAnswer: 'x' });
    });
    let waited = 0;
    client.onWhenReady = async () => {
      waited++;
      client.generation++;
    };
    const { stream, result } = await run(handler, chatRequest('Should we split?'));
    const sent = client.callsTo('council/turn').map((c) => c.params);
    assert.equal(sent.length, 2);
    assert.deepEqual(sent[0], sent[1], 'exactly the same turn (same proposed session id) is sent again');
    assert.equal(waited, 1);
    assert.equal(stream.text.match(/sidecar stopped unexpectedly/g)?.length, 1);
    assert.match(stream.text, /The council's answer/, 'the events of the second attempt are shown (new baseline)');
    assert.equal(result.metadata?.status, 'completed');
    assert.equal(result.errorDetails, undefined);
  });

  it('a sidecar that is not restarted: the real cause once, Restart and Logs buttons, errorDetails', async () => {
    const { ResponseError } = await import('vscode-jsonrpc');
    const { handler, client } = setup(() => {
      throw new ResponseError(-32097, 'Pending response rejected since connection got disposed');
    });
    client.onWhenReady = async () => {
      throw new SidecarUnavailableError('it stopped and was not restarted. See **Council: Show Logs** for the reason.');
    };
    const history = [responseTurn({ sessionId: 'abc', status: 'debating', awaiting: 'nothing' })];
    const { stream, result } = await run(handler, chatRequest('/retry'), history);
    assert.doesNotMatch(stream.text, /-32097|Pending response/);
    assert.equal(stream.text.match(/sidecar is not running: it stopped and was not restarted/g)?.length, 1);
    assert.deepEqual(stream.buttons.map((b) => b.title), ['Restart Sidecar', 'Show Logs', 'Retry']);
    assert.match(result.errorDetails?.message ?? '', /not restarted/);
    assert.equal(result.metadata?.sessionId, 'abc');
  });

  it('a session the sidecar does not know (after a reload): the text starts a new session, which says so first', async () => {
    const { ResponseError } = await import('vscode-jsonrpc');
    const { handler, client, emit } = setup((call) => {
      if (call.params.sessionId === 'old') {
        throw new ResponseError(-32602, 'x', { code: 'validation', message: 'unknown session (it may have expired)', details: { reason: 'unknown_session' } });
      }
      emit(sample('session.replaced', { sessionId: call.params.newSessionId }), sample('progress', { sessionId: call.params.newSessionId }));
      return turnResult({ sessionId: call.params.newSessionId, status: 'clarifying', awaiting: 'answer', question: question() });
    });
    const history = [responseTurn({ sessionId: 'old', status: 'completed', awaiting: 'nothing', problem: 'Old problem' })];
    const { stream, result } = await run(handler, chatRequest('Should we move to Kubernetes?'), history);
    const sent = client.callsTo('council/turn').map((c) => c.params);
    assert.equal(sent.length, 2);
    assert.equal(sent[1].sessionId, undefined);
    assert.equal(sent[1].text, 'Should we move to Kubernetes?');
    assert.notEqual(sent[1].newSessionId, sent[0].newSessionId);
    assert.deepEqual(sent[1].earlier, { problem: 'Old problem', answers: [], reason: 'unknown_session' }, 'the sidecar writes the note, in the session’s language');
    // The sidecar's note is markdown, the response's first part; no progress line after it (VS Code would fold it away).
    assert.deepEqual(stream.parts[0], { kind: 'markdown', value: MARKDOWN['session.replaced'] });
    assert.equal(stream.text.match(/earlier council session is gone/g)?.length, 1, 'said once, by the sidecar');
    assert.deepEqual(stream.progressLines, []);
    assert.equal(result.metadata?.awaiting, 'answer');
    assert.equal(result.metadata?.problem, 'Should we move to Kubernetes?');
  });

  it('/revisit with a question id (a followup’s prompt) sends it as questionId; a number is left to the sidecar', async () => {
    const { handler, client } = setup(() => turnResult({ intent: 'revisit', status: 'clarifying', awaiting: 'answer', question: question() }));
    const history = [responseTurn({ sessionId: 's1', status: 'completed', awaiting: 'nothing' })];
    await run(handler, chatRequest('3f2c9a1e-7b1d-4c55-9e0a-2b6f1d0c9a77', { command: 'revisit' }), history);
    await run(handler, chatRequest('2', { command: 'revisit' }), history);
    const sent = client.callsTo('council/turn').map((c) => c.params);
    assert.equal(sent[0].sessionId, 's1');
    assert.equal(sent[0].command, 'revisit');
    assert.equal(sent[0].questionId, '3f2c9a1e-7b1d-4c55-9e0a-2b6f1d0c9a77');
    assert.equal(sent[1].command, 'revisit');
    assert.equal(sent[1].questionId, undefined);
    assert.equal(sent[1].text, '2');
  });

  it('an answer or a command for a lost session asks the session’s problem again', async () => {
    const { ResponseError } = await import('vscode-jsonrpc');
    const { handler, client } = setup((call) => {
      if (call.params.sessionId === 'old') {
        throw new ResponseError(-32602, 'x', { code: 'validation', message: 'the session expired', details: { reason: 'expired' } });
      }
      return turnResult({ status: 'clarifying', awaiting: 'answer', question: question() });
    });
    const history = [responseTurn({ sessionId: 'old', status: 'clarifying', awaiting: 'answer', questionId: 'q1', problem: 'Should we split?' })];
    const { stream } = await run(handler, chatRequest('about 40 engineers'), history);
    const sent = client.callsTo('council/turn').map((c) => c.params);
    assert.equal(sent[1].text, 'Should we split?');
    assert.equal(sent[1].command, undefined);
    assert.equal(sent[1].earlier?.reason, 'expired');
    assert.doesNotMatch(stream.text, /expired/, 'the note is the new session’s (the sidecar’s), not the extension’s');
    // Without a problem to ask again, the error is shown as is.
    const bare = [responseTurn({ sessionId: 'old', status: 'clarifying', awaiting: 'answer' })];
    const again = await run(handler, chatRequest('about 40 engineers'), bare);
    assert.match(again.stream.text, /could not accept that: the session expired/);
    assert.ok(again.result.errorDetails);
  });

  it('after a reload lost the session, the new session gets the replies the chat history shows (and this turn’s)', async () => {
    const { ResponseError } = await import('vscode-jsonrpc');
    const { handler, client } = setup((call) => {
      if (call.params.sessionId === 'old') {
        throw new ResponseError(-32602, 'x', { code: 'validation', message: 'unknown session', details: { reason: 'unknown_session' } });
      }
      return turnResult({ status: 'clarifying', awaiting: 'answer', question: question(), message: '_The council reuses your 2 answers and 1 skipped question from before the reload: it does not ask those questions again._' });
    });
    const Request = vscode.ChatRequestTurn as unknown as new (...a: unknown[]) => unknown;
    const asked = (q: string) => ({ sessionId: 'old', status: 'clarifying', awaiting: 'answer', questionId: q, question: `Question ${q}?`, problem: 'Should we split?' });
    const history = [
      new Request('Should we split?', undefined, [], 'council.chat'),
      responseTurn(asked('1')),
      new Request('About 40 engineers', undefined, [], 'council.chat'),
      responseTurn(asked('2')),
      new Request('', 'skip', [], 'council.chat'),
      responseTurn(asked('3')),
      new Request('status', 'status', [], 'other.participant'),
      responseTurn(asked('3')),
    ];
    const { stream } = await run(handler, chatRequest('Two teams'), history);
    const sent = client.callsTo('council/turn').map((c) => c.params);
    assert.equal(sent[0].earlier, undefined, 'nothing extra while the session may still be there');
    assert.equal(sent[1].text, 'Should we split?');
    assert.deepEqual(sent[1].earlier, {
      problem: 'Should we split?',
      answers: [
        { question: 'Question 1?', action: 'answer', answer: 'About 40 engineers' },
        { question: 'Question 2?', action: 'skip' },
        { question: 'Question 3?', action: 'answer', answer: 'Two teams' },
      ],
      reason: 'unknown_session',
    });
    assert.match(stream.text, /reuses your 2 answers and 1 skipped question/);
    assert.doesNotMatch(stream.text, /interrupted/);
  });

  it('a reply cut off by a reload is marked as interrupted on the next turn', async () => {
    const { handler } = setup(() => turnResult({ status: 'clarifying', awaiting: 'answer', question: question() }));
    const Request = vscode.ChatRequestTurn as unknown as new (...a: unknown[]) => unknown;
    const Response = vscode.ChatResponseTurn as unknown as new (...a: unknown[]) => unknown;
    const cut = [
      new Request('Should we split?', undefined, [], 'council.chat'),
      responseTurn({ sessionId: 'old', status: 'clarifying', awaiting: 'answer', questionId: 'q1' }),
      new Request('About 40 engineers', undefined, [], 'council.chat'),
      new Response([], {}, 'council.chat'), // the window went away while it streamed: no result of ours
    ];
    const { stream } = await run(handler, chatRequest('continue'), cut);
    assert.equal(stream.text.match(/previous reply was interrupted: VS Code was reloaded/g)?.length, 1);
    const whole = cut.slice(0, 2);
    assert.doesNotMatch((await run(handler, chatRequest('continue'), whole)).stream.text, /interrupted/);
    const failed = [...cut.slice(0, 3), new Response([], { errorDetails: { message: 'The council could not accept that' } }, 'council.chat')];
    assert.doesNotMatch((await run(handler, chatRequest('continue'), failed)).stream.text, /interrupted/, 'a reported error is not a cut-off');
  });

  it('keeps the session journal after each turn', async () => {
    const keeper = new SessionKeeper();
    const client = new FakeClient((call) =>
      call.method === 'council/snapshot'
        ? { session: { sessionId: SID, requestText: 'q', status: 'clarifying' }, journal: [{ kind: 'created' }], transcriptMarkdown: '' }
        : turnResult({ status: 'clarifying', awaiting: 'answer', question: question() }),
    );
    const turns = new TurnRegistry<vscode.LanguageModelChat>();
    const handler = createHandler({ client, turns, pending: new PendingAnswers(), settings, keeper });
    await run(handler, chatRequest('q'));
    assert.deepEqual(client.callsTo('council/snapshot')[0].params, { sessionId: SID, includeJournal: true });
    assert.deepEqual(keeper.get(SID)?.journal, [{ kind: 'created' }]);
  });

  it('no chat model or no consent: completion=false and the user is told', async () => {
    const { handler, client } = setup(undefined, { canSendRequest: () => false });
    const { stream } = await run(handler, chatRequest('q'));
    assert.deepEqual(client.callsTo('council/turn')[0].params.client, { completion: false });
    assert.equal(client.callsTo('council/turn')[0].params.options.provider, undefined);
    assert.match(stream.text, /no permission to use \*\*Fake Model\*\*.*configured provider/);
    const m = chooseModel(chatRequest('q', { model: undefined }), settings(), undefined);
    assert.equal(m.model, undefined);
    assert.match(m.notice ?? '', /No chat model is selected/);
  });

  it("offers the user's chat models to seat personas on, with council.models and council.maxModelCalls", async () => {
    const mock = (vscode as any).__mock;
    mock.reset();
    const chat = fakeModel(['x'], { id: 'gpt-5', name: 'GPT-5', vendor: 'copilot', family: 'gpt-5' });
    mock.chatModels.push(fakeModel(['x'], { id: 'claude-sonnet-4', name: 'Claude Sonnet 4', vendor: 'copilot', family: 'claude-sonnet-4' }), chat);
    const configured = () => readSettings({ get: <T>(k: string) => ({ models: { 'Security Expert': 'claude-sonnet-4' }, maxModelCalls: 20 } as Record<string, unknown>)[k] as T });
    const { handler, client } = setup(undefined, undefined, { models: new ChatModels(), settings: configured });
    await run(handler, chatRequest('q', { model: chat }));
    const params = client.callsTo('council/turn')[0].params;
    assert.deepEqual(params.client, {
      completion: true,
      completionModel: 'GPT-5',
      models: [
        { id: 'gpt-5', vendor: 'copilot', family: 'gpt-5', name: 'GPT-5' },
        { id: 'claude-sonnet-4', vendor: 'copilot', family: 'claude-sonnet-4', name: 'Claude Sonnet 4' },
      ],
      chatModelId: 'gpt-5',
    });
    assert.deepEqual(params.options.seating, { 'Security Expert': 'claude-sonnet-4' });
    assert.equal(params.options.maxModelCalls, 20);
  });

  it('an empty prompt explains how to ask', async () => {
    const { handler, client } = setup();
    const { stream } = await run(handler, chatRequest('  '));
    assert.equal(client.calls.length, 0);
    assert.match(stream.text, /Ask the council a hard question/);
  });

  it('/transcript opens the snapshot as a read-only preview titled by the question', async () => {
    (vscode as any).__mock.reset();
    const { handler } = setup(() => ({ session: { sessionId: 'abc', requestText: 'Split the monolith?', status: 'completed' }, transcriptMarkdown: '# Transcript\n' }));
    const history = [responseTurn({ sessionId: 'abc', status: 'completed', awaiting: 'nothing' })];
    const { stream, result } = await run(handler, chatRequest('', { command: 'transcript' }), history);
    const preview = (vscode as any).__mock.executed.find((e: { command: string }) => e.command === 'markdown.showPreview');
    assert.ok(preview, 'the markdown preview was opened');
    const uri = preview.args[0] as vscode.Uri;
    assert.equal(uri.scheme, 'council-transcript');
    assert.equal(uri.path, '/Split the monolith.md');
    assert.doesNotMatch(stream.text, /# Transcript/, 'the transcript is not pasted into the chat');
    assert.equal(stream.buttons[0].command, 'council.showTranscript');
    assert.deepEqual(stream.buttons[0].arguments, ['abc']);
    assert.equal(result.metadata?.status, 'completed');
  });
});

describe('slash commands and followups', () => {
  it('maps every contributed command', () => {
    for (const c of ['new', 'skip', 'skipAll', 'more', 'defer', 'extend', 'cancel', 'status', 'personas', 'retry', 'revisit']) assert.equal(mapCommand(c), c);
    assert.equal(mapCommand('skip-all'), 'skipAll');
    assert.equal(mapCommand('transcript'), undefined);
    assert.equal(mapCommand(undefined), undefined);
  });
  it('while clarifying: none (the question’s buttons show each choice, skip and skip all once)', () => {
    const f = followupsFor({ metadata: { sessionId: 's', status: 'clarifying', awaiting: 'answer', choices: ['A', 'B'] } });
    assert.deepEqual(f, []);
  });
  it('after completion: extend, transcript, new', () => {
    const f = followupsFor({ metadata: { sessionId: 's', status: 'completed', awaiting: 'nothing', canExtend: true } });
    assert.deepEqual(f.map((x) => x.command), ['extend', 'transcript', 'new']);
    assert.deepEqual(followupsFor({}), []);
  });
  it('after an answer that hinges on skipped questions: a revisit followup each, the question id as its prompt', () => {
    const revisit = [{ questionId: 'q-2', label: 'Revisit: The timeline is this quarter.' }, { questionId: 'q-1', label: 'Revisit: The goal is speed.' }];
    const f = followupsFor({ metadata: { sessionId: 's', status: 'completed', awaiting: 'nothing', revisit } });
    assert.deepEqual(f.slice(0, 2), [
      { prompt: 'q-2', command: 'revisit', label: 'Revisit: The timeline is this quarter.' },
      { prompt: 'q-1', command: 'revisit', label: 'Revisit: The goal is speed.' },
    ]);
    assert.deepEqual(f.slice(2).map((x) => x.command), ['transcript', 'new']);
  });
  it("carries the turn result's revisit offers (at most three) into the result metadata", async () => {
    const revisit = ['a', 'b', 'c', 'd'].map((id) => ({ questionId: id, label: `Revisit: ${id}` }));
    const { handler } = setup(() => turnResult({ finalAnswer: '## The council\'s answer\n', revisit }));
    const { result } = await run(handler, chatRequest('Should we split?'));
    assert.deepEqual(result.metadata?.revisit?.map((r) => r.questionId), ['a', 'b', 'c']);
    assert.deepEqual(followupsFor(result).filter((f) => f.command === 'revisit').map((f) => f.prompt), ['a', 'b', 'c']);
  });
});
