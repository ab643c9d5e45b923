package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
	"unsafe"

	"github.com/acp-proxy/acp-proxy/proxy"
)

// isTerminal reports whether f is a terminal (not merely a character
// device: /dev/null is one of those too).
func isTerminal(f *os.File) bool {
	var t syscall.Termios
	_, _, errno := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), ioctlGetTermios, uintptr(unsafe.Pointer(&t)))
	return errno == 0
}

// execDirect replaces the proxy with the agent, keeping the terminal.
func execDirect(a proxy.Agent, stderr io.Writer) int {
	path, err := a.Resolve()
	if err != nil {
		var se *proxy.StartError
		errors.As(err, &se)
		fmt.Fprintf(stderr, "acp-proxy: %v\n", err)
		return se.Code
	}
	err = syscall.Exec(path, a.Argv, os.Environ())
	fmt.Fprintf(stderr, "acp-proxy: exec %s: %v\n", joinArgv(a.Argv), err)
	return 126
}
