package live

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/internal/trace"
	"github.com/acp-proxy/acp-proxy/internal/view"
	"github.com/acp-proxy/acp-proxy/proxy"
)

// relayServer serves the live page of a relay session fed by hand through
// the returned tap.
func relayServer(t *testing.T) (*Server, *Tap) {
	t.Helper()
	srv, err := Listen("127.0.0.1:0")
	require.NoError(t, err)
	tap := srv.Relay("live: test", nil, time.Unix(0, 0), trace.ConnectionInfo{Agent: []string{"test-agent"}})
	t.Cleanup(func() { srv.Close(time.Second) })
	return srv, tap
}

// prompt is a client request whose text is marker.
func prompt(id int, marker string) []byte {
	return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"session/prompt","params":{"sessionId":"s","prompt":[{"type":"text","text":%q}]}}`, id, marker)
}

// pass tells tap that line passed client->agent unchanged.
func pass(tap *Tap, line []byte) {
	tap.Passed(&proxy.Passage{Dir: acp.ClientToAgent, Time: time.Unix(1, 0), Line: line, EOL: true, Valid: true,
		Out: []proxy.Sent{{Line: line, Original: true}}})
}

// get requests path on srv with the given token, Host and extra headers.
func get(t *testing.T, srv *Server, method, path, token, host string, hdr map[string]string) *http.Response {
	t.Helper()
	u := "http://" + srv.ln.Addr().String() + path
	if token != "" {
		u += "?token=" + url.QueryEscape(token)
	}
	req, err := http.NewRequest(method, u, nil)
	require.NoError(t, err)
	if host != "" {
		req.Host = host
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func TestServerAnswersOnlyItsOwnPageWithTheToken(t *testing.T) {
	srv, _ := relayServer(t)
	port := srv.port
	good := "127.0.0.1:" + port
	for _, c := range []struct {
		says   string
		method string
		path   string
		token  string
		host   string
		hdr    map[string]string
		want   int
	}{
		{"the URL acp-proxy printed opens the page", "GET", "/", srv.token, good, nil, 200},
		{"localhost names the same loopback server", "GET", "/", srv.token, "localhost:" + port, nil, 200},
		{"a same-origin request is fine", "GET", "/", srv.token, good, map[string]string{"Origin": "http://" + good, "Sec-Fetch-Site": "same-origin"}, 200},
		{"no token", "GET", "/", "", good, nil, 401},
		{"a wrong token", "GET", "/", srv.token[:len(srv.token)-1] + "x", good, nil, 401},
		{"the token of the page is needed for its updates too", "GET", "/events", "", good, nil, 401},
		{"another name that resolves here (DNS rebinding)", "GET", "/", srv.token, "attacker.example:" + port, nil, 403},
		{"another port", "GET", "/", srv.token, "127.0.0.1:1", nil, 403},
		{"a page of another origin", "GET", "/", srv.token, good, map[string]string{"Origin": "http://attacker.example"}, 403},
		{"a cross-site request without Origin", "GET", "/", srv.token, good, map[string]string{"Sec-Fetch-Site": "cross-site"}, 403},
		{"read-only: POST", "POST", "/", srv.token, good, nil, 405},
		{"read-only: PUT", "PUT", "/events", srv.token, good, nil, 405},
		{"nothing else is served", "GET", "/etc/passwd", srv.token, good, nil, 404},
	} {
		t.Run(c.says, func(t *testing.T) {
			resp := get(t, srv, c.method, c.path, c.token, c.host, c.hdr)
			assert.Equal(t, c.want, resp.StatusCode)
			assert.Empty(t, resp.Header.Get("Access-Control-Allow-Origin"), "no CORS")
			assert.Contains(t, resp.Header.Get("Content-Security-Policy"), "frame-ancestors 'none'")
			body, _ := io.ReadAll(resp.Body)
			if c.want != 200 {
				assert.NotContains(t, string(body), srv.token, "a refusal never tells the token")
				assert.NotContains(t, string(body), "acp-proxy-view-data")
			}
		})
	}
}

func TestListenIsLoopbackUnlessAnAddressIsNamed(t *testing.T) {
	for _, c := range []struct {
		addr    string
		exposed bool
	}{
		{":0", false},
		{"localhost:0", false},
		{"127.0.0.1:0", false},
		{"0.0.0.0:0", true},
	} {
		t.Run(c.addr, func(t *testing.T) {
			srv, err := Listen(c.addr)
			require.NoError(t, err)
			defer srv.Close(0)
			ip := srv.ln.Addr().(*net.TCPAddr).IP
			assert.Equal(t, c.exposed, !ip.IsLoopback(), "bound to %s", ip)
			assert.Equal(t, c.exposed, srv.Exposed())
			assert.Contains(t, srv.URL(), "/?token="+srv.token)
			assert.Len(t, srv.token, 48, "192 random bits")
		})
	}
	_, err := Listen("8123")
	assert.ErrorContains(t, err, "is not HOST:PORT")
}

func TestAnExposedServerStillRefusesOtherNames(t *testing.T) {
	srv, err := Listen("0.0.0.0:0")
	require.NoError(t, err)
	srv.serve(newPage("t", nil, newQueue(DefaultBudget, false), nil))
	defer srv.Close(0)
	assert.Equal(t, 200, get(t, srv, "GET", "/", srv.token, "192.0.2.7:"+srv.port, nil).StatusCode, "any address of the machine")
	assert.Equal(t, 403, get(t, srv, "GET", "/", srv.token, "attacker.example:"+srv.port, nil).StatusCode)
	assert.Equal(t, 401, get(t, srv, "GET", "/", "", "192.0.2.7:"+srv.port, nil).StatusCode)
}

// events reads server-sent events from a /events response.
type events struct{ r *bufio.Reader }

// next returns the next event's data, decoded.
func (e events) next(t *testing.T) view.Data {
	t.Helper()
	var d view.Data
	for {
		line, err := e.r.ReadString('\n')
		require.NoError(t, err)
		if data, ok := strings.CutPrefix(line, "data: "); ok {
			require.NoError(t, json.Unmarshal([]byte(data), &d))
			return d
		}
	}
}

func openEvents(t *testing.T, srv *Server) events {
	resp := get(t, srv, "GET", "/events", srv.token, "", nil)
	require.Equal(t, 200, resp.StatusCode)
	require.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
	return events{bufio.NewReaderSize(resp.Body, 1<<20)}
}

// messages counts the client->agent messages received in d.
func messages(d view.Data) int64 { return d.Directions[acp.ClientToAgent].Before.Messages }

func TestAPageGetsEachMessageAsItPasses(t *testing.T) {
	srv, tap := relayServer(t)
	ev := openEvents(t, srv)
	first := ev.next(t)
	require.NotNil(t, first.Live)
	assert.True(t, first.Live.Running)
	pass(tap, prompt(1, "hello live"))
	var d view.Data
	for d = ev.next(t); messages(d) < 1; d = ev.next(t) {
	}
	assert.Equal(t, "hello live", d.Conversation[0].Text.Text)
	tap.End(acp.ClientToAgent)
	tap.End(acp.AgentToClient)
	for d = ev.next(t); d.Live.Running; d = ev.next(t) {
	}
	assert.False(t, d.Live.Running, "the session ended: the last data says so")
}

// A browser that reads nothing holds up neither the relay's tap nor the
// other pages, and a page opened later gets everything from the start.
func TestASlowPageNeitherBlocksTheTapNorMissesTheStart(t *testing.T) {
	srv, err := Listen("127.0.0.1:0")
	require.NoError(t, err)
	srv.budget = 4 << 20
	tap := srv.Relay("live: test", nil, time.Unix(0, 0), trace.ConnectionInfo{Agent: []string{"test-agent"}})
	defer srv.Close(time.Second)
	// A browser that asks for the updates and never reads them.
	stuck, err := net.Dial("tcp", srv.ln.Addr().String())
	require.NoError(t, err)
	defer stuck.Close()
	fmt.Fprintf(stuck, "GET /events?token=%s HTTP/1.1\r\nHost: 127.0.0.1:%s\r\n\r\n", srv.token, srv.port)

	const n = 2000
	pad := strings.Repeat("x", 10000) // 20 MB in all, five times the budget
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range n {
			pass(tap, prompt(i, fmt.Sprintf("message %d %s", i, pad)))
		}
	}()
	select {
	case <-done:
	case <-time.After(2 * time.Minute):
		t.Fatal("the tap waited for a browser") // a deadlock's bound, not a speed test
	}
	tap.End(acp.ClientToAgent)
	tap.End(acp.AgentToClient)

	ev := openEvents(t, srv)
	var d view.Data
	for d = ev.next(t); d.Live.Running; d = ev.next(t) {
	}
	assert.Equal(t, int64(n), messages(d)+d.Live.Missed, "every message is shown or counted as missed")
	assert.True(t, strings.HasPrefix(firstPrompt(d), "message 0 xxx"), "a page opened late starts from the start")
}

func firstPrompt(d view.Data) string {
	for _, e := range d.Conversation {
		if e.Kind == "prompt" && e.Text != nil {
			return e.Text.Text + e.Text.Tail
		}
	}
	return ""
}

func TestTheTapLeavesOutWhatItCannotHoldAndSaysSo(t *testing.T) {
	tap := NewTap(time.Unix(0, 0), trace.ConnectionInfo{Agent: []string{"a"}}, 64<<10)
	line := prompt(1, strings.Repeat("y", 1000))
	for range 1000 { // 1 MB, and nobody reads: the budget is 64 KiB
		pass(tap, line)
	}
	p := newPage("t", nil, tap.q, nil)
	tap.End(acp.ClientToAgent)
	tap.End(acp.AgentToClient)
	p.run(t.Context())
	var d view.Data
	data, _, _, ended := p.latest()
	require.True(t, ended)
	require.NoError(t, json.Unmarshal(data, &d))
	assert.Positive(t, d.Live.Missed)
	assert.Equal(t, int64(1000), messages(d)+d.Live.Missed)
	assert.Equal(t, d.Live.Missed*int64(len(line)), d.Live.MissedBytes)
	assert.Less(t, messages(d), int64(70), "at most the budget was held")
}

// A page past MaxBrowsers holds no place: it is told that it waits, and to
// ask again (the browser does, by itself: it would not after an error
// status), and it is served once a place is free.
func TestAPagePastMaxBrowsersWaitsForAPlace(t *testing.T) {
	srv, _ := relayServer(t)
	open := make([]*http.Response, MaxBrowsers)
	for i := range open {
		open[i] = get(t, srv, "GET", "/events", srv.token, "", nil)
		events{bufio.NewReader(open[i].Body)}.next(t)
	}
	refused := get(t, srv, "GET", "/events", srv.token, "", nil)
	assert.Equal(t, 200, refused.StatusCode)
	assert.Equal(t, "text/event-stream", refused.Header.Get("Content-Type"))
	body, err := io.ReadAll(refused.Body) // the stream ends
	require.NoError(t, err)
	assert.Equal(t, "retry: 2000\nevent: busy\ndata: 8 pages are open already\n\n", string(body))
	assert.Equal(t, 200, get(t, srv, "GET", "/", srv.token, "", nil).StatusCode, "the page itself is still served")

	open[0].Body.Close()
	require.Eventually(t, func() bool { return srv.open.Load() < MaxBrowsers }, 10*time.Second, time.Millisecond)
	assert.True(t, openEvents(t, srv).next(t).Live.Running, "the next try is served")
}

// Once its buffers have grown to the traffic, the tap copies each line
// without allocating: it adds no garbage collection work to the relay.
func TestTheTapAllocatesNothingOnceWarm(t *testing.T) {
	tap := NewTap(time.Unix(0, 0), trace.ConnectionInfo{Agent: []string{"a"}}, DefaultBudget)
	line := prompt(1, strings.Repeat("z", 3000))
	unchanged := &proxy.Passage{Dir: acp.ClientToAgent, Time: time.Unix(1, 0), Line: line, EOL: true, Valid: true,
		Out: []proxy.Sent{{Line: line, Original: true}}}
	changed := &proxy.Passage{Dir: acp.AgentToClient, Time: time.Unix(2, 0), Line: line, EOL: true, Valid: true,
		Out: []proxy.Sent{{Line: line[:100]}, {Line: line[100:]}}}
	for range 200 {
		tap.Passed(unchanged)
		tap.Passed(changed)
	}
	warm := tap.q.take(nil).arena // grown to 400 records
	warm.each(func(trace.Record) {})
	tap.q.take(warm) // the queue writes into it again
	allocs := testing.AllocsPerRun(100, func() {
		tap.Passed(unchanged)
		tap.Passed(changed)
	})
	assert.Zero(t, allocs)
}

// A page whose making panics is switched off: the log says so once, the
// tap goes on taking lines (and copies them no more), and an open page is
// told that the live view stopped, not that the session ended.
func TestAPageThatFailsIsSwitchedOffAndTheTapGoesOn(t *testing.T) {
	var logged bytes.Buffer
	srv, err := Listen("127.0.0.1:0")
	require.NoError(t, err)
	srv.Log = slog.New(slog.NewJSONHandler(&logged, nil))
	tap := srv.Relay("live: test", nil, time.Unix(0, 0), trace.ConnectionInfo{Agent: []string{"test-agent"}})
	defer srv.Close(time.Second)
	srv.page.feed = func(rec trace.Record) {
		if bytes.Contains(rec.Line, []byte("bad")) {
			panic("view bug")
		}
	}
	resp := get(t, srv, "GET", "/events", srv.token, "", nil)
	require.Equal(t, 200, resp.StatusCode)
	pass(tap, prompt(1, "bad"))
	body, err := io.ReadAll(resp.Body) // the stream ends
	require.NoError(t, err)
	assert.Contains(t, string(body), "event: failed\ndata: the live view failed and stopped")
	assert.NotContains(t, string(body), "event: end")

	for i := range 1000 {
		pass(tap, prompt(i, "after"))
	}
	tap.End(acp.ClientToAgent)
	tap.End(acp.AgentToClient)
	assert.Empty(t, tap.q.take(nil).arena.recs, "nothing is copied for a page that is off")
	assert.Equal(t, 1, strings.Count(logged.String(), "\n"), "one log line")
	assert.Contains(t, logged.String(), `"observer":"live view"`)
	assert.Contains(t, logged.String(), `"panic":"view bug"`)
}

// dialIdle opens a connection to srv that sends nothing.
func dialIdle(t *testing.T, srv *Server) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", srv.ln.Addr().String())
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	return c
}

// closedByServer reports whether the server closed c (within wait).
func closedByServer(c net.Conn, wait time.Duration) bool {
	_ = c.SetReadDeadline(time.Now().Add(wait))
	_, err := c.Read(make([]byte, 1))
	return err == io.EOF
}

// Whoever can reach the port, token or not, holds at most MaxConnections
// connections: past them a new one is closed at once, and a slot that
// frees is taken again.
func TestConnectionsAreCappedWhoeverMakesThem(t *testing.T) {
	srv, _ := relayServer(t)
	idle := make([]net.Conn, MaxConnections)
	for i := range idle {
		idle[i] = dialIdle(t, srv)
	}
	require.Eventually(t, func() bool { return srv.conns.Load() == MaxConnections }, 10*time.Second, time.Millisecond)
	assert.True(t, closedByServer(dialIdle(t, srv), 10*time.Second), "one more is closed")
	for _, c := range idle {
		assert.False(t, closedByServer(c, 10*time.Millisecond), "the first are held")
	}
	idle[0].Close()
	require.Eventually(t, func() bool { return srv.conns.Load() < MaxConnections }, 10*time.Second, time.Millisecond)
	c := dialIdle(t, srv)
	fmt.Fprintf(c, "GET /?token=%s HTTP/1.1\r\nHost: 127.0.0.1:%s\r\n\r\n", srv.token, srv.port)
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	require.NoError(t, err)
	assert.Equal(t, 200, resp.StatusCode, "a freed slot is taken again")
}

// A connection that sends nothing, or half a request, or stays idle after
// a request, is closed after the server's timeouts; a page's update
// stream is not.
func TestIdleConnectionsAreClosedButUpdateStreamsAreNot(t *testing.T) {
	srv, err := Listen("127.0.0.1:0")
	require.NoError(t, err)
	srv.readHeaderTimeout, srv.readTimeout, srv.idleTimeout = 100*time.Millisecond, 200*time.Millisecond, 100*time.Millisecond
	tap := srv.Relay("live: test", nil, time.Unix(0, 0), trace.ConnectionInfo{Agent: []string{"test-agent"}})
	defer srv.Close(time.Second)

	silent := dialIdle(t, srv)
	half := dialIdle(t, srv)
	fmt.Fprintf(half, "GET /?token=%s HTTP/1.1\r\n", srv.token)
	kept := dialIdle(t, srv)
	fmt.Fprintf(kept, "GET /?token=%s HTTP/1.1\r\nHost: 127.0.0.1:%s\r\n\r\n", srv.token, srv.port)
	br := bufio.NewReader(kept)
	resp, err := http.ReadResponse(br, nil)
	require.NoError(t, err)
	_, _ = io.Copy(io.Discard, resp.Body)
	ev := openEvents(t, srv)
	ev.next(t)

	for name, c := range map[string]net.Conn{"silent": silent, "half a request": half} {
		assert.True(t, closedByServer(c, 5*time.Second), name)
	}
	_ = kept.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, err = br.ReadByte()
	assert.Equal(t, io.EOF, err, "idle after a request")

	time.Sleep(300 * time.Millisecond) // past every timeout
	pass(tap, prompt(1, "still live"))
	var d view.Data
	for d = ev.next(t); messages(d) < 1; d = ev.next(t) {
	}
	assert.Equal(t, "still live", d.Conversation[0].Text.Text, "the update stream goes on")
}
