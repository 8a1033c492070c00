/**
 * Integration: the error cases of the wire contract sent through vscode-jsonrpc (the client VS Code uses) to the real
 * sidecar, checking that the library settles every request: each promise resolves or rejects with a ResponseError
 * carrying the contract's data, nothing hangs, the stream has no framing errors and the sidecar keeps serving.
 * The cases: every council/* method with each of its params replaced by values of every JSON type (lone surrogates
 * too), unknown and notification-only methods, a turn over the context cap, and a request over the 16 MiB frame
 * cap (the sidecar used to answer it with id null, so the library's promise never settled).
 * Skipped (not failed) only when the sidecar module is absent.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { MessageConnection } from 'vscode-jsonrpc/node';
import { ResponseError, StreamMessageReader, StreamMessageWriter, createMessageConnection } from 'vscode-jsonrpc/node';
import { isErrorData } from '../../src/protocol';
import { MAX_CONTEXT, Methods } from '../../src/wire';

const ROOT = path.resolve(__dirname, '../../../..');
const PYTHON = process.env.COUNCIL_TEST_PYTHON ?? path.join(ROOT, '.venv', 'bin', 'python');
const SERVER = path.join(ROOT, 'server', 'council', 'server.py');
const skip = !fs.existsSync(SERVER) ? `sidecar module absent (${SERVER})` : !fs.existsSync(PYTHON) ? `no Python at ${PYTHON} (set COUNCIL_TEST_PYTHON)` : false;
const SETTLE_MS = 60_000;
const PROBLEM = 'Should we split our billing monolith into services this quarter?';

/** A valid (or nearly valid) params object per method; each case replaces one field. */
const BASE: Record<string, Record<string, unknown>> = {
  'council/turn': { text: PROBLEM, options: { clarify: true, maxCycles: 1 }, client: { completion: false } },
  'council/answer': { sessionId: 'no-such-session', questionId: 'q1', action: 'answer', text: 'yes', idempotencyKey: 'k' },
  'council/stop': { sessionId: 'no-such-session' },
  'council/cancel': { sessionId: 'no-such-session' },
  'council/snapshot': { sessionId: 'no-such-session', includeJournal: true },
  'council/restore': { sessionId: 'restored', journal: [{ kind: 'session.created' }], lastSeq: 0 },
  'council/personas': {},
  'council/providers': {},
  'council/consult': { user_problem: PROBLEM, depth: 'brief', selected_personas: ['Security Expert'] },
  'council/personaConsult': { user_problem: PROBLEM, persona_name: 'Security Expert', depth: 'brief' },
  'council/definePersonas': { overrides: [{ persona: 'Security Expert', focus: ['x'] }] },
  'council/consultPlan': { user_problem: PROBLEM, depth: 'brief' },
  'council/reviewPlan': { changeType: 'CODE_REFACTOR' },
  'council/review': { request: { request_id: 'r1', proposer: 'p', change_type: 'DECLARE_PASS', context: { summary: 's' } } },
};
// Values of every JSON type; none of them makes a consult or a review valid (those would run whole sessions).
const WRONG: unknown[] = [null, 0, -1, 1.5, 2 ** 53, '', 'x', '\ud800', 'half an emoji \ud83d', [], [1, 'a'], {}, { a: { b: [] } }, true];

type Outcome = { kind: 'result' } | { kind: 'error'; code: number };

async function start(): Promise<{ conn: MessageConnection; stop: () => Promise<number | null>; errors: string[]; stderr: string[] }> {
  const proc = spawn(PYTHON, ['-m', 'council', 'serve', '--provider', 'scripted', '--no-embeddings'], {
    env: { ...process.env, PYTHONPATH: path.join(ROOT, 'server'), PYTHONUNBUFFERED: '1' },
    cwd: ROOT,
  });
  const conn = createMessageConnection(new StreamMessageReader(proc.stdout), new StreamMessageWriter(proc.stdin));
  const errors: string[] = [];
  const stderr: string[] = [];
  proc.stderr.on('data', (d: Buffer) => stderr.push(d.toString()));
  conn.onError(([err]) => errors.push(String(err)));
  conn.onNotification(() => undefined); // events of the sessions some cases start
  conn.listen();
  await conn.sendRequest('initialize', { processId: process.pid, rootUri: null, capabilities: {}, clientInfo: { name: 'council-hostile-test' } });
  await conn.sendNotification('initialized', {});
  const stop = async (): Promise<number | null> => {
    await Promise.race([conn.sendRequest('shutdown'), new Promise((r) => setTimeout(r, 5000))]);
    const exited = new Promise<number | null>((r) => proc.once('exit', (code) => r(code)));
    await conn.sendNotification('exit');
    const code = await Promise.race([exited, new Promise<null>((r) => setTimeout(() => r(null), 5000))]);
    if (proc.exitCode === null) proc.kill('SIGKILL');
    conn.dispose();
    return code;
  };
  return { conn, stop, errors, stderr };
}

