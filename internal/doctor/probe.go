// Package doctor starts an agent as an editor would, asks it to initialize,
// and says in plain words what it is, what it advertises, which of the
// proxy's filters help it for which kind of client, and what to put in each
// editor's config (acp-proxy doctor).
package doctor

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/acp-proxy/acp-proxy/internal/tailbuf"
	"github.com/acp-proxy/acp-proxy/proxy"
)

// DefaultTimeout is how long an agent gets to answer initialize, and then
// session/new: npx may first fetch a package.
const DefaultTimeout = 30 * time.Second

// The ids of the two requests doctor sends.
const (
	initializeID = 0
	sessionNewID = 1
)

// initializeLine is the initialize request of a client without the
// terminal-output extension, in the shape Zed sends (protocol version 1):
// what the agent says does not depend on the client's capabilities, and a
// client that offers no fs or terminal methods is never asked to run one.
const initializeLine = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,` +
	`"clientCapabilities":{"fs":{"readTextFile":false,"writeTextFile":false},"terminal":false},` +
	`"clientInfo":{"name":"acp-proxy-doctor","title":"acp-proxy doctor","version":"1"}}}` + "\n"

// sessionNewLine is the session/new request doctor sends once the agent
// initialized, in the temporary directory dir: whether the agent starts a
// session for this user as things are (signed in or not), without a prompt.
func sessionNewLine(dir string) string {
	params, _ := json.Marshal(map[string]any{"cwd": dir, "mcpServers": []any{}})
	return `{"jsonrpc":"2.0","id":1,"method":"session/new","params":` + string(params) + "}\n"
}

// Answer is what the agent answered to initialize.
type Answer struct {
	ProtocolVersion int             `json:"protocolVersion"`
	Info            AgentInfo       `json:"agentInfo"`
	Capabilities    json.RawMessage `json:"agentCapabilities"`
	AuthMethods     []AuthMethod    `json:"authMethods"`
	// Path is the agent's executable, found as the proxy finds it;
	// RealPath is Path with its links resolved (a command npm installed
	// links into the package's directory in node_modules), "" when they
	// cannot be.
	Path, RealPath string `json:"-"`
	// NotJSON are lines the agent wrote on stdout that are not JSON (the
	// first few): an editor cannot read them.
	NotJSON []string `json:"-"`
	// NoInfo says that the answer has no agentInfo (grok-build's: it is
	// known by its command only).
	NoInfo bool `json:"-"`
	// Session is what it answered to session/new (nil when doctor did not
	// get to send it).
	Session *Session `json:"-"`
}

// AgentInfo is the agent's agentInfo.
type AgentInfo struct{ Name, Title, Version string }

// AuthMethod is one of the agent's authMethods; Vars are the variables
// an env_var method reads.
type AuthMethod struct {
	ID, Name, Description, Type string
	Vars                        []AuthVar
	// Args are what a terminal method adds to the agent's command.
	Args []string
}

// Session is the agent's answer to session/new in the temporary directory.
type Session struct {
	// ID is the session it started ("" when none).
	ID string
	// Refused is the error it answered with (nil when it started one).
	Refused *RPCError
	// NoAnswer says why it did not answer (it exited, or the timeout); ""
	// when it answered.
	NoAnswer string
}

// RPCError is a JSON-RPC error answer.
type RPCError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *RPCError) String() string {
	s := fmt.Sprintf("%s (code %d)", e.Message, e.Code)
	if d := strings.TrimSpace(string(e.Data)); d != "" && d != "null" {
		s += ": " + clip(plainText(d), 200)
	}
	return s
}

// authRequired is ACP's error code for "authentication required".
const authRequired = -32000

// AuthRequired reports whether the agent refused the session until the
// user signs in: ACP's code for it, or a message that says so.
func (s *Session) AuthRequired() bool {
	if s == nil || s.Refused == nil {
		return false
	}
	msg := strings.ToLower(s.Refused.Message + " " + string(s.Refused.Data))
	return s.Refused.Code == authRequired ||
		strings.Contains(msg, "auth") || strings.Contains(msg, "login") || strings.Contains(msg, "sign in")
}

// maxNotJSON is how many non-JSON stdout lines an Answer keeps.
const maxNotJSON = 8

// Probe starts argv as the proxy starts an agent (PATH lookup, process
// group, shutdown), in a temporary directory it removes afterwards, so that
// nothing lands in the user's project; sends initialize and waits at most
// timeout for the answer; then sends session/new in that directory and waits
// as long again (the Answer's Session says what came); then closes the
// agent's stdin and lets the proxy's shutdown end it. env is the agent's
// environment (nil: this process's); the agent is found on this process's
// PATH, as the proxy finds it. A start failure is a *proxy.StartError.
func Probe(ctx context.Context, argv, env []string, timeout time.Duration) (*Answer, error) {
	agent, path, err := probeAgent(argv, env)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "acp-proxy-doctor-")
	if err != nil {
		return nil, fmt.Errorf("doctor: %w", err)
	}
	defer os.RemoveAll(dir)
	p := startProbe(ctx, agent, dir, argv[0])
	defer p.stop()
	a, err := p.initialize(ctx, timeout)
	if a != nil {
		a.Session = p.newSession(ctx, dir, timeout)
		a.Path = path
		if real, err := filepath.EvalSymlinks(path); err == nil {
			a.RealPath = real
		}
	}
	err = p.end(err)
	if err != nil && !errors.Is(err, context.Canceled) {
		// A usage message on stdout is most often why an agent did not
		// answer: the error carries it, to be shown.
		err = &ProbeError{Err: err, Stdout: p.notJSON.get()}
	}
	return a, err
}

// probeAgent is argv as the proxy starts it, found on PATH, and the path of
// its executable.
func probeAgent(argv, env []string) (proxy.Agent, string, error) {
	agent := proxy.Agent{Argv: append([]string{}, argv...), Env: env}
	path, err := agent.Resolve()
	if err != nil {
		return agent, "", err
	}
	if path, err = filepath.Abs(path); err != nil {
		return agent, "", fmt.Errorf("doctor: %w", err)
	}
	if strings.ContainsRune(argv[0], filepath.Separator) {
		// It runs in another directory, so a relative name must not.
		agent.Argv[0] = path
	}
	return agent, path, nil
}

// ProbeError is a probe that got no answer: why, and the lines the agent
// wrote on stdout that are not JSON (the first few), such as a usage
// message.
type ProbeError struct {
	Err    error
	Stdout []string
}

func (e *ProbeError) Error() string { return e.Err.Error() }
func (e *ProbeError) Unwrap() error { return e.Err }

// notJSONLines are the first maxNotJSON lines an agent wrote on stdout
// that are not JSON, for the reader and, once it gave up, the prober.
type notJSONLines struct {
	mu    sync.Mutex
	lines []string
}

func (n *notJSONLines) add(line string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if len(n.lines) < maxNotJSON {
		n.lines = append(n.lines, line)
	}
}

func (n *notJSONLines) get() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return slices.Clone(n.lines)
}

type runResult struct {
	status int
	err    error
}

// probe is an agent doctor started through the proxy's relay, and what it
// answered so far.
type probe struct {
	name      string
	in        *io.PipeWriter
	responses chan response
	exited    chan runResult
	gone      bool // exited has been read
	exit      runResult
	early     map[int]response // answers read while awaiting another
	stderr    *tailbuf.Buffer
	notJSON   *notJSONLines
	stop      context.CancelFunc
}

// response is the agent's answer to one of doctor's requests, or the end of
// its stdout (closed).
type response struct {
	id     int
	result json.RawMessage
	err    *RPCError
	closed bool
}

// startProbe starts the agent in dir and reads its stdout.
func startProbe(ctx context.Context, agent proxy.Agent, dir, name string) *probe {
	p := &probe{name: name, responses: make(chan response, 4), exited: make(chan runResult, 1),
		early: map[int]response{}, stderr: tailbuf.New(4 << 10), notJSON: &notJSONLines{}}
	agent.Dir, agent.Stderr = dir, p.stderr
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	runCtx, stop := context.WithCancel(ctx)
	p.in, p.stop = inW, stop
	go func() {
		status, err := (&proxy.Relay{}).Run(runCtx, agent, inR, outW, nil)
		outW.Close()
		p.exited <- runResult{status, err}
	}()
	go readResponses(outR, p.notJSON, p.responses)
	return p
}

// send writes one request to the agent, without waiting on an agent that
// does not read.
func (p *probe) send(line string) {
	go func() { _, _ = io.WriteString(p.in, line) }()
}

// initialize asks the agent to initialize and reads its answer.
func (p *probe) initialize(ctx context.Context, timeout time.Duration) (*Answer, error) {
	p.send(initializeLine)
	r, err := p.await(ctx, initializeID, "initialize", timeout)
	if err != nil {
		return nil, err
	}
	if r.err != nil {
		return nil, fmt.Errorf("the agent refused initialize: %s (code %d)", r.err.Message, r.err.Code)
	}
	a := &Answer{}
	if err := json.Unmarshal(r.result, a); err != nil {
		return nil, fmt.Errorf("the agent's answer to initialize is not an initialize result: %v", err)
	}
	var members map[string]json.RawMessage
	_ = json.Unmarshal(r.result, &members)
	info := strings.TrimSpace(string(members["agentInfo"]))
	a.NoInfo = info == "" || info == "null"
	a.NotJSON = p.notJSON.get()
	return a, nil
}

// newSession asks the initialized agent for a session in dir.
func (p *probe) newSession(ctx context.Context, dir string, timeout time.Duration) *Session {
	p.send(sessionNewLine(dir))
	r, err := p.await(ctx, sessionNewID, "session/new", timeout)
	switch {
	case errors.Is(err, context.Canceled):
		return nil
	case errors.Is(err, errStdoutClosed):
		return &Session{NoAnswer: p.name + " closed its stdout before answering session/new" + lastWords(p.stderr.String())}
	case err != nil:
		return &Session{NoAnswer: err.Error()}
	case r.err != nil:
		return &Session{Refused: r.err}
	}
	var started struct {
		SessionID string `json:"sessionId"`
	}
	_ = json.Unmarshal(r.result, &started)
	return &Session{ID: started.SessionID}
}

// await waits for the answer to request id (method), the agent's end, the
// timeout or ctx.
func (p *probe) await(ctx context.Context, id int, method string, timeout time.Duration) (response, error) {
	if r, ok := p.early[id]; ok {
		return r, nil
	}
	if p.gone {
		return response{}, p.exitedFirst(method)
	}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for {
		select {
		case r := <-p.responses:
			if r.closed {
				// Unread, so that a later request sees it too.
				p.responses <- r
				return r, errStdoutClosed
			}
			if r.id == id {
				return r, nil
			}
			p.early[r.id] = r
		case p.exit = <-p.exited:
			p.gone = true
			return response{}, p.exitedFirst(method)
		case <-timer.C:
			return response{}, fmt.Errorf("%s did not answer %s within %s (--timeout to wait longer)%s",
				p.name, method, timeout, lastWords(p.stderr.String()))
		case <-ctx.Done():
			return response{}, ctx.Err()
		}
	}
}

// end closes the agent's stdin and waits for its end, which the proxy's
// shutdown brings (at once when err, the probe's error, is not its stdout's
// end); the error is err, or what its end says of it.
func (p *probe) end(err error) error {
	p.in.Close()
	if err != nil && !errors.Is(err, errStdoutClosed) {
		p.stop()
	}
	if p.gone {
		return err
	}
	p.exit, p.gone = <-p.exited, true
	switch {
	case errors.Is(err, errStdoutClosed):
		// It can no longer answer; its end, now that its stdin is
		// closed too (or the proxy's shutdown), says the rest.
		return p.exitedFirst("initialize")
	case p.exit.err != nil && err == nil:
		return p.exit.err
	}
	return err
}

// exitedFirst is the error of an agent that ended before it answered
// method.
func (p *probe) exitedFirst(method string) error {
	if p.exit.err != nil {
		return p.exit.err
	}
	return fmt.Errorf("%s exited (status %d) before answering %s%s", p.name, p.exit.status, method, lastWords(p.stderr.String()))
}

// errStdoutClosed is an agent's stdout that ended before the answer.
var errStdoutClosed = errors.New("stdout closed")

// readResponses reads the agent's stdout to its end: the answers to
// doctor's requests go to responses, then its end.
func readResponses(out io.Reader, notJSON *notJSONLines, responses chan<- response) {
	r := bufio.NewReaderSize(out, 64<<10)
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 {
			if resp, ok := parseLine(line, notJSON); ok {
				responses <- resp
			}
		}
		if err != nil {
			responses <- response{closed: true}
			return
		}
	}
}

// parseLine reads one line of the agent's: ok when it is the answer to one
// of doctor's requests.
func parseLine(line []byte, notJSON *notJSONLines) (resp response, ok bool) {
	var msg struct {
		ID     *json.RawMessage `json:"id"`
		Method string           `json:"method"`
		Result json.RawMessage  `json:"result"`
		Error  *RPCError        `json:"error"`
	}
	if json.Unmarshal(line, &msg) != nil {
		// A usage message's indentation is kept; its blank lines are not.
		if text := strings.TrimRight(plainText(string(line)), " \t\n"); text != "" {
			notJSON.add(text)
		}
		return response{}, false
	}
	if msg.ID == nil || msg.Method != "" {
		return response{}, false // a notification, or a request of its own
	}
	switch strings.TrimSpace(string(*msg.ID)) {
	case fmt.Sprint(initializeID):
		resp.id = initializeID
	case fmt.Sprint(sessionNewID):
		resp.id = sessionNewID
	default:
		return response{}, false
	}
	resp.result, resp.err = msg.Result, msg.Error
	return resp, true
}
