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
// (process_unix.go, process_windows.go): the agent is started with all it
// will start in a process group of its own (on Windows a kill-on-close job),
// every step of the shutdown and every forwarded signal reaches the whole
// group, and what the agent leaves running when it exits is stopped too.
// Nothing of it outlives a killed proxy either: the kernel kills the agent
// through a parent-death signal (deathsig_*.go), a watchdog its group
// (watchdog_unix.go), and on Windows closing the job kills it all.
// Agent.RunAttached runs the agent with nothing in between, for a terminal
// (attached_*.go).
//
// Package proxy relays ACP over a Process; its Agent and StartError are
// this package's.
package agentproc
