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

// DefaultTimeout is how long an agent gets to answer initialize: npx may
// first fetch a package.
const DefaultTimeout = 30 * time.Second

// initializeID is the id of the one request doctor sends.
const initializeID = 0

// initializeLine is the initialize request of a client without the
// terminal-output extension, in the shape Zed sends (protocol version 1):
// what the agent says does not depend on the client's capabilities, and a
// client that offers no fs or terminal methods is never asked to run one.
const initializeLine = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,` +
	`"clientCapabilities":{"fs":{"readTextFile":false,"writeTextFile":false},"terminal":false},` +
	`"clientInfo":{"name":"acp-proxy-doctor","title":"acp-proxy doctor","version":"1"}}}` + "\n"

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
}

// AgentInfo is the agent's agentInfo.
type AgentInfo struct{ Name, Title, Version string }

// AuthMethod is one of the agent's authMethods; Vars are the variables
// an env_var method reads.
type AuthMethod struct {
	ID, Name, Description, Type string
	Vars                        []AuthVar
}

// maxNotJSON is how many non-JSON stdout lines an Answer keeps.
const maxNotJSON = 8

// Probe starts argv as the proxy starts an agent (PATH lookup, process
// group, shutdown), in a temporary directory it removes afterwards, so that
// nothing lands in the user's project; sends initialize and waits at most
// timeout for the answer; then closes the agent's stdin and lets the
// proxy's shutdown end it. env is the agent's environment (nil: this
// process's); the agent is found on this process's PATH, as the proxy finds
// it. A start failure is a *proxy.StartError.
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
	stderr := tailbuf.New(4 << 10)
	agent.Dir, agent.Stderr = dir, stderr

	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	exited := make(chan runResult, 1)
	go func() {
		status, err := (&proxy.Relay{}).Run(runCtx, agent, inR, outW, nil)
		outW.Close()
		exited <- runResult{status, err}
	}()
	answered := make(chan readResult, 1)
	seen := &notJSONLines{}
	go func() { answered <- readAnswer(outR, seen) }()
	go func() { _, _ = io.WriteString(inW, initializeLine) }()

	a, gone, err := await(ctx, answered, exited, timeout, argv[0], stderr)
	inW.Close()
	if err != nil && !errors.Is(err, errStdoutClosed) {
		stop()
	}
	go func() { _, _ = io.Copy(io.Discard, outR) }()
	if !gone {
		r := <-exited
		switch {
		case errors.Is(err, errStdoutClosed):
			// It can no longer answer; its end, now that its stdin is
			// closed too (or the proxy's shutdown), says the rest.
			err = exitedFirst(argv[0], r, stderr)
		case r.err != nil && err == nil:
			err = r.err
		}
	}
	if a != nil {
		a.Path = path
		if real, err := filepath.EvalSymlinks(path); err == nil {
			a.RealPath = real
		}
	}
	if err != nil && !errors.Is(err, context.Canceled) {
		// A usage message on stdout is most often why an agent did not
		// answer: the error carries it, to be shown.
		err = &ProbeError{Err: err, Stdout: seen.get()}
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

type readResult struct {
	answer *Answer
	err    error
}

// await waits for the answer, the agent's end (gone), the timeout or ctx.
func await(ctx context.Context, answered <-chan readResult, exited <-chan runResult, timeout time.Duration, name string, stderr *tailbuf.Buffer) (a *Answer, gone bool, err error) {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case r := <-answered:
		return r.answer, false, r.err
	case r := <-exited:
		return nil, true, exitedFirst(name, r, stderr)
	case <-timer.C:
		return nil, false, fmt.Errorf("%s did not answer initialize within %s (--timeout to wait longer)%s", name, timeout, lastWords(stderr.String()))
	case <-ctx.Done():
		return nil, false, ctx.Err()
	}
}

// exitedFirst is the error of an agent that ended before it answered.
func exitedFirst(name string, r runResult, stderr *tailbuf.Buffer) error {
	if r.err != nil {
		return r.err
	}
	return fmt.Errorf("%s exited (status %d) before answering initialize%s", name, r.status, lastWords(stderr.String()))
}

// errStdoutClosed is an agent's stdout that ended before the answer.
var errStdoutClosed = errors.New("stdout closed")

// readAnswer reads the agent's stdout until the answer to initialize.
func readAnswer(out io.Reader, notJSON *notJSONLines) readResult {
	r := bufio.NewReaderSize(out, 64<<10)
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 {
			a, done, rerr := parseLine(line, notJSON)
			if done {
				if a != nil {
					a.NotJSON = notJSON.get()
				}
				return readResult{a, rerr}
			}
		}
		if err != nil {
			return readResult{nil, errStdoutClosed}
		}
	}
}

// parseLine reads one line of the agent's: done when it is the answer to
// initialize (an Answer, or the error it answered).
func parseLine(line []byte, notJSON *notJSONLines) (a *Answer, done bool, err error) {
	var msg struct {
		ID     *json.RawMessage `json:"id"`
		Method string           `json:"method"`
		Result json.RawMessage  `json:"result"`
		Error  *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(line, &msg) != nil {
		// A usage message's indentation is kept; its blank lines are not.
		if text := strings.TrimRight(plainText(string(line)), " \t\n"); text != "" {
			notJSON.add(text)
		}
		return nil, false, nil
	}
	if msg.ID == nil || msg.Method != "" || strings.TrimSpace(string(*msg.ID)) != fmt.Sprint(initializeID) {
		return nil, false, nil // a notification, or a request of its own
	}
	if msg.Error != nil {
		return nil, true, fmt.Errorf("the agent refused initialize: %s (code %d)", msg.Error.Message, msg.Error.Code)
	}
	a = &Answer{}
	if err := json.Unmarshal(msg.Result, a); err != nil {
		return nil, true, fmt.Errorf("the agent's answer to initialize is not an initialize result: %v", err)
	}
	return a, true, nil
}
