package mockmodel

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Request is one HTTP request a mock server got, and how it answered.
type Request struct {
	At     time.Time
	Method string
	URL    string // path and query
	Body   []byte
	// Reply says what the server did: "tool <name>", "answer",
	// "aux", "probe", "unexpected".
	Reply string
}

// recorder keeps the requests of one server; the handlers run concurrently.
type recorder struct {
	t    testing.TB
	mu   sync.Mutex
	reqs []Request
}

// read records r with its whole body and returns the index of the record.
func (rec *recorder) read(r *http.Request) (int, []byte, error) {
	body, err := io.ReadAll(r.Body)
	rec.mu.Lock()
	defer rec.mu.Unlock()
	rec.reqs = append(rec.reqs, Request{At: time.Now(), Method: r.Method, URL: r.URL.RequestURI(), Body: body})
	if err != nil {
		return len(rec.reqs) - 1, nil, fmt.Errorf("read request body: %w", err)
	}
	return len(rec.reqs) - 1, body, nil
}

func (rec *recorder) setReply(i int, reply string) {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	rec.reqs[i].Reply = reply
}

func (rec *recorder) all() []Request {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return append([]Request(nil), rec.reqs...)
}

// sseWriter writes Server-Sent Events frames `event: <type>\ndata: <json>\n\n`
// and flushes each, so the agent sees a real stream.
type sseWriter struct {
	w   http.ResponseWriter
	err error
}

func newSSEWriter(w http.ResponseWriter) *sseWriter {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	return &sseWriter{w: w}
}

// event writes one frame; data is marshalled to JSON. An empty typ writes
// a frame with no event line (the Gemini and Chat Completions APIs send
// only data). The first error sticks.
func (s *sseWriter) event(typ string, data any) {
	if s.err != nil {
		return
	}
	b, err := json.Marshal(data)
	if err != nil {
		s.err = fmt.Errorf("marshal %s event: %w", typ, err)
		return
	}
	s.frame(typ, b)
}

// frame writes one frame with data as it is.
func (s *sseWriter) frame(typ string, data []byte) {
	if s.err != nil {
		return
	}
	head := ""
	if typ != "" {
		head = "event: " + typ + "\n"
	}
	if _, err := fmt.Fprintf(s.w, "%sdata: %s\n\n", head, data); err != nil {
		s.err = fmt.Errorf("write %s event: %w", typ, err)
		return
	}
	if f, ok := s.w.(http.Flusher); ok {
		f.Flush()
	}
}

// wait sleeps for d unless the request ends first.
func wait(r *http.Request, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-r.Context().Done():
		return fmt.Errorf("request ended during answer delay: %w", r.Context().Err())
	}
}

// server is what every mock API has: the HTTP server, the script it follows
// and the requests it received.
type server struct {
	name   string // the API's, for logs: "Chat"
	srv    *httptest.Server
	script Script
	rec    recorder
	// Tool calls and replies issued, for the unique ids the APIs give them.
	calls, replies atomic.Int64
}

// mockAPI is one mock API: a server and its handler.
type mockAPI[M any] interface {
	*M
	base() *server
	serve(w http.ResponseWriter, r *http.Request)
}

// newMock starts the mock API M, named name, on 127.0.0.1, following
// script, until the test ends.
func newMock[M any, P mockAPI[M]](t testing.TB, name string, script Script) P {
	t.Helper()
	m := P(new(M))
	s := m.base()
	s.name, s.script, s.rec.t = name, script, t
	s.srv = httptest.NewServer(http.HandlerFunc(m.serve))
	t.Cleanup(s.srv.Close)
	return m
}

func (s *server) base() *server { return s }

// Requests returns the requests received so far, oldest first.
func (s *server) Requests() []Request { return s.rec.all() }

func (s *server) logf(format string, args ...any) {
	s.rec.t.Logf("mockmodel.%s: %s", s.name, fmt.Sprintf(format, args...))
}

// accept reads and records r; when the body cannot be read it answers 400
// itself and returns ok false.
func (s *server) accept(w http.ResponseWriter, r *http.Request) (i int, body []byte, ok bool) {
	i, body, err := s.rec.read(r)
	if err != nil {
		s.logf("%s %s: %v", r.Method, r.URL, err)
		http.Error(w, err.Error(), http.StatusBadRequest)
		return i, nil, false
	}
	return i, body, true
}

// unexpected answers 404 to request i, a request the mock does not serve,
// and logs it.
func (s *server) unexpected(w http.ResponseWriter, r *http.Request, i int, body []byte) {
	s.rec.setReply(i, "unexpected")
	s.logf("unexpected request %s %s: %.300s", r.Method, r.URL, body)
	http.NotFound(w, r)
}

// decode reads request i's JSON body into v; when it cannot, it answers 400
// itself and returns false.
func (s *server) decode(w http.ResponseWriter, i int, body []byte, v any) bool {
	if err := json.Unmarshal(body, v); err != nil {
		s.rec.setReply(i, "unexpected")
		s.logf("decode request: %v: %.300s", err, body)
		http.Error(w, err.Error(), http.StatusBadRequest)
		return false
	}
	return true
}

// readTurn reads, records and decodes into v a request that must be a POST
// to path; any other request it answers itself, and returns ok false.
func (s *server) readTurn(w http.ResponseWriter, r *http.Request, path string, v any) (i int, ok bool) {
	i, body, ok := s.accept(w, r)
	switch {
	case !ok:
		return i, false
	case r.Method != http.MethodPost || r.URL.Path != path:
		s.unexpected(w, r, i, body)
		return i, false
	}
	return i, s.decode(w, i, body, v)
}

// answering records request i's reply, the turn's final answer, and waits
// the script's answer delay (serverDefault when it sets none) when the
// turn ran tool calls (done of them). False: the request ended meanwhile,
// and there is no one to answer.
func (s *server) answering(r *http.Request, i int, reply string, done int, serverDefault time.Duration) bool {
	s.rec.setReply(i, reply)
	if done == 0 {
		return true
	}
	if err := wait(r, s.script.answerDelay(serverDefault)); err != nil {
		s.logf("%v", err)
		return false
	}
	return true
}
