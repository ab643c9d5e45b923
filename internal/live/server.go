package live

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/acp-proxy/acp-proxy/internal/view"
)

// MaxBrowsers bounds the pages open on one server at a time; more are
// refused (503), so browsers cannot make the proxy hold more.
const MaxBrowsers = 8

// writeTimeout drops a browser that has not taken an update for this
// long; an open page reconnects by itself and gets the latest data.
const writeTimeout = 30 * time.Second

// MaxConnections bounds the connections the server holds at a time,
// whoever made them, token or not: past it a new one is closed at once, so
// whoever can reach the port cannot make the relay's process hold more.
// Eight open pages take eight; the rest is room for loading pages.
const MaxConnections = 32

// The server's timeouts: a connection is closed when its request has not
// come whole within readTimeout (its headers within readHeaderTimeout), or
// when it has been idle between requests for idleTimeout. A page's update
// stream is not bound by them: net/http lifts the read deadline once a
// request without a body is read, and the stream has its own write
// deadline (writeTimeout).
const (
	readHeaderTimeout = 5 * time.Second
	readTimeout       = 10 * time.Second
	idleTimeout       = 30 * time.Second
)

// Server serves one live page over HTTP, read-only, to those who have
// its URL.
type Server struct {
	// Log is told when the page fails (and is switched off); nil: nobody.
	Log *slog.Logger

	ln      net.Listener
	srv     *http.Server
	token   string
	url     string
	exposed bool     // listening beyond loopback, as asked
	hosts   []string // the Host names it answers to (exposed: any IP too)
	port    string
	page    *Page
	budget  int64 // what a relay's tap holds that the page has not taken
	cancel  context.CancelFunc
	done    chan struct{} // the page's goroutine ended
	open    atomic.Int32  // browsers connected
	conns   atomic.Int32  // connections held, any
	closing chan struct{}
	once    sync.Once

	// the http.Server's timeouts (the constants above; shorter in tests)
	readHeaderTimeout, readTimeout, idleTimeout time.Duration
}

// Listen binds addr (HOST:PORT; an empty HOST, or localhost, is the
// loopback address 127.0.0.1; PORT 0 is any free port) and makes the URL's
// token. Nothing is served until Serve.
func Listen(addr string) (*Server, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("%q is not HOST:PORT (as 127.0.0.1:8123, or :0 for any free port on loopback)", addr)
	}
	if host == "" || host == "localhost" {
		host = "127.0.0.1"
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(host, port))
	if err != nil {
		return nil, err
	}
	tok := make([]byte, 24)
	_, _ = rand.Read(tok) // never fails (crypto/rand)
	s := &Server{ln: ln, token: hex.EncodeToString(tok), budget: DefaultBudget, closing: make(chan struct{}), done: make(chan struct{}),
		readHeaderTimeout: readHeaderTimeout, readTimeout: readTimeout, idleTimeout: idleTimeout}
	tcp := ln.Addr().(*net.TCPAddr)
	s.port = strconv.Itoa(tcp.Port)
	s.exposed = !tcp.IP.IsLoopback()
	urlHost := tcp.IP.String()
	s.hosts = []string{"localhost", "127.0.0.1", "::1", urlHost}
	if tcp.IP.IsUnspecified() {
		if name, err := os.Hostname(); err == nil {
			s.hosts = append(s.hosts, strings.ToLower(name))
			urlHost = name
		}
	}
	s.url = "http://" + net.JoinHostPort(urlHost, s.port) + "/?token=" + s.token
	return s, nil
}

// URL is the page's address, token included.
func (s *Server) URL() string { return s.url }

// Exposed says the server listens beyond loopback (an address was named).
func (s *Server) Exposed() bool { return s.exposed }

// serve runs p's goroutine and serves it until Close.
func (s *Server) serve(p *Page) {
	s.page = p
	ctx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	go func() { defer close(s.done); p.run(ctx) }()
	s.srv = &http.Server{Handler: s, ReadHeaderTimeout: s.readHeaderTimeout, ReadTimeout: s.readTimeout,
		IdleTimeout: s.idleTimeout, ConnState: s.countConn}
	go func() { _ = s.srv.Serve(s.ln) }()
}

// countConn counts the connections held, and closes a new one past
// MaxConnections.
func (s *Server) countConn(c net.Conn, state http.ConnState) {
	switch state {
	case http.StateNew:
		if s.conns.Add(1) > MaxConnections {
			_ = c.Close()
		}
	case http.StateClosed, http.StateHijacked:
		s.conns.Add(-1)
	}
}

// Close ends the page (nothing more will be fed to it: the relay has
// returned, or the follower stopped), waits up to wait for its last data
// to be made and sent to open pages, then stops serving.
func (s *Server) Close(wait time.Duration) {
	s.once.Do(func() {
		if s.page == nil {
			_ = s.ln.Close()
			return
		}
		s.page.q.close()
		deadline := time.NewTimer(wait)
		defer deadline.Stop()
		select {
		case <-s.done:
		case <-deadline.C:
		}
		s.cancel()
		close(s.closing) // each open page is sent the latest, then ends
		ctx, cancel := context.WithTimeout(context.Background(), wait)
		defer cancel()
		if s.srv.Shutdown(ctx) != nil {
			_ = s.srv.Close()
		}
	})
}

