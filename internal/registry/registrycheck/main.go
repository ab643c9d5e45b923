// Command registrycheck is scripts/compat-latest's view of the ACP registry.
//
//	registrycheck pins DIR   one line per directory of DIR (testdata/agents):
//	                         DIR PACKAGE PINNED REGISTRY-ID (- when none), the
//	                         package of a registry agent as the snapshot names it
//	registrycheck live       compares the live registry with the snapshot:
//	                         prints NEW/MOVED/GONE lines; exits 1 on any, 2
//	                         when the registry cannot be read
//	registrycheck file F     the same against F, a registry.json read before
//	                         (for a machine that cannot reach the registry)
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
	case len(args) == 2 && args[0] == "file":
		return file(args[1], stdout, stderr)
	}
	fmt.Fprintln(stderr, "usage: registrycheck pins DIR | registrycheck live | registrycheck file REGISTRY.JSON")
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
	now, from, err := registry.Live(ctx, client, publishedURL, agentFileURL, registry.Snapshot().IDs())
	if err != nil {
		fmt.Fprintln(stderr, "registrycheck:", err)
		return 2
	}
	return compare(now, from, stdout)
}

func file(path string, stdout, stderr io.Writer) int {
	data, err := os.ReadFile(path)
	if err == nil {
		var now *registry.Registry
		if now, err = registry.Parse(data); err == nil {
			return compare(now, path, stdout)
		}
	}
	fmt.Fprintln(stderr, "registrycheck:", err)
	return 2
}

// compare prints how now (read from from) differs from the snapshot: an
// agent it lists that the snapshot does not (doctor would call it "not an
// agent of the ACP registry"), and one whose package moved or is gone.
// Each fails the check.
func compare(now *registry.Registry, from string, stdout io.Writer) int {
	snap := registry.Snapshot()
	fmt.Fprintf(stdout, "registry: %d agents in the snapshot of %s, %d in %s\n", len(snap.Agents), snap.Date, len(now.Agents), from)
	added := registry.Added(snap, now)
	for _, a := range added {
		fmt.Fprintln(stdout, "NEW:", a)
	}
	moves := registry.Moves(snap, now)
	for _, c := range moves {
		fmt.Fprintln(stdout, c)
	}
	if len(added)+len(moves) > 0 {
		fmt.Fprintln(stdout, "registry: update internal/registry/registry.json (and the pins in testdata/agents) to follow it")
		return 1
	}
	return 0
}
