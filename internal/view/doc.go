// Package view turns a recorded trace into one self-contained HTML page: what
// the agent sent, what the filters made of it, and what the client saw.
//
// Build reads the trace once, streaming: it analyses the received lines
// ("before") and, when there are filters, replays them through the chain
// exactly as `acp-proxy replay` does and analyses what the replay delivers
// ("after"). The result is a Data, a compact model in which every large
// payload is elided to its size and its first and last lines. WriteHTML
// embeds that model as JSON in a page whose script renders it; trace
// content only ever reaches the page as text, never as markup or a URL.
//
// Each line is read through package acp, as the filters read it: the
// message view (acp.Message) and the tool-call and terminal-output reader
// (acp.ToolUpdate, acp.TermMeta); what is the view's own is the page's
// model and how each message is described in it.
package view
