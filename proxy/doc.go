// Package proxy relays ACP between an editor and an agent process, and
// records, reads and replays what crossed it.
//
//   - The relay: Relay and Conn (relay.go), the framer that splits a stream
//     into lines (framing.go) and the one writer per direction (writer.go).
//   - Running the agent: Relay.Run (run.go) starts it, opens a Conn on its
//     stdin and stdout, runs one pump per direction and returns its exit
//     status. Starting, stopping and signalling the agent is
//     internal/agentproc's; Agent, StartError, DefaultGrace and NoGrace are
//     its, declared here for the CLI and embedders.
//   - Traces: Recorder writes the JSONL trace (record.go), with what the
//     filters read from the disk (disk.go); TraceReader reads it back
//     (trace.go); Replay runs a trace's lines through a filter chain as the
//     relay would (replay.go); EmbedReads adds the disk reads to a trace
//     recorded without them (embed.go).
//   - Summary counts messages and bytes per direction and per tool call,
//     before and after the filters, for --stats and replay --summary
//     (summary.go, table.go).
//
// Each direction has one reader, runs the filter chain synchronously and has
// one writer, so output order is input order and a slow reader slows the
// writer down instead of filling a queue. A line no filter changes is
// written as the bytes that were read. docs/architecture.md follows one
// message through these files.
package proxy
