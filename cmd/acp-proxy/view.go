package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	"github.com/acp-proxy/acp-proxy/filters"
	"github.com/acp-proxy/acp-proxy/internal/view"
)

const viewUsage = `acp-proxy view makes one self-contained HTML page of a recorded trace: the
session, a timeline, every tool call as the client showed it, the
conversation, and every message. With filter flags the trace is first
replayed through them, as acp-proxy replay does, and the page shows each
message before and after the filters.

Usage:
  acp-proxy view [filter flags] [-o FILE.html] [TRACE|-]
  acp-proxy view --follow [--serve HOST:PORT] TRACE

The page goes to TRACE.html beside the trace (TRACE without its .jsonl or
.jsonl.gz: a trace may be gzip'd),
or to -o FILE; -o - writes it to stdout. A trace read from stdin writes
the page to stdout unless -o says otherwise (never to a terminal). It
shows the session: a new page is readable by you only; a page it
replaces keeps that file's mode.

With --follow, no page is written: the page of TRACE is served while
another proxy (acp-proxy --record TRACE) is still writing it, and updates
as records are added, until Ctrl-C. Its URL, with a random token, goes to
stderr; it listens on loopback unless --serve names another address.

Examples:
  acp-proxy view --deltas testdata/traces/codex-0.13-plain-shell-900.jsonl
  acp-proxy view -o /tmp/session.html /tmp/session.jsonl
  acp-proxy replay --deltas in.jsonl | acp-proxy view -o out.html
  acp-proxy view --follow /tmp/session.jsonl

Flags:
`

func runView(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs, cfg := traceFlagSet("acp-proxy view", stderr)
	filterFlags := map[string]bool{}
	fs.VisitAll(func(f *pflag.Flag) { filterFlags[f.Name] = true })
	output := new(string)
	pathVarP(fs, output, "output", "o", "write the page to this file (-: stdout); default: TRACE.html beside the trace")
	follow := fs.Bool("follow", false, "serve a live page of TRACE while another proxy records it, instead of writing a page (until Ctrl-C)")
	serve := fs.String("serve", ":0", "with --follow: serve the page at HOST:PORT (:0: any free port on loopback)")
	in, name, done, code := openTraceArgs(fs, args, viewUsage, "acp-proxy view [filter flags] [-o FILE.html] [TRACE|-]; acp-proxy view --follow [--serve ADDR] TRACE", stdin, stdout, stderr)
	if code >= 0 {
		return code
	}
	defer done()
	if *follow || fs.Changed("serve") {
		return runFollow(fs, filterFlags, *follow, *serve, in.src, name, stderr)
	}
	dest := *output
	if dest == "" {
		dest = "-"
		if name != "-" {
			dest = strings.TrimSuffix(strings.TrimSuffix(name, ".gz"), ".jsonl") + ".html"
		}
	}
	if f, ok := stdout.(*os.File); ok && dest == "-" && isTerminal(f) {
		fmt.Fprintln(stderr, "acp-proxy view: not writing a page to a terminal; use -o FILE.html")
		return exitUsage
	}

	var flags []string
	fs.Visit(func(f *pflag.Flag) {
		if !filterFlags[f.Name] {
			return
		}
		if f.Value.Type() == "bool" {
			flags = append(flags, "--"+f.Name)
		} else {
			flags = append(flags, "--"+f.Name+"="+f.Value.String())
		}
	})
	chain := traceChain("acp-proxy view", name, *cfg, stderr)
	newChain := func() *filters.Chain { return traceChain("acp-proxy view", name, *cfg, stderr) }
	data, err := view.Build(context.Background(), in, view.Options{Name: filepath.Base(name), Chain: chain, Flags: flags, NewChain: newChain})
	if err != nil {
		return traceFailed("acp-proxy view", name, err, stderr)
	}
	if emptyTrace("acp-proxy view", name, in, stderr) {
		return 1
	}
	if err := writePage(dest, stdout, data); err != nil {
		fmt.Fprintf(stderr, "acp-proxy view: %v\n", err)
		return 1
	}
	if dest != "-" {
		fmt.Fprintf(stderr, "acp-proxy view: wrote %s\n", dest)
	}
	return 0
}

// writePage writes the page to dest ("-": stdout). A file is written
// under a temporary name and renamed, so a failure leaves no half page;
// errors name dest, never the temporary file.
func writePage(dest string, stdout io.Writer, data *view.Data) error {
	if dest == "-" {
		return view.WriteHTML(stdout, data)
	}
	if info, err := os.Stat(dest); err == nil && info.IsDir() {
		return fmt.Errorf("-o %s: is a directory; name the page's file (-o %s)", dest, filepath.Join(dest, "page.html"))
	}
	dir := filepath.Dir(dest)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(dest)+".*")
	if err != nil {
		return fmt.Errorf("-o %s: cannot create a file in %s: %w", dest, dir, bareError(err))
	}
	defer os.Remove(tmp.Name()) // after the rename: nothing to remove
	err = view.WriteHTML(tmp, data)
	if err == nil {
		err = tmp.Chmod(pageMode(dest))
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), dest)
	}
	if err != nil {
		return fmt.Errorf("-o %s: %w", dest, bareError(err))
	}
	return nil
}

// pageMode is the mode of the page written to dest: the mode of the file
// it replaces, or privateMode (it shows the session: prompts, commands,
// output).
func pageMode(dest string) os.FileMode {
	if info, err := os.Stat(dest); err == nil {
		return info.Mode().Perm()
	}
	return privateMode
}

// bareError is err without the file names of a *fs.PathError or an
// *os.LinkError, which here would be the temporary file's.
func bareError(err error) error {
	var pe *fs.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe):
		return pe.Err
	case errors.As(err, &le):
		return le.Err
	}
	return err
}
