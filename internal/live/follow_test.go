package live

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// view --follow: a trace another proxy is still appending to is shown from
// its start, then each record as it is written, a half-written record once
// it is whole; as --record FILE.gz writes it too (a gzip member per flush,
// one of them half-written when the follower reaches it).
func TestFollowShowsATraceAsItIsWritten(t *testing.T) {
	plain := func(_ *testing.T, text string) []byte { return []byte(text) }
	member := func(t *testing.T, text string) []byte {
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		_, err := zw.Write([]byte(text))
		require.NoError(t, err)
		require.NoError(t, zw.Close())
		return b.Bytes()
	}
	for _, tc := range []struct {
		name  string
		write func(*testing.T, string) []byte
	}{
		{"s.jsonl", plain},
		{"s.jsonl.gz", member},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), tc.name)
			w, err := os.Create(path)
			require.NoError(t, err)
			defer w.Close()
			record := func(i int) string {
				return fmt.Sprintf(`{"t":%d.5,"dir":"client->agent","msg":%s}`+"\n", i, prompt(i, fmt.Sprint("prompt ", i)))
			}
			_, err = w.Write(tc.write(t, record(0)))
			require.NoError(t, err)

			r, err := os.Open(path)
			require.NoError(t, err)
			defer r.Close()
			srv, err := Listen(":0")
			require.NoError(t, err)
			ctx, cancel := context.WithCancel(context.Background())
			followed := make(chan error, 1)
			go func() { followed <- srv.Follow(ctx, r, tc.name) }()

			ev := openEvents(t, srv)
			waitFor := func(n int64) {
				t.Helper()
				for d := ev.next(t); messages(d) < n; d = ev.next(t) {
					require.True(t, d.Live.Running)
				}
			}
			waitFor(1)
			next := tc.write(t, record(1)+record(2))
			_, err = w.Write(next[:20]) // the writer is midway through a record
			require.NoError(t, err)
			time.Sleep(3 * pollInterval) // a follower that read it now, or stopped at it, would fail
			_, err = w.Write(next[20:])
			require.NoError(t, err)
			waitFor(3)

			cancel()
			assert.NoError(t, <-followed, "stopped, not failed")
			srv.Close(0)
		})
	}
}

func TestFollowReportsABrokenTrace(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	require.NoError(t, os.WriteFile(path, []byte("{\"t\":0.1,\"dir\":\"sideways\",\"msg\":{}}\n"), 0o644))
	r, err := os.Open(path)
	require.NoError(t, err)
	defer r.Close()
	srv, err := Listen(":0")
	require.NoError(t, err)
	defer srv.Close(0)
	assert.ErrorContains(t, srv.Follow(context.Background(), r, "s.jsonl"), "trace line 1")
}
