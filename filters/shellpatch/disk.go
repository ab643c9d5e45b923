package shellpatch

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/acp-proxy/acp-proxy/filters"
	"github.com/acp-proxy/acp-proxy/rawjson"
	"github.com/acp-proxy/acp-proxy/shellwrite"
)

// checkTarget is shellwrite.CheckTarget read through the message's Disk, so
// that a trace carries the answer (filters.Disk): where the write lands, and
// the existing file's text, which becomes the diff's oldText.
func checkTarget(m *filters.Message, script, dir string, w shellwrite.Write, root string, outside bool, max int64) (shellwrite.Target, error) {
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

// targetArgs is what a target's answer depends on besides its path.
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
func (s *ShellPatch) readBack(path, root string) (content []byte, exists bool, err error) {
	args := fmt.Appendf(nil, `{"root":%s,"outsideCwd":%t,"maxBytes":%d}`, rawjson.Quote(root), s.OutsideCwd, s.limit())
	answer, err := s.reading.ReadDisk(filters.DiskRead{Kind: "read-back", Path: path, Args: args}, func() ([]byte, error) {
		if s.Unverified {
			return nil, filters.ErrNotRead
		}
		now, exists, err := shellwrite.ReadBack(path, root, s.OutsideCwd, s.limit())
		if err != nil {
			return nil, err
		}
		return json.Marshal(readBackAnswer{Exists: exists, Text: string(now)})
	})
	if err != nil {
		return nil, false, err
	}
	var a readBackAnswer
	if err := json.Unmarshal(answer, &a); err != nil {
		return nil, false, err
	}
	return []byte(a.Text), a.Exists, nil
}

// readBackAnswer is a file read back as a trace holds it.
type readBackAnswer struct {
	Exists bool   `json:"exists"`
	Text   string `json:"text"`
}
