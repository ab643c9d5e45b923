//go:build unix

package agentproc

import (
	"fmt"
	"os"
	"syscall"
)

// RunAttached runs the agent on the proxy's own stdin, stdout and stderr,
// with nothing in between, and returns its exit status. On Unix the proxy
// becomes the agent (exec(2)), so it returns only when that fails: a
// *StartError, or 126 with the exec error.
func (a Agent) RunAttached() (int, error) {
	path, err := a.Resolve()
	if err != nil {
		return 0, err
	}
	env := a.Env
	if env == nil {
		env = os.Environ()
	}
	if a.Dir != "" {
		if err := os.Chdir(a.Dir); err != nil {
			return 0, &StartError{Code: 126, Err: fmt.Errorf("%s: %w", a.Argv[0], err)}
		}
	}
	err = syscall.Exec(path, a.Argv, env)
	return 0, &StartError{Code: 126, Err: fmt.Errorf("exec %s: %w", a.Argv[0], err)}
}
