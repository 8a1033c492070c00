import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';

// The extension's own few strings (vscode.l10n.t) have a Russian translation in l10n/, with the same placeholders;
// package.json points VS Code at that folder.
const ROOT = path.resolve(__dirname, '../../../..');
const SRC = path.join(ROOT, 'extension', 'src');
const CALL = /vscode\.l10n\.t\(\s*'((?:\\.|[^'\\])*)'/g;

function messages(): string[] {
  const found = new Set<string>();
  for (const file of fs.readdirSync(SRC).filter((f) => f.endsWith('.ts'))) {
    for (const m of fs.readFileSync(path.join(SRC, file), 'utf8').matchAll(CALL)) found.add(m[1].replace(/\\'/g, "'"));
  }
  return [...found].sort();
}

const placeholders = (text: string): string[] => (text.match(/\{\d+\}/g) ?? []).sort();

describe('the extension’s own strings (vscode.l10n)', () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { l10n?: string };
  const ru = JSON.parse(fs.readFileSync(path.join(ROOT, 'l10n', 'bundle.l10n.ru.json'), 'utf8')) as Record<string, string>;

  it('every message has a Russian translation with the same placeholders, and nothing else is there', () => {
    const used = messages();
    assert.ok(used.length >= 10, `found only ${used.length} messages`);
    assert.equal(pkg.l10n, './l10n');
    assert.deepEqual(used.filter((m) => !(m in ru)), []);
    assert.deepEqual(Object.keys(ru).filter((m) => !used.includes(m)), []);
    assert.deepEqual(used.filter((m) => placeholders(m).join() !== placeholders(ru[m]).join()), []);
    assert.deepEqual(used.filter((m) => ru[m] === m), []);
  });
});
