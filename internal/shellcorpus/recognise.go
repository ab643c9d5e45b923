package shellcorpus

import (
	"github.com/acp-proxy/acp-proxy/filters/shellpatch"
	"github.com/acp-proxy/acp-proxy/internal/shellwrite"
)

// ShownFile is one file a recogniser would show as a diff: the file's
// absolute path and its text after the command.
type ShownFile struct {
	Path    string
	Content []byte
}

// Shown is what a recogniser shows for a command.
type Shown struct {
	// Files are the files shown as diffs, in the order written.
	Files []ShownFile
	// All: the files are everything the command writes, and it runs
	// nothing else (it can be shown as an edit). Otherwise the command also
	// runs more, and stays visible beside the diffs.
	All bool
}

// Recogniser decides what --shell-to-patch would show for script run in dir
// (absolute; also the session's directory), and ok. It may read the files it
// shows; it must not change anything.
type Recogniser func(script, dir string) (shown Shown, ok bool)

// Today is the recogniser --shell-to-patch uses now: shellwrite.Parse, then
// shellwrite.CheckTarget with the session's directory as root, writes outside
// it refused, and the default size limit. It shows one file of a command
// that does nothing else.
func Today(script, dir string) (Shown, bool) {
	w, err := shellwrite.Parse(script, dir)
	if err != nil {
		return Shown{}, false
	}
	t, err := shellwrite.CheckTarget(w, dir, false, shellpatch.DefaultMaxPatchBytes)
	if err != nil {
		return Shown{}, false
	}
	return Shown{Files: []ShownFile{{Path: t.Path, Content: w.Content}}, All: true}, true
}

// Scripts is the recogniser of whole scripts: shellwrite.ParseScript, then Script.Edits with the
// session's directory as root, writes outside it refused, and the default size limit. It shows
// the files written before the first statement shellwrite cannot vouch for; they are all the
// command writes when every statement is known.
func Scripts(script, dir string) (Shown, bool) {
	s, err := shellwrite.ParseScript(script, dir)
	if err != nil {
		return Shown{}, false
	}
	files, cut := s.Edits(dir, false, shellpatch.DefaultMaxPatchBytes)
	if len(files) == 0 {
		return Shown{}, false
	}
	shown := Shown{All: cut == nil}
	for _, f := range files {
		shown.Files = append(shown.Files, ShownFile{Path: f.Path, Content: f.New})
	}
	return shown, true
}
