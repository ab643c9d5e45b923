package live

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/capabilities"
	"github.com/acp-proxy/acp-proxy/internal/filterset"
	"github.com/acp-proxy/acp-proxy/internal/trace"
	"github.com/acp-proxy/acp-proxy/internal/view"
)

// recorderSink and tapSink hand a replay's passages to a recorder and a
// live tap, as a relay hands them its own.
type recorderSink struct{ *trace.Recorder }

func (recorderSink) Record(time.Time, trace.Record) {}

type tapSink struct{ *Tap }

func (tapSink) Record(time.Time, trace.Record) {}

// The live page shows what `acp-proxy view` shows of the trace the same
// session recorded: the same messages paired with what the filters made
// of them, the same calls and their changes, the same conversation.
func TestTheLivePageEndsAsTheViewOfTheRecordedTrace(t *testing.T) {
	for _, c := range []struct {
		trace string
		cfg   filterset.Config
	}{
		{"codex-0.13-plain-shell-900", filterset.Config{TerminalOutput: true, Deltas: true}},
		{"codex-0.13-plain-heredoc", filterset.Config{ShellToPatch: true}},
		{"claude-0.23-zed-persisted-4000", filterset.Config{TerminalOutput: true}},
		{"codex-2.6-plain-5", filterset.Config{}},
	} {
		t.Run(c.trace, func(t *testing.T) {
			f, err := os.Open(filepath.Join("..", "..", "testdata", "traces", c.trace+".jsonl"))
			require.NoError(t, err)
			defer f.Close()
			chain := c.cfg.Chain(capabilities.New())
			chain.Disk = &trace.Disk{}
			var flags []string
			for _, s := range chain.Stats() {
				flags = append(flags, s.Flag)
			}
			if chain.Len() == 0 {
				chain = nil
			}

			// One session, as a relay with --record and --serve would
			// watch it: the replay is the relay.
			var recorded bytes.Buffer
			info := trace.ConnectionInfo{Agent: []string{"agent"}}
			rec := trace.NewRecorder(&recorded, time.Time{})
			require.NoError(t, rec.Begin(info), "the connection record, as --record writes it")
			tap := NewTap(time.Time{}, info, 1<<30)
			page := newPage(c.trace, flags, tap.q, nil)
			err = trace.Replay(context.Background(), trace.NewReader(f), func(int) trace.Connection {
				return trace.Connection{Chain: chain, Sinks: []trace.Sink{recorderSink{rec}, tapSink{tap}}}
			})
			require.NoError(t, err)
			require.NoError(t, rec.Flush())
			page.run(t.Context())
			live, _, _, ended := page.latest()
			require.True(t, ended)

			want, err := view.Build(context.Background(), &recorded, view.Options{Name: c.trace})
			require.NoError(t, err)
			var got view.Data
			require.NoError(t, json.Unmarshal(live, &got))
			require.NotNil(t, got.Live)
			assert.Equal(t, view.LiveState{}, *got.Live, "nothing missed, nothing cut, ended")
			got.Live = nil
			if flags == nil {
				flags = []string{}
			}
			assert.Equal(t, flags, got.Filters, "the header names the relay's filters")
			got.Filters = want.Filters
			wantJSON, err := view.EncodeData(want)
			require.NoError(t, err)
			gotJSON, err := view.EncodeData(&got)
			require.NoError(t, err)
			require.NotEmpty(t, want.Messages)
			assert.JSONEq(t, string(wantJSON), string(gotJSON))
		})
	}
}
