package proxy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/internal/agentproc"
)

// Agent is how to start the agent process: its argv, environment, working
// directory and stderr, and the grace it gets to exit once the client is
// gone. Resolve finds it on PATH as a shell would, never in the current
// directory; RunAttached runs it with nothing in between, for a terminal.
type Agent = agentproc.Agent

// StartError is an agent that could not be started. Code is the shell's
// convention: 127 not found, 126 found but not executable.
type StartError = agentproc.StartError

// DefaultGrace is the grace of an Agent whose Grace is zero.
const DefaultGrace = agentproc.DefaultGrace

// NoGrace as Agent.Grace is none: SIGTERM as soon as the client is gone,
// SIGKILL right after it (--grace 0).
const NoGrace = agentproc.NoGrace

// Run starts the agent, relays between the client's stdin/stdout and it,
// and returns the agent's exit status: its code, or 128+N if it died of
// signal N. A failure to start it is a *StartError. Signals received on
// sigs are forwarded to the agent (on Windows they are not: the agent
// shares the proxy's console and receives Ctrl-C and Ctrl-Break itself).
//
// Shutdown follows the agent: when its stdout ends, everything it wrote
// has been delivered and Run waits for it to exit. When the client closes
// stdin (or stops reading), the agent's stdin is closed, then the agent
// gets Grace to exit, then SIGTERM, then after Grace again SIGKILL.
// Cancelling ctx stops the agent the same way, from the SIGTERM step on;
// Run still delivers what the agent wrote until then and returns its
// status.
func (r *Relay) Run(ctx context.Context, a Agent, stdin io.Reader, stdout io.Writer, sigs <-chan os.Signal) (int, error) {
	agent, err := agentproc.Start(ctx, a, r.log())
	if err != nil {
		return 0, err
	}
	conn := r.Open(agent.Stdin(), stdout)
	go r.pumpClientToAgent(conn, stdin, agent)
	read := make(chan struct{})
	go func() {
		defer close(read)
		r.pumpAgentToClient(conn, agent)
	}()
	return agent.Wait(sigs, read), nil
}

// pumpClientToAgent relays the client's stdin to the agent until it ends,
// then closes the agent's stdin and stops the agent.
func (r *Relay) pumpClientToAgent(c *Conn, stdin io.Reader, agent *agentproc.Process) {
	err := c.Pump(acp.ClientToAgent, stdin)
	if cerr := c.CloseWriter(acp.ClientToAgent); err == nil && cerr != nil && !errors.Is(cerr, os.ErrClosed) {
		err = fmt.Errorf("closing agent stdin: %w", cerr)
	}
	if err != nil {
		r.log().Warn("client→agent pump ended", "err", err)
	}
	agent.Stop("stdin closed")
}

// pumpAgentToClient relays the agent's stdout to the client until it ends,
// then closes the client's stdout. When the client stops reading, the agent
// is stopped.
func (r *Relay) pumpAgentToClient(c *Conn, agent *agentproc.Process) {
	err := c.Pump(acp.AgentToClient, agent.Stdout())
	if err != nil {
		r.log().Warn("agent→client pump ended", "err", err)
		agent.Stop("stdout write failed")
	}
	if cerr := c.CloseWriter(acp.AgentToClient); cerr != nil && err == nil {
		r.log().Debug("closing stdout", "err", cerr)
	}
}
