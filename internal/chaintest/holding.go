package chaintest

import (
	"bytes"
	"time"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/filters"
)

// Holding is a filter that holds lines back and sends them on later as
// they came, as --show-changes holds the agent's lines behind a report:
// it holds each line of method "hold" or "rewrite" and each line that is
// not a JSON object, and sends what it holds on before a line of method
// "release", and when its direction's input ends: as it came
// (filters.EmitHeld), or, a "rewrite" line, changed to method "rewritten"
// (filters.EmitHeldAs), as --show-changes sends a call's end with its
// diffs.
type Holding struct {
	held [2][]*filters.Held
}

func (*Holding) Name() string { return "holding" }

func (h *Holding) Apply(m *filters.Message, out filters.Emitter) error {
	switch {
	case !m.Valid() || m.Method() == "hold" || m.Method() == "rewrite":
		h.held[m.Dir] = append(h.held[m.Dir], m.Hold())
		return filters.Drop
	case m.Method() == "release":
		h.Drain(m.Dir, out)
		return out.Emit(m.Dir, m.Raw)
	}
	return nil
}

func (*Holding) Tick(acp.Direction, time.Time, filters.Emitter) time.Time { return time.Time{} }

func (h *Holding) Drain(d acp.Direction, out filters.Emitter) {
	for _, l := range h.held[d] {
		if rewritten := bytes.Replace(l.Raw, []byte(`"method":"rewrite"`), []byte(`"method":"rewritten"`), 1); len(rewritten) != len(l.Raw) {
			_ = filters.EmitHeldAs(out, l, rewritten)
			continue
		}
		_ = filters.EmitHeld(out, l)
	}
	h.held[d] = nil
}
