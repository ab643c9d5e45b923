// Package proxy relays ACP between an editor and an agent process, and
// records, reads and replays what crossed it.
//
//   - The relay: Relay and Conn (relay.go), the framer that splits a stream
//     into lines (framing.go) and the one writer per direction (writer.go).
//   - The agent process: Agent and Relay.Run (process.go) start the agent,
//     find it on PATH, quote it for cmd.exe (batch.go), forward signals and
//     stop it when the editor is gone, or with the proxy (process_unix.go,
//     process_windows.go, watchdog_unix.go, deathsig_*.go). RunAttached
//     runs it with nothing in between, for a terminal (attached_*.go).
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
