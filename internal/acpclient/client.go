package acpclient

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/internal/procgroup"
	"github.com/acp-proxy/acp-proxy/internal/tailbuf"
)

// DefaultTimeout bounds each request when Options.Timeout is zero.
const DefaultTimeout = 2 * time.Minute

// stderrKeep is how much of the agent's stderr a Client keeps.
const stderrKeep = 256 << 10

// killGrace is how long the agent gets between SIGTERM and SIGKILL at cleanup.
const killGrace = 2 * time.Second

// Options says what to launch and how the client behaves.
type Options struct {
	Argv []string // the command; Argv[0] is looked up in PATH
	Env  []string // nil: inherit the test's environment
	Dir  string   // working directory; also the session cwd in Run

	// Capabilities is the clientCapabilities JSON sent in initialize;
	// empty means PlainCapabilities.
	Capabilities string
	// Timeout bounds each request; zero means DefaultTimeout.
	Timeout time.Duration
	// MaxRetainedBytes caps the line bodies kept for Lines and ToolCalls.
	// Past it, lines keep their metadata but Raw is nil. The last update of
	// each tool call is kept regardless. Zero means keep everything.
	MaxRetainedBytes int64
	// OnLine, if set, sees every received line on the reader goroutine,
	// before the client acts on it. It must not block or modify l.Raw.
	OnLine func(l Line)
}

// Client is a running agent process and the client end of its ACP connection.
type Client struct {
	t       testing.TB
	opts    Options
	cmd     *exec.Cmd
	stdin   *os.File // our write end of the agent's stdin
	stdout  *os.File // our read end of the agent's stdout
	stderr  *tailbuf.Buffer
	started time.Time

	writeMu sync.Mutex // one writer: whole lines only

	mu         sync.Mutex // guards everything below
	nextID     int64
	pending    map[string]chan Response // by request id, as compact JSON
	lines      []Line
	retained   int64
	sent       [][]byte
	stats      Stats
	toolCalls  []*toolCallLines
	toolByID   map[string]*toolCallLines
	perms      []json.RawMessage
	badLines   []string
	readErr    error         // why reading stopped (io.EOF included)
	readDone   chan struct{} // closed when the reader goroutine ends
	changed    chan struct{} // closed and replaced on every received line
	waitDone   chan struct{} // closed when cmd.Wait returns
	initResult json.RawMessage
	checkLeft  func() // fails the test if anything the process started outlived it
}

// Start launches opts.Argv with pipes and starts reading its stdout. The
// process group is terminated when the test ends.
func Start(t testing.TB, opts Options) *Client {
	t.Helper()
	require.NotEmpty(t, opts.Argv, "acpclient.Start: empty Argv")
	if opts.Capabilities == "" {
		opts.Capabilities = PlainCapabilities
	}
	if opts.Timeout == 0 {
		opts.Timeout = DefaultTimeout
	}
	c := &Client{
		t:        t,
		opts:     opts,
		stderr:   tailbuf.New(stderrKeep),
		nextID:   1,
		pending:  map[string]chan Response{},
		toolByID: map[string]*toolCallLines{},
		readDone: make(chan struct{}),
		changed:  make(chan struct{}),
		waitDone: make(chan struct{}),
	}
	require.NoError(t, c.launch(), "acpclient.Start %q", opts.Argv)
	// Whatever the process starts must end with it: an agent's process
	// left running is a leak the proxy promises never to cause.
	c.checkLeft = procgroup.Watch(t, c.cmd.Process.Pid)
	t.Cleanup(c.stop)
	go c.readLoop()
	go func() {
		_ = c.cmd.Wait()
		close(c.waitDone)
	}()
	return c
}

// launch starts the process. Plain os.Pipe files (not StdoutPipe) keep
// cmd.Wait from closing stdout before the reader has drained it.
func (c *Client) launch() error {
	inR, inW, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("stdin pipe: %w", err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return fmt.Errorf("stdout pipe: %w", err)
	}
	cmd := exec.Command(c.opts.Argv[0], c.opts.Argv[1:]...)
	cmd.Env = c.opts.Env
	cmd.Dir = c.opts.Dir
	cmd.Stdin = inR
	cmd.Stdout = outW
	cmd.Stderr = c.stderr
	// A process group, so cleanup also ends the agent's children (the
	// Claude CLI, codex's shells).
	procgroup.Set(cmd)
	cmd.WaitDelay = killGrace
	err = cmd.Start()
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return fmt.Errorf("start: %w", err)
	}
	c.cmd, c.stdin, c.stdout, c.started = cmd, inW, outR, time.Now()
	return nil
}

// stop ends the agent: close its stdin (codex ignores that), SIGTERM the
// group, SIGKILL it after killGrace, then stop reading.
func (c *Client) stop() {
	c.stdin.Close()
	pgid := c.cmd.Process.Pid
	signalGroup(pgid, syscall.SIGTERM)
	select {
	case <-c.waitDone:
	case <-time.After(killGrace):
		signalGroup(pgid, syscall.SIGKILL)
		<-c.waitDone
	}
	// Children that outlived the leader would keep the pipes open.
	signalGroup(pgid, syscall.SIGKILL)
	c.stdout.Close()
	<-c.readDone
	// Only what left the group (a proxy's agent has a group of its own)
	// can be left now.
	c.checkLeft()
}

func signalGroup(pgid int, sig syscall.Signal) {
	if err := procgroup.Signal(pgid, sig); err != nil {
		fmt.Fprintf(os.Stderr, "acpclient: signal process group %d: %v\n", pgid, err)
	}
}

// Stderr returns the tail of the agent's stderr.
func (c *Client) Stderr() string { return c.stderr.String() }

// PID is the agent's process id, which is also its process group id.
func (c *Client) PID() int { return c.cmd.Process.Pid }

// CloseStdin closes the process's stdin, as an editor does to end a
// session.
func (c *Client) CloseStdin() error { return c.stdin.Close() }

// EditorDies closes both ends of the process's stdio the client holds, as
// the kernel closes them when the editor is killed.
func (c *Client) EditorDies() error {
	return errors.Join(c.stdin.Close(), c.stdout.Close())
}

// Exited is closed when the process has exited.
func (c *Client) Exited() <-chan struct{} { return c.waitDone }
