package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/capabilities"
	"github.com/acp-proxy/acp-proxy/filters"
)

// fileShowingFilter replaces every agent→client line with one naming what
// the file at path holds, read through the message's Disk.
func fileShowingFilter(path string) filters.Filter {
	return filters.Func{FilterName: "show-file", Fn: func(m *filters.Message, out filters.Emitter) error {
		if m.Dir != acp.AgentToClient {
			return nil
		}
		answer, err := m.ReadDisk(filters.DiskRead{Kind: "test", Path: path}, func() ([]byte, error) {
			b, err := os.ReadFile(path)
			if err != nil {
				return nil, err
			}
			return json.Marshal(string(b))
		})
		if err != nil {
			return out.Emit(m.Dir, []byte(`{"file":"unreadable"}`))
		}
		return out.Emit(m.Dir, append(append([]byte(`{"file":`), answer...), '}'))
	}}
}

// What a filter read live is in the trace, and a replay on a machine where
// the file is gone, or holds something else, gives what the live proxy sent.
func TestAReplayAnswersWhatFiltersReadFromTheTrace(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f.txt")
	require.NoError(t, os.WriteFile(path, []byte("recorded"), 0o644))
	in := "{\"n\":1}\n{\"n\":2}\n"
	var trace bytes.Buffer
	r := &Relay{Chain: filters.NewChain(capabilities.New(), fileShowingFilter(path)), Record: NewRecorder(&trace, time.Now())}
	live := relayOnce(t, r, acp.AgentToClient, strings.NewReader(in))
	require.NoError(t, r.Record.Flush())
	assert.Equal(t, "{\"file\":\"recorded\"}\n{\"file\":\"recorded\"}\n", string(live))
	assert.Equal(t, 2, strings.Count(trace.String(), `"read":{"kind":"test"`), "each read is recorded")

	for name, change := range map[string]func(){
		"file gone":    func() { require.NoError(t, os.Remove(path)) },
		"file changed": func() { require.NoError(t, os.WriteFile(path, []byte("today's"), 0o644)) },
	} {
		t.Run(name, func(t *testing.T) {
			change()
			var missing []string
			chain := filters.NewChain(capabilities.New(), fileShowingFilter(path))
			chain.Disk = &TraceDisk{Missing: func(q filters.DiskRead, _ error) { missing = append(missing, q.Path) }}
			var out bytes.Buffer
			require.NoError(t, Replay(context.Background(), chain, NewTraceReader(bytes.NewReader(trace.Bytes())), &out, nil))
			assert.Empty(t, missing)
			assert.Equal(t, string(live), string(linesOf(t, out.Bytes())))
			assert.Equal(t, 2, strings.Count(out.String(), `"read":{"kind":"test"`), "the replay's output carries the reads too")
		})
	}
}

// A trace without reads is replayed against this machine's disk, and the
// replay says which file, once.
func TestAReplayOfATraceWithoutReadsSaysWhichFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "absent.txt")
	trace := "{\"t\":0.1,\"dir\":\"agent->client\",\"msg\":{\"n\":1}}\n{\"t\":0.2,\"dir\":\"agent->client\",\"msg\":{\"n\":2}}\n"
	var notes []string
	chain := filters.NewChain(capabilities.New(), fileShowingFilter(path))
	chain.Disk = &TraceDisk{Missing: func(q filters.DiskRead, err error) { notes = append(notes, MissingNote(q, err)) }}
	var out bytes.Buffer
	require.NoError(t, Replay(context.Background(), chain, NewTraceReader(strings.NewReader(trace)), &out, nil))
	require.Len(t, notes, 1)
	assert.Contains(t, notes[0], path)
	assert.Contains(t, notes[0], "could not be used")
	assert.Equal(t, "{\"file\":\"unreadable\"}\n{\"file\":\"unreadable\"}\n", string(linesOf(t, out.Bytes())))
}

// EmbedReads adds what the filters read to a trace recorded without them,
// byte for byte otherwise.
func TestEmbedReadsMakesATraceSelfContained(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f.txt")
	require.NoError(t, os.WriteFile(path, []byte("then"), 0o644))
	trace := "{\"t\":0.1,\"dir\":\"client->agent\",\"msg\":{\"n\":0}}\n{\"t\":0.2,\"dir\":\"agent->client\",\"msg\":{\"n\":1}}\n"
	var embedded bytes.Buffer
	require.NoError(t, EmbedReads(context.Background(), filters.NewChain(capabilities.New(), fileShowingFilter(path)), strings.NewReader(trace), &embedded))
	lines := strings.SplitAfter(embedded.String(), "\n")
	require.Len(t, lines, 4)
	assert.Equal(t, "{\"t\":0.1,\"dir\":\"client->agent\",\"msg\":{\"n\":0}}\n", lines[0])
	assert.Equal(t, `{"t":0.200000,"dir":"agent->client","read":{"kind":"test","path":`+string(mustJSON(t, path))+`,"answer":"then"}}`+"\n", lines[1])
	assert.Equal(t, "{\"t\":0.2,\"dir\":\"agent->client\",\"msg\":{\"n\":1}}\n", lines[2])

	require.NoError(t, os.Remove(path))
	var out bytes.Buffer
	chain := filters.NewChain(capabilities.New(), fileShowingFilter(path))
	require.NoError(t, Replay(context.Background(), chain, NewTraceReader(&embedded), &out, nil))
	assert.Equal(t, "{\"n\":0}\n{\"file\":\"then\"}\n", string(linesOf(t, out.Bytes())))
}

func mustJSON(t *testing.T, v any) []byte {
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}

// linesOf is the stream a trace's records hold.
func linesOf(t *testing.T, trace []byte) []byte {
	var lines bytes.Buffer
	for rec, err := range NewTraceReader(bytes.NewReader(trace)).All() {
		require.NoError(t, err)
		if rec.HasLine {
			lines.Write(rec.Line)
			lines.WriteByte('\n')
		}
	}
	return lines.Bytes()
}
