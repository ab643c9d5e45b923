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
	"os/signal"
	"strings"
	"syscall"
	"time"
)

func main() {
	var (
		echo       = flag.Bool("echo", false, "copy every stdin line to stdout until EOF")
		emit       = flag.String("emit", "", "write this file to stdout first")
		huge       = flag.Int("huge", 0, `write one line {"jsonrpc":"2.0","method":"x","params":"aaa…"} of this many bytes first`)
		pauseLine  = flag.Int("pause-line", 0, `write the first N bytes of a line like --huge's of 2N bytes, then wait for a line on stdin before the rest`)
		stderrText = flag.String("stderr", "", "write this to stderr first")
		ignoreEOF  = flag.Bool("ignore-eof", false, "keep running after stdin ends, like codex-acp")
		ignoreTerm = flag.Bool("ignore-term", false, "ignore SIGTERM (only SIGKILL stops it)")
		reportSig  = flag.Bool("report-signals", false, `on SIGINT/SIGHUP/SIGTERM write {"signal":"NAME"} and exit 128+N`)
		exitCode   = flag.Int("exit", 0, "exit with this code when done")
		crash      = flag.String("crash", "", "write this unterminated text, then die of SIGKILL")
		closeOut   = flag.Bool("close-stdout", false, "close stdout when done writing, then wait for stdin EOF")
		dieSignal  = flag.Int("die-signal", 0, "when done, kill itself with this signal")
		waitLines  = flag.Int("wait-lines", 0, "read this many stdin lines (discarded) before writing anything")
		printPID   = flag.Bool("print-pid", false, `first write {"pid":N}`)
	)
	flag.Parse()
	if *ignoreTerm {
		signal.Ignore(syscall.SIGTERM)
	}
	if *reportSig {
		sigs := make(chan os.Signal, 1)
		signal.Notify(sigs, syscall.SIGINT, syscall.SIGHUP, syscall.SIGTERM)
		go func() {
			s := <-sigs
			fmt.Printf("{\"signal\":%q}\n", s.(syscall.Signal).String())
			os.Exit(128 + int(s.(syscall.Signal)))
		}()
	}
	if *stderrText != "" {
		fmt.Fprint(os.Stderr, *stderrText)
	}
	out := bufio.NewWriterSize(os.Stdout, 1<<16)
	if *printPID {
		fmt.Fprintf(out, "{\"pid\":%d}\n", os.Getpid())
		out.Flush()
	}
	in := bufio.NewReaderSize(os.Stdin, 1<<16)
	for range *waitLines {
		if _, err := in.ReadString('\n'); err != nil {
			break
		}
	}
	if *emit != "" {
		f, err := os.Open(*emit)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(99)
		}
		if _, err := io.Copy(out, f); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(99)
		}
		f.Close()
	}
	if *huge > 0 {
		writeHuge(out, *huge, *huge)
		out.WriteString("\n")
	}
	if *pauseLine > 0 {
		writeHuge(out, 2**pauseLine, *pauseLine)
		out.Flush()
		if _, err := in.ReadString('\n'); err != nil {
			fmt.Fprintln(os.Stderr, "pause-line:", err)
			os.Exit(99)
		}
		writeHuge(out, 2**pauseLine, -*pauseLine)
		out.WriteString("\n")
	}
	out.Flush()
	if *crash != "" {
		os.Stdout.WriteString(*crash)
		die(syscall.SIGKILL)
		time.Sleep(time.Hour)
	}
	if *closeOut {
		os.Stdout.Close()
	}
	if *echo {
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
	} else {
		_, _ = io.Copy(io.Discard, in)
	}
	if *ignoreEOF {
		time.Sleep(time.Hour)
	}
	if *dieSignal != 0 {
		die(syscall.Signal(*dieSignal))
		time.Sleep(time.Hour)
	}
	os.Exit(*exitCode)
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

// die sends sig to the agent itself (on Windows only SIGKILL can be sent,
// as a kill).
func die(sig syscall.Signal) {
	if p, err := os.FindProcess(os.Getpid()); err == nil {
		_ = p.Signal(sig)
	}
}
