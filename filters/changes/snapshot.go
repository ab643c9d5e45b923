package changes

import (
	"context"
	"os"
	"path/filepath"
)

// Snapshot is the before-state of a directory, taken when a call starts.
type Snapshot interface {
	// Changes reports what differs under the directory now; it may be
	// called again, and by several goroutines at once. Cancelling ctx
	// stops it early, its report saying so.
	Changes(ctx context.Context) Report
	// Close releases what the snapshot holds.
	Close()
}

// Take is the before-state of root: git's when root is in a git work tree
// (and git runs), a scan of the directory otherwise. It never fails: a
// snapshot that could not be taken reports why.
func Take(ctx context.Context, root string, lim Limits) Snapshot {
	if !filepath.IsAbs(root) {
		return failed{"the session's directory " + root + " is not absolute"}
	}
	if s, ok := takeGit(ctx, root, lim); ok {
		return s
	}
	return takeDir(ctx, root, lim)
}

// failed is a snapshot that could not be taken: its report says why.
type failed struct{ why string }

func (f failed) Changes(context.Context) Report { return Report{Files: []Change{}, Note: f.why} }
func (failed) Close()                           {}

// refused says why the flag stands aside for the session directory cwd,
// "" when it does not: the root, or your home folder, holds far more than
// a project, and what a command changed there is not one project's change.
func refused(cwd string) string {
	clean := filepath.Clean(cwd)
	home, err := os.UserHomeDir()
	switch {
	case clean == "/":
		return "the session's directory is / (the whole filesystem): --show-changes stands aside for this session"
	case err == nil && home != "" && clean == filepath.Clean(home):
		return "the session's directory is your home folder (" + clean + "), not a project: --show-changes stands aside for this session"
	}
	return ""
}

// aside is the before-state of a directory the flag stands aside for: its
// report says why, once per session (Report.Aside).
type aside struct{ why string }

func (a aside) Changes(context.Context) Report {
	return Report{Files: []Change{}, Note: a.why, Aside: true}
}
func (aside) Close() {}
