// What the TypeScript MCP client scripts of this folder share (client.mjs: the SDK 1.32 at 2025-11-25; modern.mjs:
// the SDK 2.x and the Tasks extension at 2026-07-28): the plan they read and how a thrown error is reported.

// The plan: one JSON document on stdin.
export async function readStdin() {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

// An error a call threw, as the report carries it: {code, message, data}.
export function thrown(err) {
  return { code: err?.code ?? null, message: String(err?.message ?? err), data: err?.data ?? null };
}
