package shellcorpus

import (
	"github.com/acp-proxy/acp-proxy/filters/shellpatch"
	"github.com/acp-proxy/acp-proxy/shellwrite"
)

// ShownFile is one file a recogniser would show as a diff: the file's
// absolute path and its text after the command.
type ShownFile struct {
	Path    string
	Content []byte
}

// Recogniser decides what --shell-to-patch would show for script run in dir
// (absolute; also the session's directory): the files, in the order written,
// and ok. It may read the files it shows; it must not change anything.
type Recogniser func(script, dir string) (files []ShownFile, ok bool)

// Today is the recogniser --shell-to-patch uses now: shellwrite.Parse, then
// shellwrite.CheckTarget with the session's directory as root, writes outside
// it refused, and the default size limit.
func Today(script, dir string) ([]ShownFile, bool) {
	w, err := shellwrite.Parse(script, dir)
	if err != nil {
		return nil, false
	}
	t, err := shellwrite.CheckTarget(w, dir, false, shellpatch.DefaultMaxPatchBytes)
	if err != nil {
		return nil, false
	}
	return []ShownFile{{Path: t.Path, Content: w.Content}}, true
}
