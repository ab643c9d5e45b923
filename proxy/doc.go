// Package proxy relays ACP between a client (an editor) and an agent
// process, or any two streams (Relay.Open).
//
//   - The relay: Relay and Conn (relay.go), the framer that splits a stream
//     into lines (framing.go) and the one writer per direction (writer.go).
//   - Running the agent: Relay.Run (run.go) starts it, opens a Conn on its
//     stdin and stdout, runs one pump per direction and returns its exit
//     status. Starting, stopping and signalling the agent is
//     internal/agentproc's; Agent, StartError, DefaultGrace and NoGrace are
//     its, declared here for the CLI and embedders.
//   - Taps (tap.go): what watches a connection at the edges of its chain —
//     each line read with what the chain wrote for it (a Passage), the
//     lines the proxy wrote on its own, long lines streamed through. The
//     trace recorder (--record) and the figures of --stats are taps, in
//     internal/trace; the relay knows nothing else of them.
//
// Each direction has one reader, runs the filter chain synchronously and has
// one writer, so output order is input order and a slow reader slows the
// writer down instead of filling a queue. A line no filter changes is
// written as the bytes that were read. docs/architecture.md follows one
// message through these files.
package proxy
