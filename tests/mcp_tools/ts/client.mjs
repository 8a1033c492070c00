// The official TypeScript MCP SDK client (`@modelcontextprotocol/sdk`, pinned in package.json) driving
// `council mcp` over stdio, for the pytest suite (tests/mcp_tools/test_mcp_ts_client.py).
//
// Reads a plan as JSON on stdin: {command, args, cwd, elicit, steps: [{op: "list"} | {op: "call" | "task", name,
// arguments, timeout}]} and prints one JSON object: {steps: [...], elicitations: [...], cancelled: [...]}. A call's
// outcome is {result} (what Client.callTool returned, after its own outputSchema check) or {thrown: {code, message,
// data}}; a task's is {messages} (what experimental.tasks.callToolStream yielded: taskCreated, taskStatus …, result;
// with `cancelWhen` the task is cancelled, tasks/cancel's answer in {cancel}, once a status message contains it).
// `elicit` says how the client answers the server's elicitation/create requests, on the wire and unchecked (the
// SDK's own handler would refuse to send a bad answer): "not-object" (result 42), "unknown-action"
// ({action: "maybe"}), "silent" (never answers), "decline", or absent (no elicitation capability). `roots` (a list
// of folders, optional) are the client's filesystem roots: the client then declares the `roots` capability and
// answers roots/list with them, through the SDK's own handler; the report's `rootsAsked` counts those requests.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { pathToFileURL } from 'node:url';
import { readStdin, thrown } from './plan.mjs';

const ANSWERS = {
  'not-object': 42,
  'unknown-action': { action: 'maybe' },
  decline: { action: 'decline' },
};

async function main() {
  const plan = await readStdin();
  const transport = new StdioClientTransport({
    command: plan.command, args: plan.args, cwd: plan.cwd, env: { ...process.env, ...(plan.env ?? {}) },
    stderr: 'inherit',
  });
  const capabilities = plan.elicit ? { elicitation: { form: {} } } : {};
  if (plan.roots) capabilities.roots = { listChanged: true };
  const client = new Client({ name: 'council-ts-test', version: '1.0.0' }, { capabilities });
  const out = { steps: [], elicitations: [], cancelled: [], rootsAsked: 0 };
  if (plan.roots) {
    client.setRequestHandler(ListRootsRequestSchema, async () => {
      out.rootsAsked += 1;
      return { roots: plan.roots.map((folder) => ({ uri: pathToFileURL(folder).href, name: folder })) };
    });
  }
  await client.connect(transport);

  // Elicitation requests and cancellations are seen here, before the Client: the answer goes on the wire as is.
  const deliver = transport.onmessage;
  transport.onmessage = (message) => {
    if (message.method === 'elicitation/create' && plan.elicit) {
      out.elicitations.push({ id: message.id, message: message.params?.message ?? '' });
      if (plan.elicit !== 'silent') {
        void transport.send({ jsonrpc: '2.0', id: message.id, result: ANSWERS[plan.elicit] });
      }
      return;
    }
    if (message.method === 'notifications/cancelled') out.cancelled.push(message.params ?? {});
    deliver?.(message);
  };

  for (const step of plan.steps) {
    try {
      if (step.op === 'list') {
        out.steps.push({ result: await client.listTools() });
      } else if (step.op === 'task') {  // the call as an MCP task: every message the SDK's stream yields
        const messages = [];
        const stream = client.experimental.tasks.callToolStream({ name: step.name, arguments: step.arguments },
          undefined, { timeout: step.timeout ?? 60000, task: { ttl: 60000 } });
        let cancelled;
        for await (const message of stream) {
          messages.push(message.type === 'error' ? { type: 'error', error: thrown(message.error) } : message);
          const said = message.type === 'taskStatus' ? message.task.statusMessage ?? '' : '';
          if (step.cancelWhen && !cancelled && said.includes(step.cancelWhen)) {  // tasks/cancel, once
            cancelled = client.experimental.tasks.cancelTask(message.task.taskId).catch(thrown);
          }
        }
        out.steps.push({ messages, ...(cancelled ? { cancel: await cancelled } : {}) });
      } else {
        const options = { timeout: step.timeout ?? 60000 };
        out.steps.push({ result: await client.callTool({ name: step.name, arguments: step.arguments }, undefined,
                                                       options) });
      }
    } catch (err) {
      out.steps.push({ thrown: thrown(err) });
    }
  }
  await client.close();
  process.stdout.write(JSON.stringify(out) + '\n');
}

main().catch((err) => {
  process.stderr.write(`ts client failed: ${err?.stack ?? err}\n`);
  process.exit(2);
});
