import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import * as vscode from 'vscode';
import { SessionTracker, showTranscript } from '../../src/commands';
import { TRANSCRIPT_SCHEME, TranscriptDocuments, transcriptName, transcripts } from '../../src/transcript';
import { FakeClient } from './helpers';

const mock = (vscode as any).__mock;

describe('transcript documents', () => {
  beforeEach(() => mock.reset());

  it('are named by the question: its first line, no path characters, cut to a title', () => {
    assert.equal(transcriptName('Should we split our monolith?'), 'Should we split our monolith.md');
    assert.equal(transcriptName('\n  a/b: c*d?\nsecond line'), 'a b c d.md');
    assert.equal(transcriptName(''), 'Council session.md');
    const long = transcriptName('x'.repeat(200));
    assert.equal(long.length, 80 + '.md'.length);
    assert.ok(long.endsWith('….md'));
  });

  it('serve the latest markdown of a session from memory, read-only, and say when it changed', () => {
    const docs = new TranscriptDocuments();
    const changed: string[] = [];
    docs.onDidChange((uri) => changed.push(uri.toString()));
    const uri = docs.put('s1', 'Split?', '# one\n');
    assert.equal(uri.scheme, TRANSCRIPT_SCHEME);
    assert.equal(docs.provideTextDocumentContent(uri), '# one\n');
    assert.deepEqual(changed, []);
    assert.equal(docs.put('s1', 'Split?', '# two\n').toString(), uri.toString());
    assert.equal(docs.provideTextDocumentContent(uri), '# two\n');
    assert.deepEqual(changed, [uri.toString()]);
    assert.notEqual(docs.put('s2', 'Split?', '# other\n').toString(), uri.toString(), 'one document per session');
  });

  it('the command opens the latest session as a markdown preview (no untitled, editable document)', async () => {
    const client = new FakeClient(() => ({ session: { sessionId: 'sid', requestText: 'Hire or outsource?', status: 'completed' }, transcriptMarkdown: '# Hire\n' }));
    const sessions = new SessionTracker();
    sessions.update('sid', 'completed');
    await showTranscript({ client, sessions }, undefined);
    assert.deepEqual(client.calls.map((c) => [c.method, c.params.sessionId]), [['council/snapshot', 'sid']]);
    const opened = mock.executed.filter((e: { command: string }) => e.command === 'markdown.showPreview');
    assert.equal(opened.length, 1);
    assert.equal(opened[0].args[0].path, '/Hire or outsource.md');
    assert.equal(transcripts.provideTextDocumentContent(opened[0].args[0]), '# Hire\n');
  });

  it('without a session it says so and asks the sidecar nothing', async () => {
    const client = new FakeClient();
    await showTranscript({ client, sessions: new SessionTracker() }, undefined);
    assert.equal(client.calls.length, 0);
    assert.match(mock.messages[0].text, /no session yet/);
  });
});