/** The request's outcome, or a failed assertion when vscode-jsonrpc has not settled it within SETTLE_MS. */
async function settle(conn: MessageConnection, method: string, params: unknown): Promise<Outcome> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new assert.AssertionError({ message: `${method} never settled: ${JSON.stringify(params)?.slice(0, 200)}` })), SETTLE_MS);
  });
  try {
    await Promise.race([conn.sendRequest(method, params), timeout]);
    return { kind: 'result' };
  } catch (err) {
    if (err instanceof assert.AssertionError) throw err;
    assert.ok(err instanceof ResponseError, `${method} rejected with ${String(err)}`);
    assert.ok(isErrorData(err.data), `${method}: error data ${JSON.stringify(err.data)?.slice(0, 200)}`);
    return { kind: 'error', code: err.code };
  } finally {
    clearTimeout(timer);
  }
}

describe('vscode-jsonrpc settles every request of the contract’s error cases', { skip, timeout: 180_000 }, () => {
  let s: Awaited<ReturnType<typeof start>>;
  before(async () => {
    s = await start();
  });
  after(async () => {
    if (s) assert.equal(await s.stop(), 0, 'the sidecar exits 0 after shutdown');
  });

  it('every param of every method, with values of every JSON type', async () => {
    assert.deepEqual(Object.keys(BASE).sort(), Object.values(Methods).sort(), 'a base params object per method');
    const cases: [string, unknown][] = [];
    for (const [method, base] of Object.entries(BASE)) {
      for (const field of [...Object.keys(base), 'unknownField']) {
        for (const value of WRONG) cases.push([method, { ...base, [field]: value }]);
      }
      for (const value of WRONG.filter((v) => typeof v === 'object' && v !== null)) cases.push([method, value]);
    }
    const outcomes = await Promise.all(cases.map(([method, params]) => settle(s.conn, method, params)));
    const codes = new Map<string, number>();
    for (const o of outcomes) codes.set(o.kind === 'error' ? String(o.code) : 'result', (codes.get(o.kind === 'error' ? String(o.code) : 'result') ?? 0) + 1);
    console.log(`vscode-jsonrpc: ${cases.length} requests settled: ${JSON.stringify(Object.fromEntries(codes))}`);
    assert.ok(outcomes.filter((o) => o.kind === 'error').length > cases.length / 2, 'most of them are refused');
    assert.ok(!codes.has('-32603'), 'no internal error: bad input is a validation error');
    assert.deepEqual(s.errors, [], 'no framing errors on the JSON-RPC stream');
  });

  it('unknown methods, notification methods sent as requests, lone surrogates in the method', async () => {
    for (const method of ['council/dance', 'council/\ud800', 'council/completeDelta', 'initialized', '$/cancelRequest', 'council/event', 'exit']) {
      const outcome = await settle(s.conn, method, {});
      assert.deepEqual(outcome, { kind: 'error', code: -32601 }, method);
    }
    assert.deepEqual(await settle(s.conn, 'initialize', { processId: null, capabilities: {} }), { kind: 'error', code: -32600 });
  });

  it('a turn over the context cap, a turn with half an emoji, a request over the frame cap', async () => {
    const over = [{ name: 'a', content: 'x'.repeat(MAX_CONTEXT) }, { name: 'b', content: 'y' }];
    await assert.rejects(s.conn.sendRequest('council/turn', { text: PROBLEM, references: over }), (e: unknown) =>
      e instanceof ResponseError && isErrorData(e.data) && e.data.details?.limit === MAX_CONTEXT && e.data.details?.actual === MAX_CONTEXT + 1);
    const split = await s.conn.sendRequest<{ sessionId: string }>('council/turn', { text: `${PROBLEM} \ud83d`, references: [{ name: 'n', content: 'c\ud83d' }] });
    assert.ok(split.sessionId, 'a turn holding a lone surrogate runs');
    const huge = await settle(s.conn, 'council/turn', { text: 'x'.repeat(17 * 1024 * 1024) });
    assert.deepEqual(huge, { kind: 'error', code: -32600 }, 'the library settled the too-large request (it had no answer with its id)');
    assert.deepEqual(await settle(s.conn, 'council/personas', {}), { kind: 'result' }, 'the sidecar still serves');
    assert.deepEqual(s.errors, []);
  });
});
