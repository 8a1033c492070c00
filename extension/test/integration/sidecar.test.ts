/**
 * Integration: the real sidecar (`python -m council serve`) driven over stdio by vscode-jsonrpc, the library
 * VS Code itself uses — unlike pygls's lenient test reader it fails on any stray byte on stdout.
 * Skipped (not failed) only when the sidecar module is absent.
 */
import assert from 'node:assert/strict';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { MessageConnection } from 'vscode-jsonrpc/node';
import { CancellationTokenSource, ResponseError, StreamMessageReader, StreamMessageWriter, createMessageConnection } from 'vscode-jsonrpc/node';
import * as vscode from 'vscode';
import { serveCompletion } from '../../src/completion';
import { ChatModels } from '../../src/models';
import { isErrorData } from '../../src/protocol';
import type { ToolDeps } from '../../src/tools';
import { consultTool, personaConsultTool } from '../../src/tools';
import { TurnRegistry } from '../../src/turns';
import { fakeModel } from '../unit/helpers';
import type { AnswerParams, CompleteParams, CompleteResult, CouncilEvent, MethodTypes, TurnParams, TurnResult } from '../../src/wire';
import { COMPLETE_DELTA_METHOD, COMPLETE_METHOD, EVENT_METHOD } from '../../src/wire';

const ROOT = path.resolve(__dirname, '../../../..');
const PYTHON = process.env.COUNCIL_TEST_PYTHON ?? path.join(ROOT, '.venv', 'bin', 'python');
const SERVER = path.join(ROOT, 'server', 'council', 'server.py');
const skip = !fs.existsSync(SERVER) ? `sidecar module absent (${SERVER})` : !fs.existsSync(PYTHON) ? `no Python at ${PYTHON} (set COUNCIL_TEST_PYTHON)` : false;
 
const replies = require(path.join(ROOT, 'extension', 'test', 'e2e', 'fake-lm-ext', 'replies.js')) as {
  replyText(messages: { role: string; content: string }[], schema: unknown, who?: string): string;
  chunks(text: string, n?: number): string[];
};

const QUESTION = 'Should we split our monolith into services this quarter?';

class Sidecar {
  readonly events: CouncilEvent[] = [];
  readonly errors: string[] = [];
  readonly stderr: string[] = [];
  private waiters: { pred: (e: CouncilEvent) => boolean; resolve: (e: CouncilEvent) => void }[] = [];
  private constructor(readonly proc: ChildProcessWithoutNullStreams, readonly conn: MessageConnection) {}

  static async start(args: string[]): Promise<Sidecar> {
    const proc = spawn(PYTHON, ['-m', 'council', 'serve', '--no-embeddings', '--personas-dir', path.join(ROOT, 'personas'), ...args], {
      env: { ...process.env, PYTHONPATH: path.join(ROOT, 'server'), PYTHONUNBUFFERED: '1', COUNCIL_LOG_LEVEL: 'INFO' },
      cwd: ROOT,
    });
    const conn = createMessageConnection(new StreamMessageReader(proc.stdout), new StreamMessageWriter(proc.stdin));
    const s = new Sidecar(proc, conn);
    proc.stderr.on('data', (d: Buffer) => s.stderr.push(d.toString()));
    conn.onError(([err]) => s.errors.push(String(err)));
    conn.onNotification(EVENT_METHOD, (e: CouncilEvent) => {
      s.events.push(e);
      for (const w of [...s.waiters]) {
        if (w.pred(e)) {
          s.waiters.splice(s.waiters.indexOf(w), 1);
          w.resolve(e);
        }
      }
    });
    conn.listen();
    const init = await conn.sendRequest<{ capabilities: unknown; serverInfo?: { name: string } }>('initialize', {
      processId: process.pid,
      rootUri: null,
      capabilities: {},
      clientInfo: { name: 'council-integration-test' },
    });
    assert.ok(init.capabilities, 'initialize answered');
    await conn.sendNotification('initialized', {});
    return s;
  }

  request<M extends keyof MethodTypes>(method: M, params: MethodTypes[M]['params'], token?: CancellationTokenSource['token']): Promise<MethodTypes[M]['result']> {
    return token ? this.conn.sendRequest(method, params, token) : this.conn.sendRequest(method, params);
  }

