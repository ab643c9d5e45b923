// Package acp is the one model of an ACP message that the relay, the
// filters, traces and the view share: the Direction a line travels, and
// Message, a lazily parsed view of one raw JSON-RPC line (its method, id,
// params, result, session and update), with the tool-call and
// terminal-output reader (ToolUpdate, TermMeta) on top of it.
//
// It reads exact keys only, never re-marshals a line, and depends on
// nothing in the module but its JSON scanner, so every other package can
// import it.
package acp
