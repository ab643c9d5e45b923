package agentproc

import (
	"context"
	"os"
	"os/signal"
)

// RunAttached runs the agent on the proxy's own stdin, stdout and stderr,
// with nothing in between, and returns its exit status. Windows has no
// exec(2): the agent is a child in a kill-on-close job (see osProcess),
// and the proxy waits for it, ignoring Ctrl-C and Ctrl-Break, which the
// agent receives itself on the shared console.
func (a Agent) RunAttached() (int, error) {
	path, err := a.Resolve()
	if err != nil {
		return 0, err
	}
	cmd, err := a.command(context.Background(), path)
	if err != nil {
		return 0, err
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt)
	defer signal.Stop(sigs)
	p := newOSProcess(cmd, nil, 0)
	exited := make(chan error, 1)
	if err := p.startAndWait(exited); err != nil {
		return 0, startError(a.Argv[0], err)
	}
	defer p.release()
	for {
		select {
		case <-sigs:
		case <-exited:
			return exitCode(cmd.ProcessState), nil
		}
	}
}
