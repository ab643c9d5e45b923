// Package toolcall reads ACP tool calls for the filters: a tool_call or
// tool_call_update as spans of the raw message, the terminal-output
// extension's _meta keys, and a bounded list of per-call state. Both filter
// families (output and shellpatch) build on it, so they agree on what a
// tool call is.
package toolcall
