import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import * as vscode from 'vscode';
import { SessionTracker, showTranscript } from '../../src/commands';
import { TRANSCRIPT_SCHEME, TranscriptDocuments, sessionOfUri, transcriptName, transcripts } from '../../src/transcript';
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

  it('a tab restored after a reload (not in memory) is fetched from the sidecar, and re-read once the extension is up', async () => {
    const docs = new TranscriptDocuments();
    const uri = vscode.Uri.from({ scheme: TRANSCRIPT_SCHEME, path: '/Split.md', query: 'session=s%201' });
    assert.equal(sessionOfUri(uri), 's 1');
    assert.equal(docs.provideTextDocumentContent(uri), '', 'before the extension attached its loader');
    const changed: string[] = [];
    docs.onDidChange((u) => changed.push(u.toString()));
    const asked: string[] = [];
    docs.attach(async (sessionId) => {
      asked.push(sessionId);
      if (sessionId !== 's 1') throw new Error('unknown session');
      return { question: 'Split?', markdown: '# Split\n' };
    }, [uri, vscode.Uri.file('/ws/other.md')]);
    assert.deepEqual(changed, [uri.toString()], 'the restored tab is told to read again; other documents are not');
    assert.equal(await docs.provideTextDocumentContent(uri), '# Split\n');
    assert.equal(await docs.provideTextDocumentContent(uri), '# Split\n');
    assert.deepEqual(asked, ['s 1'], 'fetched once, then served from memory');
    const gone = vscode.Uri.from({ scheme: TRANSCRIPT_SCHEME, path: '/Old.md', query: 'session=s2' });
    assert.match(await docs.provideTextDocumentContent(gone), /^# Transcript unavailable\n\n.*keepAcrossReloads/s);
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
