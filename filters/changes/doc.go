// Package changes is --show-changes: after each command an agent runs (an
// execute call), the client is sent one tool_call_update that adds a diff
// for every file under the session's directory that changed, whatever wrote
// it, and says since when.
//
// The state before (a session's "rest", rest.go) is taken when a prompt goes
// to the agent and again when the session's last running command ends: in a
// git work tree, git's own status, copies of the files git already sees as
// changed, and the index kept open (Take, git.go); elsewhere, a stat scan
// with copies of small text files (dir.go). When a command ends, the same
// scan runs again and the difference is its report (Snapshot.Changes). Both
// run on goroutines of their own, beside the relay; the filter sends the
// update from its Tick once the report is ready, and the end of a turn waits
// for it.
package changes
