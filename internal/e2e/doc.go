// Package e2e runs the acp-proxy binary end to end against the real npm
// agents offline (internal/realagent, internal/mockmodel) and the SDK agent,
// driven by a raw-line test client (internal/acpclient): the relay, every
// filter, record, replay, view and doctor. It holds tests only.
package e2e