  waitFor(pred: (e: CouncilEvent) => boolean, ms = 20_000): Promise<CouncilEvent> {
    const found = this.events.find(pred);
    if (found) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`timed out waiting for an event; stderr:\n${this.stderr.join('').slice(-2000)}`)), ms);
      this.waiters.push({ pred, resolve: (e) => (clearTimeout(t), resolve(e)) });
    });
  }

  of(sessionId: string): CouncilEvent[] {
    return this.events.filter((e) => e.sessionId === sessionId);
  }

  async stop(): Promise<void> {
    try {
      await Promise.race([this.conn.sendRequest('shutdown'), new Promise((r) => setTimeout(r, 3000))]);
      await this.conn.sendNotification('exit');
    } catch {
      /* already gone */
    }
    const exited = new Promise((r) => this.proc.once('exit', r));
    await Promise.race([exited, new Promise((r) => setTimeout(r, 3000))]);
    if (this.proc.exitCode === null) this.proc.kill('SIGKILL');
    this.conn.dispose();
  }
}

/** What a client prints for a session (every event's markdown in seq order) is text a person can read. */
function assertReadable(events: CouncilEvent[]): void {
  for (const e of events) assert.equal(typeof e.markdown, 'string', `${e.type} #${e.seq} carries markdown`);
  const printed = events.map((e) => e.markdown).join('');
  assert.doesNotMatch(printed, /\[object Object\]/);
  const answers = printed.match(/^#+ The council's answer/gm) ?? [];
  const expected = events.some((e) => e.type === 'final.answer') ? 1 : 0;
  assert.equal(answers.length, expected, `"The council's answer" headings in the printed session`);
}

function assertSeqStrictlyIncreasing(events: CouncilEvent[]): void {
  for (let i = 1; i < events.length; i++) assert.ok(events[i].seq > events[i - 1].seq, `seq ${events[i - 1].seq} → ${events[i].seq}`);
  assert.equal(events[0]?.seq, 1);
}

let keyCounter = 0;
const key = (): string => `it-${process.pid}-${++keyCounter}`;

describe('the same markdown reaches this client as the CLI (golden file)', { skip, timeout: 120_000 }, () => {
  let s: Sidecar;
  before(async () => {
    s = await Sidecar.start(['--provider', 'scripted', '--max-cycles', '2', '--min-cycles', '2']);
  });
  after(async () => s?.stop());

  it('a scripted session prints byte for byte tests/golden/scripted_session.md', async () => {
    // the same session as tests/headless/test_golden_markdown.py drives over the Python client
    const personas = ['Software Architect', 'Senior Developer', "Devil's Advocate"];
    const first = await s.request('council/turn', { text: 'Should we split our monolith into services this quarter?', options: { personas } });
    const sid = first.sessionId!;
    const q = first.question!;
    await s.request('council/answer', { sessionId: sid, questionId: q.questionId, action: 'answer', choice: q.choices[1].value, idempotencyKey: key() });
    const done = await s.request('council/turn', { sessionId: sid, text: 'skip' });
    assert.equal(done.status, 'completed');
    const printed = s.of(sid).filter((e) => e.type !== 'progress').map((e) => e.markdown).join('');
    const golden = fs.readFileSync(path.join(ROOT, 'tests', 'golden', 'scripted_session.md'), 'utf8');
    assert.equal(printed, golden);
  });
});

describe('sidecar over vscode-jsonrpc (scripted provider)', { skip, timeout: 120_000 }, () => {
  let s: Sidecar;
  before(async () => {
    s = await Sidecar.start(['--provider', 'scripted']);
  });
  after(async () => s?.stop());

  it('clarify → answer (idempotent) → skip → debate → vote → final answer', async () => {
    const first = await s.request('council/turn', { text: QUESTION, options: { maxCycles: 2, clarify: true }, client: { completion: false } });
    assert.equal(first.awaiting, 'answer');
    assert.equal(first.status, 'clarifying');
    const q1 = first.question;
    assert.ok(q1 && q1.choices && q1.choices.length > 0, 'the first question has choices');
    const sid = first.sessionId!;
    assert.ok(s.of(sid).some((e) => e.type === 'question.asked'));

    const k1 = key();
    const answer: AnswerParams = { sessionId: sid, questionId: q1.questionId, action: 'answer', choice: q1.choices[0].value, idempotencyKey: k1 };
    const second = await s.request('council/answer', answer);
    assert.equal(second.duplicate ?? false, false);
    assert.equal(second.awaiting, 'answer', 'the second question is pending');
    const q2 = second.question;
    assert.ok(q2 && q2.questionId !== q1.questionId);

    const repeat = await s.request('council/answer', answer);
    assert.equal(repeat.duplicate, true, 'a repeated idempotency key is a no-op');
    assert.equal(repeat.question?.questionId, q2.questionId, 'the repeat did not answer the second question');
    const snap = await s.request('council/snapshot', { sessionId: sid });
    assert.equal(snap.session.status, 'clarifying');

    let result: TurnResult = await s.request('council/answer', { sessionId: sid, questionId: q2.questionId, action: 'skip', idempotencyKey: key() });
    for (let i = 0; i < 4 && result.awaiting === 'answer' && result.question; i++) {
      result = await s.request('council/answer', { sessionId: sid, questionId: result.question.questionId, action: 'skip', idempotencyKey: key() });
    }
    assert.equal(result.awaiting, 'nothing');
    assert.equal(result.status, 'completed');
    assert.ok(result.finalAnswer);

    const events = s.of(sid);
    assertSeqStrictlyIncreasing(events);
    const types = new Set(events.map((e) => e.type));
    for (const t of ['personas.selected', 'question.asked', 'question.resolved', 'assumption.recorded', 'persona.started', 'persona.delta', 'persona.completed', 'votes.tallied', 'final.answer']) {
      assert.ok(types.has(t as CouncilEvent['type']), `saw ${t}`);
    }
    assertReadable(events);
    const deltas = events.filter((e) => e.type === 'persona.delta');
    assert.ok(deltas.length > 0 && deltas.every((e) => !e.markdown.trimStart().startsWith('{')), 'persona deltas are markdown, not raw JSON');
    assert.ok(deltas.every((e) => !('text' in e)), 'persona deltas carry markdown only');
    const final = events.find((e) => e.type === 'final.answer');
    assert.ok(final && final.type === 'final.answer' && final.markdown.length > 20);

    const transcript = await s.request('council/snapshot', { sessionId: sid });
    assert.match(transcript.transcriptMarkdown, /monolith/);
    assert.deepEqual(s.errors, [], 'no framing errors on the JSON-RPC stream');
  });

  it('errors carry data {code, message, details}', async () => {
    await assert.rejects(
      s.request('council/answer', { sessionId: 'nope', questionId: 'q', action: 'answer', idempotencyKey: '' }),
      (e: unknown) => e instanceof ResponseError && isErrorData(e.data) && e.data.code === 'validation',
    );
    await assert.rejects(
      s.request('council/snapshot', { sessionId: 'no-such-session' }),
      (e: unknown) => e instanceof ResponseError && isErrorData(e.data),
    );
  });

  it('an agent tool refused by the sidecar returns its readable sentence with the code, not raw JSON', async () => {
    const client = { request: (method: string, params: unknown, token?: unknown) => s.conn.sendRequest(method, params, token as never) };
    const deps = { client, turns: new TurnRegistry<never>(), chooseModel: () => Promise.resolve(undefined) } as unknown as ToolDeps;
    const input = { user_problem: 'Should we rotate our keys?', persona_name: 'Chef' };
    await assert.rejects(Promise.resolve(personaConsultTool(deps).invoke({ input } as never, new CancellationTokenSource().token as never)), (err: Error) => {
      assert.match(err.message, /^The council refused the request: .*Chef/);
      assert.match(err.message, /Valid: .*Security Expert/);
      assert.match(err.message, /\n\n\(Council error code: validation\)$/);
      assert.doesNotMatch(err.message, /\{"error"/);
      return true;
    });
  });

  it('/personas and /status without a session', async () => {
    const r = await s.request('council/turn', { text: '', command: 'personas' });
    assert.equal(r.awaiting, 'nothing');
    assert.match(r.message ?? '', /Devil's Advocate/);
  });

  it('personas and providers answer', async () => {
    const p = await s.request('council/personas', {});
    assert.ok(p.personas.length >= 5);
    const prov = await s.request('council/providers', {});
    assert.ok(Array.isArray(prov.providers));
  });
});

describe('sidecar over vscode-jsonrpc (client provider: council/complete served here)', { skip, timeout: 120_000 }, () => {
  let s: Sidecar;
  const completes: CompleteParams[] = [];
  before(async () => {
    s = await Sidecar.start([]);
    s.conn.onRequest(COMPLETE_METHOD, async (p: CompleteParams): Promise<CompleteResult> => {
      completes.push(p);
      const text = replies.replyText(p.messages, p.jsonSchema, p.purpose);
      for (const chunk of replies.chunks(text, 3)) {
        await s.conn.sendNotification(COMPLETE_DELTA_METHOD, { streamId: p.streamId, text: chunk });
      }
      return { text, model: 'integration-model' };
    });
  });
  after(async () => s?.stop());

  it('a whole session runs on the client model', async () => {
    const turn: TurnParams = {
      text: QUESTION,
      options: { maxCycles: 3, clarify: true, provider: 'client', model: 'integration-model' },
      client: { completion: true, completionModel: 'integration-model' },
    };
    let result = await s.request('council/turn', turn);
    const sid = result.sessionId!;
    assert.equal(result.awaiting, 'answer');
    const q = result.question!;
    result = await s.request('council/answer', { sessionId: sid, questionId: q.questionId, action: 'answer', choice: q.choices[0].value, idempotencyKey: key(), client: { completion: true } });
    for (let i = 0; i < 4 && result.awaiting === 'answer' && result.question; i++) {
      result = await s.request('council/answer', { sessionId: sid, questionId: result.question.questionId, action: 'skip', idempotencyKey: key(), client: { completion: true } });
    }
    assert.equal(result.status, 'completed');
    const purposes = new Set(completes.filter((c) => c.sessionId === sid).map((c) => c.purpose));
    assert.ok(purposes.has('clarifier') || [...purposes].some((p) => /clarif/i.test(p)), `purposes: ${[...purposes].join(', ')}`);
    assert.ok(purposes.size >= 3, `several roles used the client model: ${[...purposes].join(', ')}`);
    assert.ok(completes.every((c) => c.jsonSchema === undefined || typeof c.jsonSchema === 'object'));
    assertReadable(s.of(sid));
    const final = s.of(sid).find((e) => e.type === 'final.answer');
    assert.ok(final && final.type === 'final.answer');
    // the answer's first words streamed (answer.delta); final.answer adds the rest, so the two read as one
    const answer = s.of(sid).filter((e) => e.type === 'answer.delta' || e.type === 'final.answer').map((e) => e.markdown).join('');
    assert.ok(s.of(sid).some((e) => e.type === 'answer.delta'), 'the answer streamed');
    assert.match(answer, /extract one well-bounded service/i);
    assert.equal(answer.match(/The council's answer/g)?.length, 1);
    const problems = s.of(sid).filter((e) => e.type === 'error' || (e.type === 'persona.completed' && e.response.abstained));
    assert.deepEqual(problems, [], 'the scripted client replies are valid for every role');
    const types = new Set(s.of(sid).map((e) => e.type));
    assert.ok(types.has('options.proposed') && types.has('votes.tallied'), `options and votes: ${[...types].join(', ')}`);
    assert.deepEqual(s.errors, []);
  });

  it('a review of a diff runs on the client model with the e2e test model\'s replies', async () => {
    const request = {
      request_id: 'vscode-review-integration',
      timestamp: '2026-01-05T09:30:00Z',
      proposer: 'VS Code @council /review',
      change_type: 'CODE_REFACTOR' as const,
      context: { summary: 'Make the fee rate a parameter.', files_changed: ['fees.py'] },
      artifacts: { diff_content: 'diff --git a/fees.py b/fees.py\n-def fee(x):\n+def fee(x, rate=0.001):\n' },
    };
    const client = { completion: true, completionModel: 'integration-model' };
    const result = await s.request('council/review', { request, provider: 'client', model: 'integration-model', client });
    const d = result.decision;
    assert.equal(d.final_outcome, 'REJECT');
    assert.equal(d.audit.rule, 'blocking_issues');
    assert.equal(d.audit.chair, 'model', 'the chair\'s reply was usable');
    assert.deepEqual(d.verdicts.map((v) => `${v.role}: ${v.verdict}`), ['Code Reviewer: REJECT', 'Quant Researcher: APPROVE', "Devil's Advocate: APPROVE"]);
    assert.equal(d.audit.debate.held, true);
    const purposes = completes.filter((c) => c.sessionId === `review:${request.request_id}`).map((c) => c.purpose);
    assert.deepEqual([...new Set(purposes)].sort(), ['Chair', 'Code Reviewer', "Devil's Advocate", 'Quant Researcher']);
    const md = result.markdown;
    assert.match(md, /^## Council review: ❌ REJECT/);
    assert.ok(md.indexOf('### Blocking issues') < md.indexOf('### Verdicts') && md.indexOf('### Verdicts') < md.indexOf('### Axis scores'));
    assert.match(md, /No test covers the changed behaviour/);
    assert.match(result.compactMarkdown, /^\*\*Council review: REJECT\*\*/);
  });
});

describe('the consult tool on a chat model whose access the user declined', { skip, timeout: 120_000 }, () => {
  let s: Sidecar;
  before(async () => {
    s = await Sidecar.start(['--provider', 'scripted']);
  });
  after(async () => s?.stop());

  it("returns the chat's line: the model, no permission, and how to allow it (issue 19 audit: it was generic)", async () => {
    const asked: string[] = [];
    const model = { ...fakeModel([], { id: 'gpt-5', name: 'GPT Five' }), sendRequest: () => Promise.reject(vscode.LanguageModelError.NoPermissions()) };
    const turns = new TurnRegistry<vscode.LanguageModelChat>();
    const models = new ChatModels(undefined, { selectChatModels: () => Promise.resolve([model as never]) });
    s.conn.onRequest(COMPLETE_METHOD, (p: CompleteParams, token) => {
      asked.push(p.purpose);
      return serveCompletion(p, token as never, { turns, models, sendDelta: (d) => void s.conn.sendNotification(COMPLETE_DELTA_METHOD, d) });
    });
    const client = { request: (method: string, params: unknown, token?: unknown) => s.conn.sendRequest(method, params, token as never) };
    const deps = { client, turns, models, chooseModel: () => Promise.resolve(model) } as unknown as ToolDeps;
    await assert.rejects(Promise.resolve(consultTool(deps).invoke({ input: { user_problem: QUESTION, depth: 'brief' } } as never, new CancellationTokenSource().token as never)), (err: Error) => {
      assert.match(err.message, /^The council was not allowed to do this: the council could not answer: Council has no permission to use GPT Five, so no advisor could answer; allow it under Manage Language Model Access \(the Accounts menu\), or pick a model Council may use in the chat's model picker, then call the tool again\./);
      assert.match(err.message, /\n\n\(Council error code: permission, reason: no_consent\)$/);
      assert.doesNotMatch(err.message, /council doctor|every advisor/);
      return true;
    });
    assert.deepEqual(asked, ['clarifier'], 'the model is asked once: the refusal holds for the consult');
    assert.equal(turns.active.length, 0);
  });
});

describe('cancellation mid-debate', { skip, timeout: 120_000 }, () => {
  let s: Sidecar;
  let dir: string;
  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'council-it-'));
    const script = path.join(dir, 'slow.json');
    fs.writeFileSync(script, JSON.stringify({ chunk: 16, rules: [{ when: { schema: 'PersonaReply' }, delay: 0.15 }] }));
    s = await Sidecar.start(['--provider', 'scripted', '--script', script]);
  });
  after(async () => {
    await s?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('council/cancel stops a running debate', async () => {
    const pending = s.request('council/turn', { text: QUESTION + ' (cancel A)', options: { clarify: false, maxCycles: 3 }, client: { completion: false } });
    const started = await s.waitFor((e) => e.type === 'persona.delta' && e.markdown.length > 0);
    const t0 = Date.now();
    const cancel = await s.request('council/cancel', { sessionId: started.sessionId });
    assert.equal(cancel.status, 'cancelled');
    const result = await pending;
    assert.equal(result.status, 'cancelled');
    assert.ok(Date.now() - t0 < 5000, 'the turn returned promptly');
    assert.ok(s.of(started.sessionId).some((e) => e.type === 'status.changed' && e.status === 'cancelled'));
  });

  it('$/cancelRequest on the turn (the chat stop button) stops the session; retry resumes it to the answer', async () => {
    const source = new CancellationTokenSource();
    const pending = s.request('council/turn', { text: QUESTION + ' (cancel B)', options: { clarify: false, maxCycles: 3 }, client: { completion: false } }, source.token);
    const before = s.events.length;
    const started = await s.waitFor((e) => s.events.indexOf(e) >= before && e.type === 'persona.delta');
    source.cancel();
    await assert.rejects(pending, (e: unknown) => e instanceof ResponseError && e.code === -32800);
    const stopped = await s.waitFor((e) => e.sessionId === started.sessionId && e.type === 'session.stopped');
    assert.match(stopped.markdown ?? '', /Stopped/);
    const snap = await s.request('council/snapshot', { sessionId: started.sessionId });
    assert.equal(snap.session.stopped, true);
    assert.notEqual(snap.session.status, 'cancelled');
    const resumed = await s.request('council/turn', { sessionId: started.sessionId, command: 'retry', text: '', client: { completion: false } });
    assert.equal(resumed.status, 'completed');
    assert.ok(resumed.finalAnswer);
    assert.deepEqual(s.errors, []);
  });
});
