// A second, independent ACP client for the tests: the TypeScript SDK drives `agent-tui acp`.
// Usage: node client.mjs WORKSPACE PROMPT EXPECTED_REPLY EXPECTED_OUTPUT AGENT_COMMAND [ARGS...]
// It initializes, opens a session, sends one prompt (allowing the one command once), asserts on
// the updates, closes the agent's stdin and waits for it to exit. The last stdout line is a JSON
// report for tests/test_acp_ts_client.py; any failed assertion exits non-zero with its message.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import { client, methods, ndJsonStream, PROTOCOL_VERSION } from "@agentclientprotocol/sdk";

const [workspace, prompt, expectedReply, expectedOutput, command, ...args] = process.argv.slice(2);
const agent = spawn(command, args, { cwd: workspace, stdio: ["pipe", "pipe", "inherit"] });
const exited = new Promise((resolve) => agent.on("exit", (code) => resolve(code)));
const stream = ndJsonStream(Writable.toWeb(agent.stdin), Readable.toWeb(agent.stdout));

const updates = [];
const permissions = [];
const app = client({ name: "agent-tui-ts-test" })
  .onNotification(methods.client.session.update, ({ params }) => {
    updates.push(params.update);
  })
  .onRequest(methods.client.session.requestPermission, ({ params }) => {
    permissions.push(params.options.map((option) => option.optionId));
    return { outcome: { outcome: "selected", optionId: "allow_once" } };
  });

const report = await app.connectWith(stream, async (ctx) => {
  const init = await ctx.request(methods.agent.initialize, {
    protocolVersion: PROTOCOL_VERSION,
    clientCapabilities: {},
  });
  assert.equal(init.protocolVersion, 1);
  assert.equal(init.agentInfo.name, "agent-tui");
  assert.equal(init.agentCapabilities.loadSession, true);

  const session = await ctx.request(methods.agent.session.new, { cwd: workspace, mcpServers: [] });
  assert.match(session.sessionId, /^s_/);

  const done = await ctx.request(methods.agent.session.prompt, {
    sessionId: session.sessionId,
    prompt: [{ type: "text", text: prompt }],
  });
  assert.equal(done.stopReason, "end_turn");

  const kinds = updates.map((u) => u.sessionUpdate);
  const start = updates.find((u) => u.sessionUpdate === "tool_call");
  assert.ok(start, `no tool_call among ${kinds}`);
  assert.equal(start.kind, "execute");
  const finished = updates.find(
    (u) => u.sessionUpdate === "tool_call_update" && u.toolCallId === start.toolCallId && u.status === "completed",
  );
  assert.ok(finished, "the tool call never completed");
  const shown = finished.content.map((c) => c.content?.text ?? "").join("");
  assert.ok(shown.includes(expectedOutput), `tool output ${JSON.stringify(shown)}`);
  const reply = updates
    .filter((u) => u.sessionUpdate === "agent_message_chunk")
    .map((u) => u.content.text)
    .join("");
  assert.equal(reply, expectedReply);
  const usage = updates.filter((u) => u.sessionUpdate === "usage_update").at(-1);
  assert.ok(usage && usage.used > 0 && usage.size > usage.used, "no usage_update with the meter's numbers");
  assert.equal(permissions.length, 1);
  return { sessionId: session.sessionId, kinds, permissionOptions: permissions[0] };
});

agent.stdin.end(); // the editor goes away: the agent must end on its own
const agentExit = await exited;
console.log(JSON.stringify({ ok: true, agentExit, ...report }));
