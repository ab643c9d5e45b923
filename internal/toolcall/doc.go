// Package toolcall is the per-call state both filter families keep: a
// bounded list of calls keyed by session and call id (List), the path of a
// session/update's update (At), and editing an update in place
// (EditUpdate). Reading a tool call is package acp's (Message.ToolUpdate).
package toolcall
