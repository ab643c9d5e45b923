// Package acpclient is a test ACP client (editor side) that launches an agent
// command and speaks newline-delimited JSON-RPC on raw lines.
//
// It deliberately avoids an SDK connection: a test must see every byte the
// client receives, with its arrival time. It answers
// session/request_permission with the first allow option and every other
// agent request (fs/*, terminal/*, …) with -32601.
package acpclient
