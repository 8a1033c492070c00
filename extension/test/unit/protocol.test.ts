/**
 * The TypeScript mirror of the wire contract must not drift from the Python source of truth:
 * event types, method names and turn commands are compared with the sidecar's registries.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { EVENT_METHOD, COMPLETE_DELTA_METHOD, COMPLETE_METHOD, EVENT_TYPES, Methods, TURN_COMMANDS, WIRE_FIELDS } from '../../src/protocol';

const ROOT = path.resolve(__dirname, '../../../..');
const PYTHON = process.env.COUNCIL_TEST_PYTHON ?? path.join(ROOT, '.venv', 'bin', 'python');

const DUMP = `
import json
from council.protocol.events import EVENT_TYPES, EVENT_METHOD
from council.protocol.methods import METHODS, TurnCommand
from council.protocol.completion import COMPLETE_METHOD, COMPLETE_DELTA_METHOD
from council.protocol import completion, methods
from council.session import entities, outputs
models = {c.__name__: c for c in EVENT_TYPES}
for mod in (methods, completion, entities, outputs):
    for name in dir(mod):
        obj = getattr(mod, name)
        if isinstance(obj, type) and hasattr(obj, "model_json_schema") and obj.__module__ == mod.__name__:
            models.setdefault(name, obj)
print(json.dumps({
  "fields": {n: list(c.model_json_schema(by_alias=True)["properties"]) for n, c in models.items()},
  "events": [c.model_fields["type"].default for c in EVENT_TYPES],
  "eventMethod": EVENT_METHOD,
  "methods": [m.name for m in METHODS],
  "commands": [c.value for c in TurnCommand],
  "complete": [COMPLETE_METHOD, COMPLETE_DELTA_METHOD],
}))
`;

function pythonRegistry(): { events: string[]; eventMethod: string; methods: string[]; commands: string[]; complete: string[]; fields: Record<string, string[]> } | undefined {
  if (!fs.existsSync(PYTHON) || !fs.existsSync(path.join(ROOT, 'server', 'council', 'protocol', 'events.py'))) return undefined;
  const out = execFileSync(PYTHON, ['-c', DUMP], { env: { ...process.env, PYTHONPATH: path.join(ROOT, 'server') }, encoding: 'utf8' });
  return JSON.parse(out.trim().split('\n').pop() ?? '{}');
}

const registry = pythonRegistry();
const skip = registry ? false : `no Python venv at ${PYTHON} (set COUNCIL_TEST_PYTHON) or no server/council`;

describe('protocol.ts mirrors server/council/protocol', () => {
  it('event types equal the Python EVENT_TYPES registry, in order', { skip }, () => {
    assert.deepEqual([...EVENT_TYPES], registry?.events);
    assert.equal(EVENT_METHOD, registry?.eventMethod);
  });
  it('request methods equal METHODS', { skip }, () => {
    assert.deepEqual(Object.values(Methods).sort(), [...(registry?.methods ?? [])].sort());
  });
  it('turn commands equal TurnCommand', { skip }, () => {
    assert.deepEqual([...TURN_COMMANDS], registry?.commands);
  });
  it('completion method names match', { skip }, () => {
    assert.deepEqual([COMPLETE_METHOD, COMPLETE_DELTA_METHOD], registry?.complete);
  });
  it('wire field names of every mirrored model equal the pydantic schema (camelCase aliases)', { skip }, () => {
    for (const [name, tsFields] of Object.entries(WIRE_FIELDS)) {
      const py = registry?.fields[name];
      assert.ok(py, `${name} exists in the Python contract`);
      assert.deepEqual([...tsFields].sort(), [...py].sort(), `fields of ${name}`);
    }
  });
});