// ServeHTTP answers GET / (the page) and GET /events (its updates) to a
// request that carries the token, names this server in Host and comes
// from no other origin.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", view.LiveCSP+"; frame-ancestors 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-store")
	if err := s.allowed(r); err != nil {
		http.Error(w, "acp-proxy live view: "+err.Error(), statusOf(err))
		return
	}
	switch r.URL.Path {
	case "/":
		s.servePage(w)
	case "/events":
		s.serveEvents(w, r)
	default:
		http.NotFound(w, r)
	}
}

// refusal is why a request was refused, and its status.
type refusal struct {
	status int
	why    string
}

func (e *refusal) Error() string { return e.why }

func statusOf(err error) int {
	var r *refusal
	if errors.As(err, &r) {
		return r.status
	}
	return http.StatusForbidden
}

// allowed checks a request: read-only, for this server's Host (a page of
// another name that resolves here, DNS rebinding, is refused), from no
// other origin, with the token.
func (s *Server) allowed(r *http.Request) error {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return &refusal{http.StatusMethodNotAllowed, "read-only: GET only"}
	}
	if !s.knownHost(r.Host) {
		return &refusal{http.StatusForbidden, "unknown Host " + strconv.Quote(r.Host)}
	}
	if o := r.Header.Get("Origin"); o != "" && o != "http://"+r.Host {
		return &refusal{http.StatusForbidden, "cross-origin request refused"}
	}
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" && site != "none" {
		return &refusal{http.StatusForbidden, "cross-site request refused"}
	}
	tok := r.URL.Query().Get("token")
	if subtle.ConstantTimeCompare([]byte(tok), []byte(s.token)) != 1 {
		return &refusal{http.StatusUnauthorized, "this page needs the token of the URL acp-proxy printed"}
	}
	return nil
}

// knownHost reports whether hostport names this server: its port, and a
// loopback name or its own address (exposed: any IP address, or this
// machine's name).
func (s *Server) knownHost(hostport string) bool {
	host, port, err := net.SplitHostPort(hostport)
	if err != nil || port != s.port {
		return false
	}
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	for _, h := range s.hosts {
		if host == h {
			return true
		}
	}
	return s.exposed && net.ParseIP(host) != nil
}

func (s *Server) servePage(w http.ResponseWriter) {
	_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(writeTimeout))
	data, _, _, _ := s.page.latest()
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_ = view.WriteLiveHTML(w, s.page.title, data)
}

// busyRetry is how soon a page refused for want of a place (MaxBrowsers)
// asks again.
const busyRetry = 2 * time.Second

// busy answers a page that finds MaxBrowsers pages open: it is told so,
// and to ask again in busyRetry, and the stream ends. A browser's
// EventSource reconnects by itself after the retry it was given when a
// stream ends, but never after an error status (a 503): so the page waits,
// says it waits, and connects once a place is free.
func (s *Server) busy(w http.ResponseWriter) {
	w.WriteHeader(http.StatusOK)
	fmt.Fprintf(w, "retry: %d\nevent: busy\ndata: %d pages are open already\n\n", busyRetry.Milliseconds(), MaxBrowsers)
}

// serveEvents sends the page's data as server-sent events: the latest at
// once, then each newer one as it is published. A browser that is slow to
// read only ever gets the latest (which holds everything from the start);
// one that takes nothing for writeTimeout is dropped.
func (s *Server) serveEvents(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/event-stream")
	if s.open.Add(1) > MaxBrowsers {
		s.open.Add(-1)
		s.busy(w)
		return
	}
	defer s.open.Add(-1)
	rc := http.NewResponseController(w)
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodHead {
		return
	}
	defer s.page.watch()()
	var sent int64
	for {
		data, v, changed, ended := s.page.latest()
		if v != sent {
			_ = rc.SetWriteDeadline(time.Now().Add(writeTimeout))
			if _, err := fmt.Fprintf(w, "id: %d\nevent: data\ndata: %s\n\n", v, data); err != nil || rc.Flush() != nil {
				return
			}
			sent = v
		}
		if ended {
			last := "event: end\ndata: the session ended\n\n"
			if s.page.hasFailed() {
				last = "event: failed\ndata: the live view failed and stopped (the proxy's log says why); the session goes on\n\n"
			}
			if _, err := io.WriteString(w, last); err == nil {
				_ = rc.Flush()
			}
			return
		}
		select {
		case <-changed:
		case <-r.Context().Done():
			return
		case <-s.closing:
			if _, v, _, _ := s.page.latest(); v == sent {
				return
			}
		}
	}
}
