// Package changes is --show-changes: after each command an agent runs (an
// execute call), the client is sent one tool_call_update that adds a diff
// for every file under the session's directory that changed while the
// command ran, whatever wrote it.
//
// The state before a call is taken when the call starts (Take): in a git
// work tree, git's own status and index, with copies of the files git
// already sees as changed; elsewhere, a stat scan with copies of small text
// files. At the call's end the same scan runs again and the difference is
// the call's report (Snapshot.Changes). Both scans run beside the relay;
// the filter sends the update from its Tick once the report is ready.
package changes
