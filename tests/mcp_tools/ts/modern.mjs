// The official TypeScript MCP SDK 2.x client (`@modelcontextprotocol/client`, pinned in package.json) at MCP
// 2026-07-28, and the official Tasks extension's requester (`@modelcontextprotocol/ext-tasks`, pinned too) driving
// `council mcp` over stdio, for the pytest suite (tests/mcp_tools/test_mcp_ts_modern.py).
//
// Reads a plan as JSON on stdin: {command, args, cwd, env, steps: [...]} and prints one JSON object
// {version, serverExtensions, taskCapabilities, steps: [...], methods: [...]}. Each step:
//   {op: "call", name, arguments, timeout, resetTimeoutOnProgress} — Client.callTool at 2026-07-28 (the SDK runs the
//     multi-round-trip loop itself, its elicitation handler answering the input requests); outcome {result,
//     progress, elicitations} or {thrown: {code, message, data}};
//   {op: "task", name, arguments, timeout, cancelWhen} — the ext-tasks session's callTool (the call's requests
//     framed as 2026-07-28 requests that declare the extension, sent on the client's own transport through
//     `rawDispatch`); settled to its outcome: {kind, events: [status, statusMessage]…, outcome, elicitations}. With
//     `cancelWhen` the execution is cancelled (tasks/cancel) once a status message contains that text.
// An elicitation is answered {action: "accept", content: {answer: "By the end of next month"}}. `methods` lists every
// request method the extension's requester sent through rawDispatch, in order.
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { createTaskSessionFromClient } from '@modelcontextprotocol/ext-tasks/client';
import { readStdin, thrown } from './plan.mjs';

const VERSION = '2026-07-28';
const ANSWER = { action: 'accept', content: { answer: 'By the end of next month' } };

// The host's raw request path the extension asks for: its own ids ("ext-N") on the client's transport, their
// answers taken off the transport before the Client sees them.
function rawDispatcher(transport, methods) {
  const pending = new Map();
  let next = 0;
  const deliver = transport.onmessage;
  transport.onmessage = (message, extra) => {
    const waiting = typeof message.id === 'string' && !('method' in message) ? pending.get(message.id) : undefined;
    if (waiting === undefined) {
      deliver?.(message, extra);
      return;
    }
    pending.delete(message.id);
    waiting(message.error ? { kind: 'error', error: message.error } : { kind: 'result', result: message.result });
  };
  return (request) => new Promise((resolve, reject) => {
    next += 1;
    const id = `ext-${next}`;
    methods.push(request.method);
    pending.set(id, resolve);
    transport.send({ jsonrpc: '2.0', id, ...request }).catch((err) => {
      pending.delete(id);
      reject(err);
    });
  });
}

async function callStep(client, step, elicitations) {
  const progress = [];
  const before = elicitations.length;
  try {
    const result = await client.callTool({ name: step.name, arguments: step.arguments }, {
      timeout: step.timeout ?? 60000, resetTimeoutOnProgress: step.resetTimeoutOnProgress ?? false,
      onprogress: (p) => progress.push(p.message ?? ''),
    });
    return { result, progress, elicitations: elicitations.length - before };
  } catch (err) {
    return { thrown: thrown(err), progress, elicitations: elicitations.length - before };
  }
}

async function taskStep(session, step, elicitations) {
  const before = elicitations.length;
  const execution = await session.callTool(step.name, step.arguments, { requestTimeoutMs: step.timeout ?? 60000 });
  const events = [];
  let cancelling;
  const { outcome } = await execution.settle({
    onEvent: (event) => {
      if (event.type !== 'task') return;
      events.push([event.task.status, event.task.statusMessage ?? '']);
      if (step.cancelWhen && !cancelling && (event.task.statusMessage ?? '').includes(step.cancelWhen)) {
        cancelling = execution.cancel();
      }
    },
  });
  await cancelling;
  const settled = outcome.status === 'completed' ? { status: 'completed', result: outcome.result }
    : outcome.status === 'failed' ? { status: 'failed', error: thrown(outcome.error) } : { status: outcome.status };
  return { kind: execution.kind, taskId: execution.handle?.taskId ?? null, events, outcome: settled,
           elicitations: elicitations.slice(before) };
}

async function main() {
  const plan = await readStdin();
  const transport = new StdioClientTransport({
    command: plan.command, args: plan.args, cwd: plan.cwd, env: { ...process.env, ...(plan.env ?? {}) },
    stderr: 'inherit',
  });
  const capabilities = { elicitation: { form: {} } };
  const client = new Client({ name: 'council-ts2-test', version: '1.0.0' },
                            { capabilities, versionNegotiation: { mode: { pin: VERSION } } });
  const elicitations = [];
  client.setRequestHandler('elicitation/create', async (request) => {
    elicitations.push({ delivery: 'sdk', message: request.params?.message ?? '' });
    return ANSWER;
  });
  await client.connect(transport);
  const out = { version: client.getNegotiatedProtocolVersion?.() ?? null, era: client.getProtocolEra(),
                serverExtensions: client.getServerCapabilities()?.extensions ?? null, steps: [], methods: [] };
  const session = createTaskSessionFromClient(client, {
    endpointId: 'council-ts2-test', rawDispatch: rawDispatcher(transport, out.methods),
    v2RequestFraming: { protocolVersion: VERSION, clientInfo: { name: 'council-ts2-test', version: '1.0.0' },
                        clientCapabilities: capabilities },
    onInputRequest: async (request, context) => {
      elicitations.push({ kind: request.kind, delivery: context.delivery, scope: context.scope });
      if (request.kind === 'elicitation') return ANSWER;
      throw new Error(`this client answers no ${request.kind} request`);
    },
  });
  out.taskCapabilities = session.capabilities;
  for (const step of plan.steps) {
    try {
      out.steps.push(step.op === 'task' ? await taskStep(session, step, elicitations)
        : await callStep(client, step, elicitations));
    } catch (err) {
      out.steps.push({ thrown: thrown(err) });
    }
  }
  await session.close();
  await client.close();
  process.stdout.write(JSON.stringify(out) + '\n');
}

main().catch((err) => {
  process.stderr.write(`ts client failed: ${err?.stack ?? err}\n`);
  process.exit(2);
});
