// An ACP v2 client built on @agentclientprotocol/sdk's experimental/v2 API,
// for the proxy's v2 test (internal/e2e/v2_test.go).
//
//   node v2client.mjs SDK_ENTRY CWD PROMPT -- AGENT_ARGV...
//
// SDK_ENTRY is the absolute path of the SDK's dist/v2/stable/acp.js. It
// starts the agent, initializes with protocolVersion 2, opens a session in
// CWD, sends PROMPT, approves every permission request with its first
// allow option, reads the session's updates until the agent reports it is
// idle, and prints one JSON object: the initialize response, the stop
// reason, the permission requests and every session update, in order.
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import { pathToFileURL } from "node:url";

const [sdkEntry, cwd, promptText, sep, ...agentArgv] = process.argv.slice(2);
if (!sdkEntry || sep !== "--" || agentArgv.length === 0) {
  console.error("usage: node v2client.mjs SDK_ENTRY CWD PROMPT -- AGENT_ARGV...");
  process.exit(2);
}
const acp = await import(pathToFileURL(sdkEntry).href);

const agent = spawn(agentArgv[0], agentArgv.slice(1), { cwd, stdio: ["pipe", "pipe", "inherit"] });
const stream = acp.ndJsonStream(Writable.toWeb(agent.stdin), Readable.toWeb(agent.stdout));

const permissions = [];
const app = acp.client({ name: "acp-proxy-v2-test" }).onRequest(
  acp.methods.client.session.requestPermission,
  ({ params }) => {
    permissions.push(params);
    const allow = params.options.find((o) => o.kind.startsWith("allow"));
    return allow
      ? { outcome: { outcome: "selected", optionId: allow.optionId } }
      : { outcome: { outcome: "cancelled" } };
  },
);

const report = await app.connectWith(stream, async (cx) => {
  const initialize = await cx.request(acp.methods.agent.initialize, {
    protocolVersion: acp.PROTOCOL_VERSION,
    info: { name: "acp-proxy-v2-test", version: "0.0.0" },
    capabilities: {},
  });
  return cx.buildSession(cwd).withSession(async (session) => {
    const updates = [];
    const prompted = session.prompt(promptText);
    let stopReason;
    for (;;) {
      const msg = await session.nextUpdate();
      if (msg.kind === "stop") {
        stopReason = msg.stopReason;
        updates.push(msg.update);
        break;
      }
      updates.push(msg.update);
    }
    const promptResponse = await prompted;
    return { initialize, promptResponse, stopReason, permissions, updates };
  });
});
process.stdout.write(JSON.stringify(report) + "\n");
// Close the agent's stdin and wait for it (the proxy, and the agent behind it) to exit, so
// that nothing it started still writes to the session's directories when the test removes
// them; SIGTERM after 10 s.
const exited = new Promise((resolve) => agent.once("exit", resolve));
agent.stdin.end();
const timer = setTimeout(() => agent.kill("SIGTERM"), 10_000);
await exited;
clearTimeout(timer);
process.exit(0);
