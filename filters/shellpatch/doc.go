// Package shellpatch holds the shell-to-patch filter: a shell command that
// provably writes one file is shown as an edit with the exact diff. What a
// command writes is decided by package shellwrite; this package finds the
// command in each agent's tool call (shapes.go), knows what each agent does
// to a command before its shell runs it (claude.go: Claude Code's quoting,
// its persistent shell), and keeps the call showing the edit (show.go) for
// as long as every rawInput the call carries is that command.
package shellpatch
