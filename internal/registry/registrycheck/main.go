// Command registrycheck is scripts/compat-latest's view of the ACP registry.
//
//	registrycheck pins DIR   one line per directory of DIR (testdata/agents):
//	                         DIR PACKAGE PINNED REGISTRY-ID (- when none), the
//	                         package of a registry agent as the snapshot names it
//	registrycheck live       compares the live registry with the snapshot:
//	                         prints MOVED/GONE lines; exits 1 on any, 2 when
//	                         the registry cannot be read
package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/acp-proxy/acp-proxy/internal/registry"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	switch {
	case len(args) == 2 && args[0] == "pins":
		return pins(args[1], stdout, stderr)
	case len(args) == 1 && args[0] == "live":
		client := &http.Client{Timeout: time.Minute}
		return live(context.Background(), client, registry.PublishedURL, registry.AgentFileURL, stdout, stderr)
	}
	fmt.Fprintln(stderr, "usage: registrycheck pins DIR | registrycheck live")
	return 2
}

func pins(dir string, stdout, stderr io.Writer) int {
	snap := registry.Snapshot()
	ps, err := registry.Pins(dir, snap)
	if err != nil {
		fmt.Fprintln(stderr, "registrycheck:", err)
		return 2
	}
	for _, p := range ps {
		pkg, id := p.Package, "-"
		if p.Agent != nil {
			pkg, id = p.Agent.NpmPackage(), p.Agent.ID
		}
		fmt.Fprintln(stdout, p.Dir, pkg, p.Version, id)
	}
	if untested := registry.Untested(ps, snap); len(untested) > 0 {
		fmt.Fprintln(stderr, "registrycheck: registry agents no real-agent test runs:", strings.Join(untested, ", "))
	}
	return 0
}

func live(ctx context.Context, client *http.Client, publishedURL, agentFileURL string, stdout, stderr io.Writer) int {
	snap := registry.Snapshot()
	now, from, err := registry.Live(ctx, client, publishedURL, agentFileURL, snap.IDs())
	if err != nil {
		fmt.Fprintln(stderr, "registrycheck:", err)
		return 2
	}
	fmt.Fprintf(stdout, "registry: %d agents in the snapshot of %s, %d live (%s)\n", len(snap.Agents), snap.Date, len(now.Agents), from)
	for _, a := range registry.Added(snap, now) {
		fmt.Fprintln(stdout, "NEW:", a)
	}
	moves := registry.Moves(snap, now)
	for _, c := range moves {
		fmt.Fprintln(stdout, c)
	}
	if len(moves) > 0 {
		fmt.Fprintln(stdout, "registry: update internal/registry/registry.json (and the pins in testdata/agents) to follow it")
		return 1
	}
	return 0
}
