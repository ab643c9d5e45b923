package main

import (
	"bytes"
	"fmt"
	"os"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// openPTY returns the terminal end of a new pseudo-terminal.
func openPTY(t *testing.T) *os.File {
	t.Helper()
	ptmx, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	t.Cleanup(func() { ptmx.Close() })
	require.NoError(t, unix.IoctlSetPointerInt(int(ptmx.Fd()), unix.TIOCSPTLCK, 0))
	n, err := unix.IoctlGetInt(int(ptmx.Fd()), unix.TIOCGPTN)
	require.NoError(t, err)
	tty, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	require.NoError(t, err)
	t.Cleanup(func() { tty.Close() })
	return tty
}

// Nobody types a trace: with no TRACE and a terminal on stdin, replay and
// view say so at once rather than wait.
func TestTraceCommandsRefuseATerminalOnStdin(t *testing.T) {
	tty := openPTY(t)
	for _, args := range [][]string{{"replay"}, {"replay", "--summary", "-"}, {"view", "-o", t.TempDir() + "/p.html"}} {
		var stdout, stderr bytes.Buffer
		code := run(args, tty, &stdout, &stderr)
		assert.Equal(t, exitUsage, code, "%q", args)
		assert.Equal(t, "acp-proxy "+args[0]+": no TRACE given, and stdin is a terminal: name a trace file, or pipe one in\n", stderr.String())
	}
}
