package filters_test

import (
	"bytes"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/capabilities"
	"github.com/acp-proxy/acp-proxy/filters"
)

// rewriting holds every line and, on Drain, releases it changed (as
// EmitHeldAs sends it: as) when as gives bytes for it, else as it came.
type rewriting struct {
	held []*filters.Held
	as   func(raw []byte) []byte
}

func (*rewriting) Name() string { return "rewriting" }

func (r *rewriting) Apply(m *filters.Message, _ filters.Emitter) error {
	r.held = append(r.held, m.Hold())
	return filters.Drop
}

func (*rewriting) Tick(acp.Direction, time.Time, filters.Emitter) time.Time { return time.Time{} }

func (r *rewriting) Drain(_ acp.Direction, out filters.Emitter) {
	for _, h := range r.held {
		if raw := r.as(h.Raw); raw != nil {
			_ = filters.EmitHeldAs(out, h, raw)
			continue
		}
		_ = filters.EmitHeld(out, h)
	}
	r.held = nil
}

// A held line released changed leaves as its release (Line.Held: the line
// as read, its time), as a line the filter wrote: through the filters
// after it, checked. One that is not valid JSON, or breaks the framing,
// is reported, and the held line leaves in its place as it came. A held
// line a later filter changes on its way out still leaves as its release.
func TestAHeldLineReleasedChangedLeavesAsTheLineHeld(t *testing.T) {
	stamp := filters.Func{FilterName: "stamp", Fn: func(m *filters.Message, out filters.Emitter) error {
		if bytes.Contains(m.Raw, []byte(`"stamp"`)) {
			return out.Emit(m.Dir, append(bytes.TrimSuffix(m.Raw, []byte("}")), `,"stamped":true}`...))
		}
		return nil
	}}
	type left struct {
		Raw, Held string
		Original  bool
	}
	cases := []struct {
		name  string
		as    func([]byte) []byte
		after []filters.Filter
		in    []string
		want  []left
		errs  []error
	}{
		{
			name: "changed and unchanged, in order",
			as: func(raw []byte) []byte {
				if bytes.Contains(raw, []byte(`"n":2`)) {
					return []byte(`{"method":"x","n":2,"more":true}`)
				}
				return nil
			},
			in: []string{`{"method":"x","n":1}`, `{"method":"x","n":2}`, "a log line"},
			want: []left{
				{`{"method":"x","n":1}`, `{"method":"x","n":1}`, true},
				{`{"method":"x","n":2,"more":true}`, `{"method":"x","n":2}`, false},
				{"a log line", "a log line", true},
			},
		},
		{
			name:  "through the filters after it",
			as:    func(raw []byte) []byte { return []byte(`{"method":"stamp"}`) },
			after: []filters.Filter{stamp},
			in:    []string{`{"method":"x"}`},
			want:  []left{{`{"method":"stamp","stamped":true}`, `{"method":"x"}`, false}},
		},
		{
			name:  "unchanged, changed by a later filter",
			as:    func([]byte) []byte { return nil },
			after: []filters.Filter{stamp},
			in:    []string{`{"method":"stamp"}`},
			want:  []left{{`{"method":"stamp","stamped":true}`, `{"method":"stamp"}`, false}},
		},
		{
			name: "not JSON: the held line instead",
			as:   func([]byte) []byte { return []byte(`{"method":`) },
			in:   []string{"{\"method\":\"x\",\"s\":\"\xff\"}"},
			want: []left{{"{\"method\":\"x\",\"s\":\"\xff\"}", "{\"method\":\"x\",\"s\":\"\xff\"}", true}},
			errs: []error{filters.ErrInvalidLine},
		},
		{
			name: "a newline: the held line instead",
			as:   func([]byte) []byte { return []byte("{}\n{}") },
			in:   []string{`{"method":"x"}`},
			want: []left{{`{"method":"x"}`, `{"method":"x"}`, true}},
			errs: []error{filters.ErrNewline},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := filters.NewChain(capabilities.New(), append([]filters.Filter{&rewriting{as: tc.as}}, tc.after...)...)
			var errs []error
			c.OnError = func(_ acp.Direction, _ string, err error) { errs = append(errs, err) }
			var got []left
			dr := filters.NewDriver(c, filters.NewManualClock(time.Unix(0, 0)), func(l filters.Line) error {
				require.NotNil(t, l.Held, "%s: leaves as the line held, not as one the proxy added", l.Raw)
				got = append(got, left{string(l.Raw), string(l.Held.Raw), l.Original})
				return nil
			})
			for i, l := range tc.in {
				m := filters.NewMessage(acp.AgentToClient, []byte(l), time.Unix(int64(i), 0), nil)
				require.NoError(t, dr.Process(m, func(filters.Line) error { t.Fatal("a held line left at once"); return nil }))
				assert.True(t, m.Held())
			}
			require.NoError(t, dr.Drain(acp.AgentToClient))
			assert.Equal(t, tc.want, got)
			require.Len(t, errs, len(tc.errs), "%v", errs)
			for i, e := range tc.errs {
				assert.True(t, errors.Is(errs[i], e), "%v", errs[i])
			}
		})
	}
}
