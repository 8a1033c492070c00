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

/** What a transcript that is no longer in memory (a restored preview tab) is fetched with: the session's question and markdown. */
export type TranscriptLoader = (sessionId: string) => Promise<{ question: string; markdown: string }>;

const UNAVAILABLE =
  '# Transcript unavailable\n\nThe council session of this transcript is no longer there: VS Code was reloaded (or the sidecar ' +
  'restarted) without it. To keep sessions across reloads, turn on `council.sessions.keepAcrossReloads`.\n';

/** The session id a transcript URI names (its query, `session=<id>`). */
export function sessionOfUri(uri: vscode.Uri): string | undefined {
  const match = /(?:^|&)session=([^&]*)/.exec(uri.query);
  return match ? decodeURIComponent(match[1]) : undefined;
}

/**
 * The read-only documents' content, by URI (the latest snapshot of each session shown). A document VS Code restored
 * after a reload (its preview tab) is not in memory: it is fetched from the sidecar, or says why it cannot be.
 */
export class TranscriptDocuments implements vscode.TextDocumentContentProvider {
  private readonly texts = new Map<string, string>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  private loader: TranscriptLoader | undefined;
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

  /**
   * Fetch documents that are not in memory with `loader`, and have the ones already open (tabs VS Code restored
   * before the extension started, shown blank until now) read again.
   */
  attach(loader: TranscriptLoader, open: readonly vscode.Uri[] = []): void {
    this.loader = loader;
    for (const uri of open) if (uri.scheme === TRANSCRIPT_SCHEME && !this.texts.has(uri.toString())) this.changed.fire(uri);
  }

  provideTextDocumentContent(uri: vscode.Uri): string | Promise<string> {
    const known = this.texts.get(uri.toString());
    if (known !== undefined) return known;
    const sessionId = sessionOfUri(uri);
    if (!this.loader || !sessionId) return '';
    return this.loader(sessionId).then(
      ({ markdown }) => {
        this.texts.set(uri.toString(), markdown);
        return markdown;
      },
      () => UNAVAILABLE,
    );
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
