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
// scan runs again and the difference is its report (Snapshot.Changes).
//
// Each session's scans (before-states and reports) run on one goroutine of
// the session's, one at a time, beside the relay (scanner.go): a rest
// asked for while another waits to be taken is taken once for both; one
// still being taken that nothing holds is stopped when superseded; the
// reports waiting together on one before-state come from one scan. A
// report made wakes the driver, and Tick sends the update; the end of a
// turn, and the agent's lines after it, wait in the hold queue (hold.go)
// behind the reports of its commands, and leave as they came. Close stops
// the scans and lets go of every before-state.
package changes
