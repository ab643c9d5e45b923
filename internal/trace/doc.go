// Package trace records what crosses the proxy, reads it back and replays
// it: the JSONL trace format of --record, `acp-proxy replay` and
// `acp-proxy view`, and the figures of --stats and replay --summary.
//
//   - Recorder (record.go) writes the trace as a tap on the relay
//     (proxy.Tap), with what the filters read from the disk (disk.go,
//     Recorder.Disk); a line too long to filter is spooled as it streams
//     through, so the other direction never waits for it.
//   - RecordFile (recordfile.go) is a Recorder into a file (--record):
//     flushed a second after a record at most, gzip'd when asked, as one
//     whole gzip member per flush, and written on a goroutine of its own
//     (filewriter.go): a file that blocks or fails stops the recording,
//     never the relay.
//   - Reader (reader.go) reads a trace back, one Record at a time; Decompress
//     (gzip.go) reads a gzip'd one, told by its first bytes.
//   - Redact (redact.go) writes a trace with its texts replaced, to share
//     it (replay --redact).
//   - Replay (replay.go) runs a trace's lines through a filter chain as the
//     relay would, on the recorded clock, one connection of the trace
//     (connections.go) at a time, and hands what happens to Sinks: a
//     relay's taps that also see each record. Delivered (delivered.go)
//     writes the output trace; Disk answers the filters from the
//     trace's "read" records.
//   - Summary (summary.go) counts messages and bytes per direction and per
//     tool call, before and after the filters; it is both a tap (--stats)
//     and a sink (replay --summary). report.go and table.go print it.
//   - EmbedReads (embed.go) adds the disk reads to a trace recorded without
//     them.
//
// The package is internal: the trace format is the CLI's, and an embedder
// of the relay that wants its own record implements proxy.Tap.
package trace
