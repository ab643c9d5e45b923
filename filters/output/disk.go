package output

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/acp-proxy/acp-proxy/filters"
)

// errNotReadable is a saved output the filter may not or cannot read: not
// the agent's own tool output, gone, not a regular file, or too large.
var errNotReadable = errors.New("not a saved tool output the filter may read")

// readSaved reads the saved output at path through m's Disk, so that a trace
// carries it (filters.Disk); read reads the OS.
// max, the largest file the filter reads, is part of the question.
func readSaved(m *filters.Message, path string, max int64, read func() (string, bool)) (string, bool) {
	q := filters.DiskRead{Kind: "saved-output", Path: path, Args: fmt.Appendf(nil, `{"maxBytes":%d}`, max)}
	answer, err := m.ReadDisk(q, func() ([]byte, error) {
		text, ok := read()
		if !ok {
			return nil, errNotReadable
		}
		return json.Marshal(text)
	})
	var text string
	if err != nil || json.Unmarshal(answer, &text) != nil {
		return "", false
	}
	return text, true
}
