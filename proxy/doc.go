// Package proxy relays ACP between an editor and an agent process: framing,
// the two pumps, the agent's lifecycle, and recording.
//
// Each direction has one reader, runs the filter chain synchronously and has
// one writer, so output order is input order and a slow reader slows the
// writer down instead of filling a queue. A line no filter changes is
// written as the bytes that were read.
package proxy
