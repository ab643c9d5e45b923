// Package telemetry exports a connection as OpenTelemetry spans over OTLP:
// the connection, each session, each prompt turn, each tool call and each
// permission request, with the filters' actions (filters.Note) as span
// events.
//
// It is an observer. Tap is a proxy.Tap that reads only what a span needs:
// the agent's text and streamed output (most of what it sends) are counted
// from the line's head, without a copy (a tool call's output after one
// walk of its update); every other message is copied into a queue bounded
// by bytes. One goroutine of its own reads the queue and makes the spans,
// with the times the relay read the lines, and the SDK's batch processor
// exports them. A full queue drops what it cannot hold (counted, and
// logged once); the relay never waits on the tap, the SDK or the
// collector. Memory is bounded whatever a connection does: the sessions
// (maxSessions, least recently used), the requests in flight, the calls
// open and the last maxFinished ended.
//
// The one thing it changes on the wire is the W3C trace context a client
// sends (Context, a filter): a request whose params._meta carries a
// traceparent reaches the agent with the proxy's span for that request as
// the parent, so that the agent's spans nest under the proxy's.
package telemetry
