package shellpatch

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/acp-proxy/acp-proxy/filters"
	"github.com/acp-proxy/acp-proxy/internal/shellwrite"
)

// checkTarget is shellwrite.CheckTarget read through the message's Disk, so
// that a trace carries the answer (filters.Disk): where the write lands, and
// the existing file's text, which becomes the diff's oldText.
//
// ranSince is set when the command may have run already (the call was
// first seen running): an existing file changed since then (see ranSince)
// may hold the command's write, so what it held before is not known, and
// the read fails, the trace keeping why.
func checkTarget(m *filters.Message, script, dir string, w shellwrite.Write, root string, outside bool, max int64, ranSince time.Time) (shellwrite.Target, error) {
	args, err := json.Marshal(targetArgs{Script: script, Dir: dir, Root: root, OutsideCwd: outside, MaxBytes: max})
	if err != nil {
		return shellwrite.Target{}, err
	}
	q := filters.DiskRead{Kind: "write-target", Path: w.Path, Args: args}
	answer, err := m.ReadDisk(q, func() ([]byte, error) {
		t, err := shellwrite.CheckTarget(w, root, outside, max)
		if err != nil {
			return nil, err
		}
		if err := writtenSince(t.Path, t.Exists, ranSince); err != nil {
			return nil, err
		}
		rt := recordedTarget{Target: t}
		if t.Exists {
			old := string(t.Old)
			rt.Old = &old
		}
		return json.Marshal(rt)
	})
	if err != nil {
		return shellwrite.Target{}, err
	}
	var rt recordedTarget
	if err := json.Unmarshal(answer, &rt); err != nil {
		return shellwrite.Target{}, err
	}
	if rt.Path == "" {
		return shellwrite.Target{}, errors.New("shellpatch: a recorded write target without a path")
	}
	t := rt.Target
	if rt.Exists && rt.Old != nil {
		t.Old = []byte(*rt.Old)
	}
	return t, nil
}

// scriptEdits is shellwrite.Script.Edits read through the message's Disk, so that a trace carries
// the answer (filters.Disk): each file the script's shown writes change, with its text before
// (the diff's oldText) and after, and whether that is everything the script does. One read stands
// for all the script checks and reads: the targets, the directories mkdir makes, sed's output.
// ranSince is as checkTarget's.
func scriptEdits(m *filters.Message, script, dir string, s shellwrite.Script, root string, outside bool, max int64, ranSince time.Time) (files []shellwrite.FileEdit, complete bool, err error) {
	args, err := json.Marshal(targetArgs{Script: script, Dir: dir, Root: root, OutsideCwd: outside, MaxBytes: max})
	if err != nil {
		return nil, false, err
	}
	answer, err := m.ReadDisk(filters.DiskRead{Kind: "script-edits", Path: dir, Args: args}, func() ([]byte, error) {
		files, cut := s.Edits(root, outside, max)
		for _, f := range files {
			if err := writtenSince(f.Path, f.Exists, ranSince); err != nil {
				return nil, err
			}
		}
		rec := recordedEdits{Files: []recordedEdit{}}
		if cut != nil {
			rec.Cut = cut.Error()
		}
		for _, f := range files {
			e := recordedEdit{Path: f.Path, New: string(f.New)}
			if f.Exists {
				old := string(f.Old)
				e.Old = &old
			}
			rec.Files = append(rec.Files, e)
		}
		return json.Marshal(rec)
	})
	if err != nil {
		return nil, false, err
	}
	var rec recordedEdits
	if err := json.Unmarshal(answer, &rec); err != nil {
		return nil, false, err
	}
	for _, e := range rec.Files {
		if e.Path == "" {
			return nil, false, errors.New("shellpatch: a recorded script edit without a path")
		}
		f := shellwrite.FileEdit{Path: e.Path, New: []byte(e.New), Exists: e.Old != nil}
		if e.Old != nil {
			f.Old = []byte(*e.Old)
		}
		files = append(files, f)
	}
	return files, rec.Cut == "", nil
}

// ranWindow is how long before the message that first shows a command
// running the command may have started writing: an agent reports a
// command as it starts it, and the report reaches the proxy through a
// pipe within milliseconds unless the relay is held up. A file changed
// that recently is not shown (the safe side: --show-changes shows it);
// one the user saved a moment earlier is shown as before.
const ranWindow = 500 * time.Millisecond

// errWrittenSince is why a write's file is not shown: it changed as its
// command may have been running.
var errWrittenSince = errors.New("the file changed as its command may already have been running: its text before the command is not known")

// writtenSince fails when path exists and changed at or after ranSince
// (no check for a zero ranSince, nor a test's clock at the epoch).
func writtenSince(path string, exists bool, ranSince time.Time) error {
	if !exists || !checksRan(ranSince) {
		return nil
	}
	fi, err := os.Lstat(path)
	if err != nil || !fi.ModTime().Before(ranSince) {
		return fmt.Errorf("%s: %w", path, errWrittenSince)
	}
	return nil
}

// ranSince is the moment from which a command a message read at now shows
// running may have written: ranWindow before now, or, when later, the end
// of the session's last call (a file the command before wrote is not this
// one's: an agent runs one command of a session after another).
func ranSince(now, lastEnd time.Time) time.Time {
	if !checksRan(now) {
		return time.Time{}
	}
	since := now.Add(-ranWindow)
	if lastEnd.After(since) {
		return lastEnd
	}
	return since
}

// checksRan reports whether reads check files against ranSince: it is set,
// and not a test's clock standing at the epoch.
func checksRan(ranSince time.Time) bool { return !ranSince.IsZero() && ranSince.Unix() != 0 }

// recordedEdits is what scriptEdits' answer holds, as text a reader of the trace sees: the files
// in the order written (old is null for a new file), and why the rest of the script is not shown
// ("" when nothing is left).
type recordedEdits struct {
	Files []recordedEdit `json:"files"`
	Cut   string         `json:"cut,omitempty"`
}

type recordedEdit struct {
	Path string  `json:"path"`
	Old  *string `json:"old"`
	New  string  `json:"new"`
}

// targetArgs is what a target's or a script's answer depends on besides its path.
type targetArgs struct {
	Script     string `json:"script"`
	Dir        string `json:"dir"`
	Root       string `json:"root"`
	OutsideCwd bool   `json:"outsideCwd,omitempty"`
	MaxBytes   int64  `json:"maxBytes"`
}

// recordedTarget is a Target as a trace holds it: every field of Target as
// encoding/json writes it, but the old content as text (it is UTF-8 text,
// CheckTarget checked), not base64, so a reader of the trace sees it.
type recordedTarget struct {
	shellwrite.Target
	Old *string `json:"Old,omitempty"`
}

// readBack is shellwrite.ReadBack of a file a shown edit wrote, read through
// the Disk of the message being filtered (a trace carries the answer, so a
// replay verifies the edit as the live proxy did). Unverified (a replay),
// the file is not read here: only the trace answers.
func (s *Filter) readBack(path, root string) (content []byte, exists bool, err error) {
	return s.readAt(s.reading, path, root)
}

// readBackAnswer is a file read back as a trace holds it.
type readBackAnswer struct {
	Exists bool   `json:"exists"`
	Text   string `json:"text"`
}
