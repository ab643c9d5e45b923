package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"golang.org/x/term"

	"github.com/acp-proxy/acp-proxy/proxy"
)

// isTerminal reports whether f is a terminal (not merely a character
// device: /dev/null is one of those too, and the NUL device on Windows).
func isTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }

// execDirect runs the agent on the proxy's own terminal, with nothing in
// between: on Unix the proxy becomes the agent, on Windows it waits for it
// and exits with its status.
func execDirect(a proxy.Agent, stderr io.Writer) int {
	code, err := a.RunAttached()
	if err != nil {
		var se *proxy.StartError
		if errors.As(err, &se) {
			code = se.Code
		} else {
			code = 126
		}
		fmt.Fprintf(stderr, "acp-proxy: %v\n", err)
	}
	return code
}
