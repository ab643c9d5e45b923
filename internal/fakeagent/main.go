// Command fakeagent is a stand-in ACP agent for the relay's end-to-end tests.
// It does exactly what its flags say, so each test names the agent
// behaviour it is about (echoing, crashing, ignoring EOF, dying of a
// signal, …) without a real agent's timing.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"time"
)

// options are the flags: what the agent does, and in which order main does it.
type options struct {
	// what it writes
	printPID, echo, child      bool
	setsid                     bool
	emit, stderrText           string
	huge, pauseLine, waitLines int

	// how it ends
	ignoreEOF, ignoreTerm, reportSignals, closeStdout bool
	crash                                             string
	exitCode, dieSignal                               int
}

func parseFlags() options {
	var o options
	flag.BoolVar(&o.echo, "echo", false, "copy every stdin line to stdout until EOF")
	flag.StringVar(&o.emit, "emit", "", "write this file to stdout first")
	flag.IntVar(&o.huge, "huge", 0, `write one line {"jsonrpc":"2.0","method":"x","params":"aaa…"} of this many bytes first`)
	flag.IntVar(&o.pauseLine, "pause-line", 0, `write the first N bytes of a line like --huge's of 2N bytes, then wait for a line on stdin before the rest`)
	flag.StringVar(&o.stderrText, "stderr", "", "write this to stderr first")
	flag.BoolVar(&o.ignoreEOF, "ignore-eof", false, "keep running after stdin ends, like codex-acp")
	flag.BoolVar(&o.ignoreTerm, "ignore-term", false, "ignore SIGTERM (only SIGKILL stops it)")
	flag.BoolVar(&o.reportSignals, "report-signals", false, `on SIGINT/SIGHUP/SIGTERM write {"signal":"NAME"} and exit 128+N`)
	flag.IntVar(&o.exitCode, "exit", 0, "exit with this code when done")
	flag.StringVar(&o.crash, "crash", "", "write this unterminated text, then die of SIGKILL")
	flag.BoolVar(&o.closeStdout, "close-stdout", false, "close stdout when done writing, then wait for stdin EOF")
	flag.IntVar(&o.dieSignal, "die-signal", 0, "when done, kill itself with this signal")
	flag.IntVar(&o.waitLines, "wait-lines", 0, "read this many stdin lines (discarded) before writing anything")
	flag.BoolVar(&o.printPID, "print-pid", false, `first write {"pid":N}`)
	flag.BoolVar(&o.child, "child", false, `first start a copy of itself that ignores EOF and SIGTERM and shares its stdout, as an npm launcher starts the native agent, and write {"child":N}`)
	flag.BoolVar(&o.setsid, "setsid", false, "with --child: start the child in a session of its own (Unix), as codex starts each command")
	flag.Parse()
	return o
}

func main() {
	o := parseFlags()
	o.handleSignals()
	if o.stderrText != "" {
		fmt.Fprint(os.Stderr, o.stderrText)
	}
	out := bufio.NewWriterSize(os.Stdout, 1<<16)
	in := bufio.NewReaderSize(os.Stdin, 1<<16)
	o.writeFirst(out, in)
	if o.crash != "" {
		os.Stdout.WriteString(o.crash)
		dieOf(syscall.SIGKILL)
	}
	if o.closeStdout {
		os.Stdout.Close()
	}
	if o.echo {
		echo(in, out)
	} else {
		_, _ = io.Copy(io.Discard, in)
	}
	if o.ignoreEOF {
		time.Sleep(time.Hour)
	}
	if o.dieSignal != 0 {
		dieOf(syscall.Signal(o.dieSignal))
	}
	os.Exit(o.exitCode)
}

func (o options) handleSignals() {
	if o.ignoreTerm {
		signal.Ignore(syscall.SIGTERM)
	}
	if o.reportSignals {
		sigs := make(chan os.Signal, 1)
		signal.Notify(sigs, syscall.SIGINT, syscall.SIGHUP, syscall.SIGTERM)
		go func() {
			s := <-sigs
			fmt.Printf("{\"signal\":%q}\n", s.(syscall.Signal).String())
			os.Exit(128 + int(s.(syscall.Signal)))
		}()
	}
}

