package filters

import (
	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/capabilities"
)

// Explained is implemented by filters that can tell a person, in a summary
// of what they did, which flag turned them on and why their figures are
// what they are.
type Explained interface {
	// Flag is the command-line flag that turned the filter on.
	Flag() string
	// Explain says what the filter changed in direction d (changed), or
	// why it changed nothing there: it stood aside. "" when there is
	// nothing to say.
	Explain(d acp.Direction, changed bool, caps *capabilities.Negotiated) string
}

// explain is f's flag (its name, if it has none) and notes per direction.
func explain(f Filter, caps *capabilities.Negotiated, changed [2]bool) (flag string, notes [2]string) {
	e, ok := f.(Explained)
	if !ok {
		return f.Name(), notes
	}
	for d := range 2 {
		notes[d] = e.Explain(acp.Direction(d), changed[d], caps)
	}
	return e.Flag(), notes
}
