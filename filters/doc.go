// Package filters defines the Filter interface and the Chain that runs
// filters in order on each direction of an ACP connection. The filters
// acp-proxy ships live in packages below it, one per family: output
// (terminal-output, deltas, persisted-output) and shellpatch
// (shell-to-patch), both reading tool calls through package acp. The
// relay (package proxy) imports this framework but none of the filters;
// internal/filterset builds the set the flags ask for.
//
// A filter sees every message of a direction through a Message: the line's
// acp.Message (a lazily parsed view of the raw line) with the connection's
// tracker (Caps) and the Disk it reads files through. Forwarding is the default: a filter that
// returns nil without emitting has passed the message on unchanged. It
// drops the message by returning Drop, and replaces it or adds messages,
// in either direction, by emitting them. A filter that returns an error or
// panics before emitting anything has its message forwarded unchanged: the
// proxy must never be the reason a session breaks.
//
// Chain.Process does the filtering; a Driver runs a chain on a Clock, so
// the relay (the wall clock and its timers), a replay (the trace's times)
// and the tests (a clock they move) release held output the same way.
//
// Filters run synchronously on their direction's pump, one message at a
// time, in the order they were added to the chain. A filter must not block
// on the other direction. Filters that keep state shared by both directions
// guard it themselves, because the two directions run concurrently.
//
// A filter that reads a file (the text a shown write replaces, a saved
// output) asks through Message.ReadDisk, never the OS directly: the live
// proxy answers from the disk and records the answer in the trace, and a
// replay answers from the trace, so it shows what the live proxy showed on
// any machine (see Disk).
package filters
