package agentproc

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Resolve finds the agent's executable, as a shell would. A failure is a
// *StartError.
func (a Agent) Resolve() (string, error) {
	if len(a.Argv) == 0 {
		return "", &StartError{Code: 2, Err: errors.New("no agent command")}
	}
	path, err := lookPathOutsideDot(a.Argv[0])
	switch {
	case err == nil:
		return path, nil
	case errors.Is(err, exec.ErrDot):
		return "", &StartError{Code: 126, Err: fmt.Errorf("%s: found only in the current directory; name it with a path (.%c%s) to run it", a.Argv[0], os.PathSeparator, a.Argv[0])}
	case errors.Is(err, fs.ErrPermission):
		return "", &StartError{Code: 126, Err: fmt.Errorf("%s: permission denied", a.Argv[0])}
	case errors.Is(err, exec.ErrNotFound), errors.Is(err, fs.ErrNotExist):
		return "", &StartError{Code: 127, Err: fmt.Errorf("%s: command not found", a.Argv[0])}
	default:
		return "", &StartError{Code: 126, Err: fmt.Errorf("%s: %w", a.Argv[0], err)}
	}
}

// lookPathOutsideDot is exec.LookPath for a command name, except that the
// current directory is never searched implicitly.
//
// exec.LookPath searches as the system's shell does: PATH in order, and on
// Windows as cmd.exe does, the current directory first, then PATH, each
// directory with every PATHEXT extension in order (npx → npx.cmd). A file
// found through the current directory (on Windows, or through "." or
// another relative entry in PATH) it reports as exec.ErrDot instead of
// running it. So does the proxy: an editor starts agents in the user's
// project, and a file there must not choose the agent. But where PATH's
// absolute directories have the command too, that one is run, as with
// NoDefaultCurrentDirectoryInExePath on Windows.
func lookPathOutsideDot(name string) (string, error) {
	path, err := exec.LookPath(name)
	if !errors.Is(err, exec.ErrDot) || strings.ContainsAny(name, `/\:`) {
		return path, err
	}
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if !filepath.IsAbs(dir) {
			continue
		}
		// Given a directory, LookPath tries the PATHEXT extensions on
		// Windows but searches nowhere else.
		if p, derr := exec.LookPath(filepath.Join(dir, name)); derr == nil {
			return p, nil
		}
	}
	return "", err
}
