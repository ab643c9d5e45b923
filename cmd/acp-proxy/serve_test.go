package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var liveURL = regexp.MustCompile(`live view at (http://127\.0\.0\.1:\d+/\?token=[0-9a-f]{48})\n`)

// watched is a proxy (or view --follow) started with its live view.
type watched struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout *bufio.Reader
	stderr *bytes.Buffer // all of it, once the process has exited
	url    string
	done   chan struct{} // stderr is read to its end
}

// startWatched starts the binary with args and waits for the URL it
// prints on stderr.
func startWatched(t testing.TB, args ...string) *watched {
	t.Helper()
	w := &watched{cmd: exec.Command(proxyBin(t), args...), stderr: &bytes.Buffer{}, done: make(chan struct{})}
	w.cmd.WaitDelay = 5 * time.Second
	var err error
	w.stdin, err = w.cmd.StdinPipe()
	require.NoError(t, err)
	out, err := w.cmd.StdoutPipe()
	require.NoError(t, err)
	w.stdout = bufio.NewReader(out)
	errPipe, err := w.cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, w.cmd.Start())
	t.Cleanup(func() { _ = w.cmd.Process.Kill(); _ = w.cmd.Wait() })
	urls := make(chan string, 1)
	go func() {
		defer close(w.done)
		r := bufio.NewReader(errPipe)
		for {
			line, err := r.ReadString('\n')
			w.stderr.WriteString(line)
			if m := liveURL.FindStringSubmatch(line); m != nil {
				urls <- m[1]
			}
			if err != nil {
				close(urls)
				return
			}
		}
	}()
	w.url = <-urls
	require.NotEmpty(t, w.url, "no live view URL on stderr")
	return w
}

// waitForEvent reads the page's updates until one holds want.
func waitForEvent(t testing.TB, url, want string) {
	t.Helper()
	resp, err := http.Get(strings.Replace(url, "/?token=", "/events?token=", 1))
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, 200, resp.StatusCode)
	r := bufio.NewReaderSize(resp.Body, 1<<20)
	for {
		line, err := r.ReadString('\n')
		require.NoError(t, err, "the updates ended without %q", want)
		if strings.HasPrefix(line, "data: ") && strings.Contains(line, want) {
			return
		}
	}
}

// The session a proxy with --serve relays is on its page as it runs,
// and the relay stays byte for byte.
func TestServeShowsTheSessionWhileItRuns(t *testing.T) {
	logFile := filepath.Join(t.TempDir(), "proxy.log")
	w := startWatched(t, "--serve", ":0", "--log-file", logFile, "--", fakeAgent(t), "-echo")
	line := `{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{"sessionId":"s","prompt":[{"type":"text","text":"watch me live"}]}}` + "\n"
	_, err := io.WriteString(w.stdin, line)
	require.NoError(t, err)
	got, err := w.stdout.ReadString('\n')
	require.NoError(t, err)
	assert.Equal(t, line, got, "relayed byte for byte")
	waitForEvent(t, w.url, "watch me live")

	require.NoError(t, w.stdin.Close())
	require.NoError(t, w.cmd.Wait())
	<-w.done
	log, err := os.ReadFile(logFile)
	require.NoError(t, err)
	assert.Contains(t, string(log), `"msg":"live view","url":"`+w.url+`"`, "the URL is in the log too")
	_, err = http.Get(w.url)
	assert.Error(t, err, "nothing is served once the session is over")
}

func TestServeAndFollowUsageErrors(t *testing.T) {
	trace := filepath.Join(t.TempDir(), "s.jsonl")
	require.NoError(t, os.WriteFile(trace, []byte(`{"t":0,"dir":"client->agent","msg":{"jsonrpc":"2.0","method":"x"}}`+"\n"), 0o644))
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--serve", "8123", "--", "cat"}, "acp-proxy: --serve: \"8123\" is not HOST:PORT"},
		{[]string{"view", "--follow", "--deltas", trace}, "--follow shows the trace as recorded"},
		{[]string{"view", "--follow", "-o", "x.html", trace}, "--output is for a page of a finished trace"},
		{[]string{"view", "--follow", "-"}, "--follow needs a TRACE file"},
		{[]string{"view", "--serve", ":0", trace}, "--serve means nothing without --follow"},
	} {
		var stdout, stderr bytes.Buffer
		assert.Equal(t, exitUsage, run(c.args, strings.NewReader(""), &stdout, &stderr), "%q", c.args)
		assert.Contains(t, stderr.String(), c.want, "%q", c.args)
		assert.Equal(t, 1, strings.Count(stderr.String(), "\n"), "one line: %s", stderr.String())
	}
}

// view --follow serves the page of a trace another proxy is writing,
// until interrupted.
func TestViewFollowShowsRecordsAsTheyAreAppended(t *testing.T) {
	trace := filepath.Join(t.TempDir(), "s.jsonl")
	record := func(text string) string {
		return fmt.Sprintf(`{"t":0.5,"dir":"client->agent","msg":{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{"sessionId":"s","prompt":[{"type":"text","text":%q}]}}}`+"\n", text)
	}
	require.NoError(t, os.WriteFile(trace, []byte(record("already there")), 0o644))
	w := startWatched(t, "view", "--follow", trace)
	waitForEvent(t, w.url, "already there")
	f, err := os.OpenFile(trace, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString(record("written later"))
	require.NoError(t, err)
	require.NoError(t, f.Close())
	waitForEvent(t, w.url, "written later")
	require.NoError(t, w.cmd.Process.Signal(syscall.SIGINT))
	require.NoError(t, w.cmd.Wait(), "Ctrl-C is the way to stop it")
}
