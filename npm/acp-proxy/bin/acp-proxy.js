#!/usr/bin/env node
// Runs the acp-proxy binary of this platform, which npm installed as one
// of this package's optional dependencies (the others are skipped by their
// "os" and "cpu" fields). stdin, stdout and stderr are the binary's own, so
// the ACP stream never passes through Node. The binary's exit status is
// this process's: its code, or death by the same signal.
"use strict";

const { spawn } = require("node:child_process");
const path = require("node:path");

function binaryPath() {
  // The packages are named by Node's platform and architecture.
  const pkg = `acp-proxy-${process.platform}-${process.arch}`;
  const exe = process.platform === "win32" ? "acp-proxy.exe" : "acp-proxy";
  try {
    return path.join(path.dirname(require.resolve(`${pkg}/package.json`)), "bin", exe);
  } catch (e) {
    fail(
      `${pkg} is not installed: either no binary is built for this platform ` +
        `(go install github.com/acp-proxy/acp-proxy/cmd/acp-proxy@latest builds one), ` +
        `or npm was told to omit optional dependencies. (${e.message.split("\n")[0]})`,
    );
  }
}

function fail(message) {
  process.stderr.write(`acp-proxy (npm launcher): ${message}\n`);
  process.exit(127);
}

const child = spawn(binaryPath(), process.argv.slice(2), { stdio: "inherit", windowsHide: true });

// A signal sent to this launcher is meant for acp-proxy, which forwards it
// to the agent. On Windows, Ctrl-C and Ctrl-Break reach every process on
// the console, acp-proxy included, so there is nothing to forward; the
// launcher only must not die of them first.
const forwarded = ["SIGINT", "SIGTERM", "SIGHUP"];
for (const sig of forwarded) {
  process.on(sig, () => {
    if (process.platform !== "win32") child.kill(sig);
  });
}

child.on("error", (err) => fail(`cannot run ${child.spawnfile}: ${err.message}`));
child.on("exit", (code, signal) => {
  if (signal) {
    for (const sig of forwarded) process.removeAllListeners(sig);
    process.kill(process.pid, signal);
    return;
  }
  process.exit(code);
});
