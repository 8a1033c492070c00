/**
 * *Edit Personas* as a draft: the shipped personas the user can pick (chat advisors, review-only roles apart), which
 * of the picked files would be copied into the workspace (and which already exist and are kept), shown to the user
 * before anything is written; the copy happens only after an explicit yes.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

export interface PersonaDraft {
  /** Where the files go: <workspace>/.council/personas. */
  targetDir: string;
  /** Shipped files not in the workspace yet: these would be written. */
  toWrite: string[];
  /** Files the workspace already has: never overwritten. */
  kept: string[];
  /** Where the files really land when a folder on the way is a symbolic link (else undefined). */
  linkedTo?: string;
}

/** `dir` with its deepest existing ancestor's links resolved: where writing into `dir` really lands. */
export function realTarget(dir: string): string {
  let existing = path.resolve(dir);
  const rest: string[] = [];
  while (!fs.existsSync(existing) && path.dirname(existing) !== existing) {
    rest.unshift(path.basename(existing));
    existing = path.dirname(existing);
  }
  return path.join(fs.realpathSync(existing), ...rest);
}

/** A shipped persona as the picker shows it (read from its TOML's top-level `name`, `description`, `councils`). */
export interface ShippedPersona {
  file: string;
  name: string;
  description: string;
  councils: string[];
  /** Only the review council (review mode): never routed to in the chat. */
  reviewOnly: boolean;
  /** The workspace already has this file: picking it opens the copy there. */
  inWorkspace: boolean;
}

const REVIEW_COUNCIL = 'review';

function tomlString(text: string, key: string): string {
  const m = new RegExp(`^${key}\\s*=\\s*"((?:[^"\\\\]|\\\\.)*)"`, 'm').exec(text);
  return m ? m[1].replace(/\\(["\\])/g, '$1') : '';
}

/** The shipped personas, chat advisors first (by name), then the review-only roles; `targetDir` says which are copied already. */
export function shippedPersonas(shippedDir: string, targetDir: string): ShippedPersona[] {
  const files = fs.existsSync(shippedDir) ? fs.readdirSync(shippedDir).filter((f) => f.endsWith('.toml')).sort() : [];
  const personas = files.map((file): ShippedPersona => {
    const text = fs.readFileSync(path.join(shippedDir, file), 'utf8');
    const councils = [...(/^councils\s*=\s*\[([^\]]*)\]/m.exec(text)?.[1] ?? '').matchAll(/"([^"]*)"/g)].map((m) => m[1]);
    return {
      file,
      name: tomlString(text, 'name') || file.replace(/\.toml$/, ''),
      description: tomlString(text, 'description'),
      councils,
      reviewOnly: councils.length > 0 && councils.every((c) => c === REVIEW_COUNCIL),
      inWorkspace: fs.existsSync(path.join(targetDir, file)),
    };
  });
  return personas.sort((a, b) => Number(a.reviewOnly) - Number(b.reviewOnly) || a.name.localeCompare(b.name));
}

/**
 * The draft of copying shipped persona TOMLs from `shippedDir` into `targetDir`, <workspace>/.council/personas
 * (reads only): the files in `only` when given (the user's pick), else all of them.
 */
export function draftPersonaCopy(shippedDir: string, targetDir: string, only?: readonly string[]): PersonaDraft {
  const all = fs.existsSync(shippedDir) ? fs.readdirSync(shippedDir).filter((f) => f.endsWith('.toml')).sort() : [];
  const shipped = only ? all.filter((f) => only.includes(f)) : all;
  const toWrite: string[] = [];
  const kept: string[] = [];
  for (const f of shipped) (fs.existsSync(path.join(targetDir, f)) ? kept : toWrite).push(f);
  // A link inside the workspace (e.g. .council → elsewhere) moves the files; the folders above it are the user's.
  const workspace = path.dirname(path.dirname(path.resolve(targetDir)));
  const real = realTarget(targetDir);
  const expected = path.join(realTarget(workspace), path.relative(workspace, path.resolve(targetDir)));
  return { targetDir, toWrite, kept, ...(real !== expected ? { linkedTo: real } : {}) };
}

/** The confirmation dialog's text: what will be written where. */
export function describeDraft(draft: PersonaDraft, relativeDir: string): { message: string; detail: string } {
  const n = draft.toWrite.length;
  const message = `Copy ${n} persona file${n === 1 ? '' : 's'} into ${relativeDir}?`;
  const lines = [
    draft.linkedTo
      ? `Council will write these files into ${draft.linkedTo} (${draft.targetDir} is linked there):`
      : `Council will write these files into ${draft.targetDir}:`,
    ...draft.toWrite.map((f) => `  + ${f}`),
  ];
  if (draft.kept.length > 0) lines.push('', `Already there and left as they are: ${draft.kept.join(', ')}`);
  lines.push('', 'They override the shipped personas by id. Nothing else is changed; sessions in progress are kept.');
  return { message, detail: lines.join('\n') };
}

/** Write the drafted files (a file that appeared meanwhile is kept, never overwritten). Returns the files written. */
export function applyPersonaDraft(draft: PersonaDraft, shippedDir: string): string[] {
  fs.mkdirSync(draft.targetDir, { recursive: true });
  const written: string[] = [];
  for (const f of draft.toWrite) {
    const target = path.join(draft.targetDir, f);
    try {
      fs.copyFileSync(path.join(shippedDir, f), target, fs.constants.COPYFILE_EXCL);
      written.push(f);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
  return written;
}
