// Package shellpatch holds the shell-to-patch filter: a shell command that
// provably writes one file is shown as an edit with the exact diff. What a
// command writes is decided by package shellwrite; this package finds the
// command in each agent's tool call and keeps the call showing the edit.
package shellpatch
