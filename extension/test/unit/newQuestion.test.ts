/** Short command words in the chat: "Ask a new question" (a bare /new) and the sidecar's `hint` for a bare keyword. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as vscode from 'vscode';
import { PendingAnswers } from '../../src/buttons';
import type { CouncilChatResult } from '../../src/participant';
import { createHandler, followupsFor, sessionIdFromHistory } from '../../src/participant';
import { readSettings } from '../../src/settings';
import { TurnRegistry } from '../../src/turns';
import { FakeStream } from './fixtures';
import { FakeClient, chatContext, chatRequest, responseTurn, turnResult } from './helpers';

const DONE = { sessionId: 'old', status: 'completed', awaiting: 'nothing', problem: 'Should we split our monolith?' };

function setup(script: ConstructorParameters<typeof FakeClient>[0]) {
  const client = new FakeClient(script);
  const handler = createHandler({ client, turns: new TurnRegistry<vscode.LanguageModelChat>(), pending: new PendingAnswers(), settings: () => readSettings({ get: () => undefined }) });
  return { client, handler };
}

async function run(handler: vscode.ChatRequestHandler, request: vscode.ChatRequest, history: unknown[]) {
  const stream = new FakeStream();
  const result = (await handler(request, chatContext(history), stream as unknown as vscode.ChatResponseStream, new vscode.CancellationTokenSource().token)) as CouncilChatResult;
  return { stream, result };
}

describe('"Ask a new question"', () => {
  it('a bare /new makes the question typed next start a new session', async () => {
    const snapshot = { session: { sessionId: 'old', requestText: DONE.problem, status: 'completed' }, transcriptMarkdown: '# Transcript\n' };
    const { handler, client } = setup((call) => (call.method === 'council/snapshot' ? snapshot : turnResult({ sessionId: 'fresh', intent: 'new_problem', status: 'clarifying' })));
    const followup = followupsFor({ metadata: DONE } as CouncilChatResult).find((f) => f.label === 'Ask a new question');
    assert.deepEqual([followup?.command, followup?.prompt], ['new', '']);
    const asked = await run(handler, chatRequest('', { command: 'new' }), [responseTurn(DONE)]);
    assert.equal(client.calls.length, 0, 'nothing is sent until the question is typed');
    assert.match(asked.stream.text, /^Type your new question: the council starts a new session for it/);
    assert.deepEqual(asked.result.metadata, { newQuestion: true });
    assert.deepEqual(followupsFor(asked.result), []);
    assert.equal(sessionIdFromHistory([responseTurn(DONE), responseTurn(asked.result.metadata)]), 'old');
    const transcript = await run(handler, chatRequest('', { command: 'transcript' }), [responseTurn(DONE), responseTurn(asked.result.metadata)]);
    assert.deepEqual(client.callsTo('council/snapshot').map((c) => c.params.sessionId), ['old'], '/transcript still shows the earlier session');
    assert.deepEqual(transcript.result.metadata, { newQuestion: true }, 'and a new question is still awaited');
    const history = [responseTurn(DONE), responseTurn(asked.result.metadata), responseTurn(transcript.result.metadata)];

    const { result } = await run(handler, chatRequest('Should we adopt Kafka for our event bus?'), history);
    const sent = client.callsTo('council/turn')[0].params;
    assert.equal(sent.sessionId, undefined, 'not a follow-up of the old session');
    assert.equal(sent.command, undefined);
    assert.equal(sent.text, 'Should we adopt Kafka for our event bus?');
    assert.equal(result.metadata?.sessionId, 'fresh');
    assert.equal(result.metadata?.problem, 'Should we adopt Kafka for our event bus?');
    await run(handler, chatRequest('And the costs?'), [...history, responseTurn(result.metadata)]);
    assert.equal(client.callsTo('council/turn')[1].params.sessionId, 'fresh', 'later turns continue the new session');
  });

  it('an empty prompt without /new keeps the session', async () => {
    const { handler, client } = setup(() => turnResult({ sessionId: 'old', intent: 'follow_up' }));
    const { stream, result } = await run(handler, chatRequest(' '), [responseTurn(DONE)]);
    assert.match(stream.text, /Ask the council a hard question/);
    await run(handler, chatRequest('Why not Kafka?'), [responseTurn(DONE), responseTurn(result.metadata)]);
    assert.equal(client.callsTo('council/turn')[0].params.sessionId, 'old');
  });
});

describe('a bare keyword after the answer (intent hint)', () => {
  it('prints the sidecar note only and keeps the session', async () => {
    const note = 'The council has already answered, so “retry” has nothing to act on. Ask a follow-up question about the answer, or send `/new <question>` to start a new session.\n';
    const { handler, client } = setup(() => turnResult({ sessionId: 'old', intent: 'hint', status: 'completed', finalAnswer: '## Final answer\n', message: note }));
    const { stream, result } = await run(handler, chatRequest('retry'), [responseTurn(DONE)]);
    assert.equal(client.callsTo('council/turn')[0].params.sessionId, 'old');
    assert.equal(stream.text, `${note}\n`, 'the note, and not the final answer again');
    assert.deepEqual(result.metadata, DONE);
  });
});
