// Package shellpatch holds the shell-to-patch filter: every file a shell
// command provably writes is shown with its exact diff, and the command as an
// edit when writing is all it does. What a
// command writes is decided by package shellwrite; this package finds the
// command in each agent's tool call (shapes.go), knows what each agent does
// to a command before its shell runs it (claude.go: Claude Code's quoting;
// directory.go: where its persistent shell stands), keeps the call showing
// the edit (show.go) for as long as every rawInput the call carries is that
// command, and checks the file when the call ends, taking back an edit
// the file does not hold (ending.go).
package shellpatch
