/** Turns the chat request's attached references (#file, selections, pasted values) into bounded wire references. */
import * as vscode from 'vscode';
import type { Reference } from './wire';
import { LIMITS, MAX_REFERENCES } from './wire';

export interface ReferenceReader {
  readUri(uri: vscode.Uri): Promise<string | undefined>;
  readLocation(location: vscode.Location): Promise<string | undefined>;
  label(uri: vscode.Uri): string;
}

const MAX_FILE_BYTES = 2_000_000;

export const workspaceReader: ReferenceReader = {
  async readUri(uri) {
    const stat = await vscode.workspace.fs.stat(uri);
    if (stat.type & vscode.FileType.Directory || stat.size > MAX_FILE_BYTES) return undefined;
    const bytes = await vscode.workspace.fs.readFile(uri);
    if (bytes.subarray(0, 8000).includes(0)) return undefined; // binary
    return new TextDecoder('utf-8').decode(bytes);
  },
  async readLocation(location) {
    const doc = await vscode.workspace.openTextDocument(location.uri);
    return doc.getText(location.range);
  },
  label(uri) {
    return vscode.workspace.asRelativePath(uri, false);
  },
};

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, Math.max(0, max - 14))}\n…(truncated)`;
}

/** At most `budget` characters of content in total; names and uris are always sent. */
export async function collectReferences(
  refs: readonly vscode.ChatPromptReference[],
  budget: number,
  reader: ReferenceReader = workspaceReader,
): Promise<Reference[]> {
  const out: Reference[] = [];
  let left = budget;
  for (const ref of refs.slice(0, MAX_REFERENCES)) {
    const value = ref.value;
    let name = ref.modelDescription ?? ref.id;
    let uri: string | undefined;
    let content: string | undefined;
    try {
      if (value instanceof vscode.Uri) {
        name = reader.label(value);
        uri = value.toString();
        content = left > 0 ? await reader.readUri(value) : undefined;
      } else if (value instanceof vscode.Location) {
        name = `${reader.label(value.uri)}:${value.range.start.line + 1}-${value.range.end.line + 1}`;
        uri = value.uri.toString();
        content = left > 0 ? await reader.readLocation(value) : undefined;
      } else if (typeof value === 'string') {
        content = value;
      }
    } catch {
      content = undefined; // unreadable: send the name only
    }
    const item: Reference = { name: truncate(name || 'reference', LIMITS.Reference.name.maxLength) };
    if (uri) item.uri = uri.slice(0, LIMITS.Reference.uri.maxLength);
    if (content) {
      item.content = truncate(content, left);
      left -= item.content.length;
    }
    out.push(item);
  }
  return out;
}