// writeFirst writes, and flushes, what the agent says before it reads its
// input.
func (o options) writeFirst(out *bufio.Writer, in *bufio.Reader) {
	if o.printPID {
		fmt.Fprintf(out, "{\"pid\":%d}\n", os.Getpid())
		out.Flush()
	}
	if o.child {
		fmt.Fprintf(out, "{\"child\":%d}\n", startChild(o.setsid))
		out.Flush()
	}
	for range o.waitLines {
		if _, err := in.ReadString('\n'); err != nil {
			break
		}
	}
	if o.emit != "" {
		emitFile(out, o.emit)
	}
	if o.huge > 0 {
		writeHuge(out, o.huge, o.huge)
		out.WriteString("\n")
	}
	if o.pauseLine > 0 {
		writeHuge(out, 2*o.pauseLine, o.pauseLine)
		out.Flush()
		if _, err := in.ReadString('\n'); err != nil {
			fail("pause-line:", err)
		}
		writeHuge(out, 2*o.pauseLine, -o.pauseLine)
		out.WriteString("\n")
	}
	out.Flush()
}

// startChild starts a copy of this agent that only an end of its whole
// process tree stops: it ignores EOF and SIGTERM. Its stdin is /dev/null,
// so that it takes nothing meant for its parent; its stdout and stderr are
// its parent's, as a launcher's child has them. With setsid it leads a
// session of its own, out of every process group of its parent's.
func startChild(setsid bool) int {
	exe, err := os.Executable()
	if err != nil {
		fail("child:", err)
	}
	cmd := exec.Command(exe, "--ignore-eof", "--ignore-term")
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if setsid {
		newSession(cmd)
	}
	if err := cmd.Start(); err != nil {
		fail("child:", err)
	}
	return cmd.Process.Pid
}

func emitFile(out *bufio.Writer, path string) {
	f, err := os.Open(path)
	if err != nil {
		fail(err)
	}
	defer f.Close()
	if _, err := io.Copy(out, f); err != nil {
		fail(err)
	}
}

// fail says why on stderr and exits 99: the test named a flag it cannot follow.
func fail(why ...any) {
	fmt.Fprintln(os.Stderr, why...)
	os.Exit(99)
}

// echo copies every line of in to out until EOF, flushing when no more
// input is waiting, so a line of any size goes through.
func echo(in *bufio.Reader, out *bufio.Writer) {
	for {
		b, err := in.ReadSlice('\n')
		out.Write(b)
		if err == bufio.ErrBufferFull {
			continue
		}
		if in.Buffered() == 0 {
			out.Flush()
		}
		if err != nil {
			break
		}
	}
	out.Flush()
}

// writeHuge writes the line {"jsonrpc":"2.0","method":"x","params":"aaa…"}
// of size bytes, without its '\n': the first part bytes of it, or with part
// < 0 all but the first -part, or with part == size all of it. The line is
// made as it goes: the agent's own memory counts in the proxy's rusage.
func writeHuge(out *bufio.Writer, size, part int) {
	const head, tail = `{"jsonrpc":"2.0","method":"x","params":"`, `"}`
	chunk := strings.Repeat("a", 1<<16)
	from, to := 0, part
	if part < 0 {
		from, to = -part, size
	}
	for i := from; i < to; {
		var s string
		switch {
		case i < len(head):
			s = head[i:]
		case i < size-len(tail):
			s = chunk[:min(len(chunk), size-len(tail)-i)]
		default:
			s = tail[i-(size-len(tail)):]
		}
		s = s[:min(len(s), to-i)]
		out.WriteString(s)
		i += len(s)
	}
}

// dieOf sends sig to the agent itself (on Windows only SIGKILL can be sent,
// as a kill) and waits for it to take effect.
func dieOf(sig syscall.Signal) {
	if p, err := os.FindProcess(os.Getpid()); err == nil {
		_ = p.Signal(sig)
	}
	time.Sleep(time.Hour)
}
