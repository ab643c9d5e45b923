package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/internal/acpclient"
	"github.com/acp-proxy/acp-proxy/internal/view"
)

// TestLiveViewOfRealAgents watches real sessions through `acp-proxy
// --serve` while they run: a page opened at the start gets the session as
// it goes, and ends on the data `acp-proxy view` makes of the trace the
// same proxy recorded (the same calls, the same before/after pairs, the
// same conversation), with nothing left out.
func TestLiveViewOfRealAgents(t *testing.T) {
	for _, agent := range []string{"codex-0.16", "claude-0.101"} {
		t.Run(agent, func(t *testing.T) {
			s := launch(t, agent, []string{linesCommand(200)}, false, "")
			dir := t.TempDir()
			trace, logFile := filepath.Join(dir, "trace.jsonl"), filepath.Join(dir, "proxy.log")
			flags := []string{"--terminal-output", "--deltas", "--serve", ":0", "--log-file", logFile, "--record", trace}
			watched := make(chan []view.Data, 1)
			go func() { watched <- watchLive(t, logFile) }()
			opts := acpclient.Options{
				Argv:         append(append(append([]string{proxyBin(t)}, flags...), "--"), s.agent.Argv...),
				Env:          s.agent.Env,
				Dir:          s.agent.Dir,
				Capabilities: clientCaps(false),
			}
			t.Run("session", func(t *testing.T) {
				c := acpclient.Run(t, opts, "print the lines")
				assert.Empty(t, c.Problems())
			})
			updates := <-watched
			require.NotEmpty(t, updates, "the page got no data")
			last := updates[len(updates)-1]
			require.NotNil(t, last.Live)
			assert.Equal(t, view.LiveState{}, *last.Live, "the session ended, nothing left out")
			assert.Greater(t, len(updates), 2, "the page was updated while the session ran")
			require.NotEmpty(t, last.Calls, "no tool call on the page")

			f, err := os.Open(trace)
			require.NoError(t, err)
			defer f.Close()
			want, err := view.Build(context.Background(), f, view.Options{Name: last.Trace})
			require.NoError(t, err)
			assert.Subset(t, last.Filters, []string{"--terminal-output", "--deltas"}, "the page names the relay's filters")
			last.Live, last.Filters = nil, want.Filters
			wantJSON, err := view.EncodeData(want)
			require.NoError(t, err)
			gotJSON, err := view.EncodeData(&last)
			require.NoError(t, err)
			assert.JSONEq(t, string(wantJSON), string(gotJSON), "the live page ends as view's page of the recorded trace")
		})
	}
}

// watchLive waits for the live view's URL in the proxy's log, follows the
// page's updates until the stream ends, and returns them.
func watchLive(t *testing.T, logFile string) []view.Data {
	logged := regexp.MustCompile(`"msg":"live view","url":"(http://[^"]+)"`)
	var url string
	for deadline := time.Now().Add(time.Minute); url == "" && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		b, _ := os.ReadFile(logFile)
		if m := logged.FindSubmatch(b); m != nil {
			url = strings.Replace(string(m[1]), "/?token=", "/events?token=", 1)
		}
	}
	if url == "" {
		return nil
	}
	resp, err := httpGet(url)
	if err != nil {
		return nil
	}
	defer resp.Body.Close()
	var updates []view.Data
	r := bufio.NewReaderSize(resp.Body, 1<<20)
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return updates
		}
		if data, ok := strings.CutPrefix(line, "data: "); ok && strings.HasPrefix(data, "{") {
			var d view.Data
			if json.Unmarshal([]byte(data), &d) == nil {
				updates = append(updates, d)
			}
		}
	}
}

func httpGet(url string) (*http.Response, error) { return http.Get(url) }
