/**
 * Turns what the user attached to a chat request (#file, selections, pasted values) into bounded wire references.
 * VS Code adds context of its own to `request.references` — the instruction files and the "Chat customizations index"
 * (`vscode.prompt.instructions…`), the editor's file, selection or viewport (`vscode.implicit…`) — which the user did
 * not attach: it is left out, so the council never presents it as the user's evidence.
 */
import * as vscode from 'vscode';
import { log } from './log';
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

/** The id prefixes of context VS Code adds by itself (instruction files, the customizations index, the editor's view). */
export const IMPLICIT_PREFIXES = ['vscode.prompt.instructions', 'vscode.implicit', 'vscode.customizations'] as const;

/** Whether VS Code added `ref` by itself rather than the user attaching it. */
export function isImplicit(ref: Pick<vscode.ChatPromptReference, 'id'>): boolean {
  const id = typeof ref.id === 'string' ? ref.id : '';
  return IMPLICIT_PREFIXES.some((prefix) => id === prefix || id.startsWith(`${prefix}.`) || id.startsWith(`${prefix}_`));
}

/** What the user attached (implicit context left out), at most `budget` characters of content in total; names and uris are always sent. */
export async function collectReferences(
  refs: readonly vscode.ChatPromptReference[],
  budget: number,
  reader: ReferenceReader = workspaceReader,
): Promise<Reference[]> {
  const out: Reference[] = [];
  let left = budget;
  const attached = refs.filter((ref) => !isImplicit(ref));
  if (attached.length < refs.length) log.info(`left out ${refs.length - attached.length} reference(s) VS Code added by itself (not attached by the user)`);
  for (const ref of attached.slice(0, MAX_REFERENCES)) {
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
