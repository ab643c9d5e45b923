// Package live serves the page of `acp-proxy view` while a session runs:
// `acp-proxy --serve ADDR` for the relay's own session, `acp-proxy view
// --follow TRACE` for a trace another proxy is still writing.
//
// Records reach a Page through a queue: from the relay, a Tap (a
// proxy.Tap, beside the trace recorder) copies each line and what the
// filters wrote for it; from a trace, a follower reads the file as it
// grows. The Page feeds them to the view's analysis (view.Live) in one
// goroutine and publishes, at most every few hundred milliseconds, the
// whole data of the page so far. The Server sends each browser the latest
// of those as a server-sent event, so a browser that falls behind skips
// to the newest state, which holds the session from its start.
//
// Nothing here may slow the relay: the tap never waits (past its budget
// it leaves records out and the page says how many), and browsers only
// ever read the last published data.
//
// The server is safe by default: it listens on loopback unless another
// address is named, every request needs the random token of the URL it
// prints, requests from other origins and Host names other than the
// server's own (DNS rebinding) are refused, and it only answers GET.
package live
