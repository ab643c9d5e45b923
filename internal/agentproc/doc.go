// Package agentproc starts the agent process and sees it out: it finds the
// agent on PATH as a shell would but never in the current directory
// (resolve.go), quotes its command line for cmd.exe when it is a .cmd or
// .bat file (batchfile.go), and reports a failed start as a StartError with
// the shell's exit code (agent.go).
//
// A Process (process.go) is a running agent with pipes to its stdin and
// from its stdout. It forwards the proxy's signals, stops the agent in
// steps once the client is gone (its grace, then SIGTERM, then SIGKILL),
// and returns its status as a shell reports it. The platform does the rest
// (process_unix.go, process_windows.go). On Unix the agent's parent is a
// reaper (reaper_unix.go): the proxy's own binary, started again, which
// outlives even a proxy killed with SIGKILL, and stops everything the agent
// started, in its process group or not (codex runs each command in a
// session of its own), once the session ends; on Linux it is a child
// subreaper, so even orphans are found. On Windows the agent is in a
// kill-on-close job, which every process it starts joins.
//
// Agent.RunAttached runs the agent with nothing in between, for a terminal
// (attached_*.go).
//
// Package proxy relays ACP over a Process; its Agent and StartError are
// this package's.
package agentproc
