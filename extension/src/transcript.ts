/**
 * Session transcripts as read-only documents: a virtual markdown document per session (scheme `council-transcript`,
 * served from memory: nothing is written to disk), named after the session's question and shown as a markdown
 * preview. The markdown is the sidecar's (`council/snapshot` → `transcriptMarkdown`); this file adds none.
 */
import * as vscode from 'vscode';
import type { CouncilClient } from './client';
import type { SessionStatus } from './wire';

export const TRANSCRIPT_SCHEME = 'council-transcript';
const TITLE_CHARS = 80;

/** The document's name: the question's first line, without characters a file name cannot hold, cut to a title. */
export function transcriptName(question: string): string {
  const first = question.split(/\r?\n/).find((line) => line.trim() !== '') ?? '';
  // eslint-disable-next-line no-control-regex
  const clean = first.replace(/[\\/:*?"<>|#%\u0000-\u001f]+/g, ' ').replace(/\s+/g, ' ').trim();
  const title = clean.length > TITLE_CHARS ? `${clean.slice(0, TITLE_CHARS - 1).trimEnd()}…` : clean;
  return `${title || 'Council session'}.md`;
}

/** The read-only documents' content, by URI (the latest snapshot of each session shown). */
export class TranscriptDocuments implements vscode.TextDocumentContentProvider {
  private readonly texts = new Map<string, string>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;

  /** The URI of the session's transcript document, now holding `markdown`. */
  put(sessionId: string, question: string, markdown: string): vscode.Uri {
    const uri = vscode.Uri.from({ scheme: TRANSCRIPT_SCHEME, path: `/${transcriptName(question)}`, query: `session=${encodeURIComponent(sessionId)}` });
    const key = uri.toString();
    const known = this.texts.has(key);
    this.texts.set(key, markdown);
    if (known) this.changed.fire(uri);
    return uri;
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.toString()) ?? '';
  }
}

export const transcripts = new TranscriptDocuments();

/** Fetch the session's transcript and open it as a read-only markdown preview titled by its question. */
export async function openTranscript(client: CouncilClient, sessionId: string, token?: vscode.CancellationToken): Promise<{ uri: vscode.Uri; status: SessionStatus }> {
  const snap = await client.request('council/snapshot', { sessionId }, token);
  const uri = transcripts.put(sessionId, snap.session.requestText, snap.transcriptMarkdown);
  try {
    await vscode.commands.executeCommand('markdown.showPreview', uri);
  } catch {
    // No markdown preview (the built-in extension is disabled): the read-only document itself.
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri), { preview: true });
  }
  return { uri, status: snap.session.status };
}
