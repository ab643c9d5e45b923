package doctor

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// NodeScript is an agent that is a Node script run through its #! line
// (`#!/usr/bin/env node`), as every npm agent's command is on Unix: it runs
// only where node is on PATH, and only on the Node its package asks for.
type NodeScript struct {
	// Script is the script, its links resolved.
	Script string
	// Node is node as this shell finds it on PATH, absolute ("" when it
	// is not found), NodeVersion what it says it is ("v22.1.0").
	Node, NodeVersion string
	// Package, Version and Engines are the name, version and engines.node
	// of the package.json nearest the script (the agent's package).
	Package, Version, Engines string
}

// FindNodeScript is the Node script at path (an agent's executable), or nil
// when it is not one.
func FindNodeScript(path string) *NodeScript {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return nil
	}
	if !runsOnNode(real) {
		return nil
	}
	n := &NodeScript{Script: real}
	if node, err := exec.LookPath("node"); err == nil {
		if n.Node, err = filepath.Abs(node); err != nil {
			n.Node = node
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if out, err := exec.CommandContext(ctx, n.Node, "--version").Output(); err == nil {
			n.NodeVersion = strings.TrimSpace(string(out))
		}
	}
	n.readPackage()
	return n
}

// runsOnNode reports whether the file at path starts with a #! line that
// runs node (directly, or through env).
func runsOnNode(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	line, _ := bufio.NewReader(f).ReadString('\n')
	rest, ok := strings.CutPrefix(line, "#!")
	if !ok {
		return false
	}
	for _, word := range strings.Fields(rest) {
		switch base := filepath.Base(word); {
		case base == "env" || strings.HasPrefix(word, "-"):
			continue
		default:
			return base == "node" || base == "nodejs"
		}
	}
	return false
}

// readPackage reads the package.json nearest the script, in its directory
// or above it, up to the package's own directory in node_modules.
func (n *NodeScript) readPackage() {
	for dir := filepath.Dir(n.Script); ; dir = filepath.Dir(dir) {
		b, err := os.ReadFile(filepath.Join(dir, "package.json"))
		if err == nil {
			var pkg struct {
				Name, Version string
				Engines       struct{ Node string } `json:"engines"`
			}
			if json.Unmarshal(b, &pkg) == nil && pkg.Name != "" {
				n.Package, n.Version, n.Engines = pkg.Name, pkg.Version, pkg.Engines.Node
				return
			}
		}
		if parent := filepath.Dir(dir); parent == dir || filepath.Base(parent) == "node_modules" {
			return
		}
	}
}

// Notes are what a user of this agent should know about running it on Node,
// each in a sentence or two: that node must be on the editor's PATH too, and
// when the Node found does not satisfy the package's engines.node.
func (n *NodeScript) Notes() []string {
	notes := []string{fmt.Sprintf("the agent is a Node script (%s, run by the node on PATH): an editor "+
		"starts it only if node is on the editor's PATH too, and a GUI editor's PATH is often smaller than "+
		"your shell's. If the editor says node was not found, use the command below, which names node by its path.", n.Script)}
	if n.Node == "" {
		notes = append(notes, "node is not on this shell's PATH either: install Node, or put its directory on PATH.")
	}
	if p := n.EnginesProblem(); p != "" {
		notes = append(notes, p)
	}
	return notes
}

// EnginesProblem is a sentence saying that the running Node does not
// satisfy the agent's engines.node, and the fix; "" when it does, or when
// either is unknown.
func (n *NodeScript) EnginesProblem() string {
	if n.Engines == "" || n.NodeVersion == "" {
		return ""
	}
	ok, known := satisfies(n.NodeVersion, n.Engines)
	if !known || ok {
		return ""
	}
	return fmt.Sprintf("%s %s needs Node %s (engines.node in its package.json), but node on PATH is %s (%s): "+
		"install a Node that satisfies it, then reinstall the agent (npm picks the newest release "+
		"the running Node allows, so it may also have installed an older one).",
		n.Package, n.Version, n.Engines, n.NodeVersion, n.Node)
}

// Command is argv with the script run by node's absolute path: a command
// that works whatever the editor's PATH. nil when node was not found.
func (n *NodeScript) Command(argv []string) []string {
	if n.Node == "" {
		return nil
	}
	return append([]string{n.Node, n.Script}, argv[1:]...)
}

// satisfies reports whether version ("v20.11.1") satisfies the npm range
// spec (">=18", "^20.9.0 || >=22", ">=18.0.0 <21", "20.x"); known is false
// for a range it cannot read.
func satisfies(version, spec string) (ok, known bool) {
	v, vok := parseVersion(version)
	if !vok {
		return false, false
	}
	for _, alt := range strings.Split(spec, "||") {
		all, readable := true, true
		for _, c := range strings.Fields(normalizeRange(alt)) {
			m, cok := matchComparator(v, c)
			if !cok {
				readable = false
				break
			}
			all = all && m
		}
		if !readable {
			return false, false
		}
		if all {
			return true, true
		}
	}
	return false, true
}

// normalizeRange glues an operator to its version (">= 18" → ">=18") and
// makes a hyphen range ("18 - 20") two comparators.
func normalizeRange(s string) string {
	for _, op := range []string{">=", "<=", ">", "<", "=", "^", "~"} {
		s = strings.ReplaceAll(s, op+" ", op)
	}
	if f := strings.Fields(s); len(f) == 3 && f[1] == "-" {
		return ">=" + f[0] + " <=" + f[2]
	}
	return s
}

// matchComparator reports whether v matches one comparator (">=18.0.0",
// "^20.9", "~20.1", "20.x", "*", "20").
func matchComparator(v [3]int, c string) (ok, known bool) {
	rest := strings.TrimLeft(c, "<>=^~")
	op := c[:len(c)-len(rest)]
	want, n, wok := parsePartial(rest)
	if !wok {
		return false, false
	}
	cmp := compareVersions(v, want)
	// upper is the first version past a partial or caret/tilde range.
	upper := func(level int) [3]int {
		u := [3]int{want[0], want[1], want[2]}
		u[level]++
		for i := level + 1; i < 3; i++ {
			u[i] = 0
		}
		return u
	}
	switch op {
	case ">=":
		return cmp >= 0, true
	case ">":
		if n < 3 { // >20 means >=21
			return compareVersions(v, upper(n-1)) >= 0, true
		}
		return cmp > 0, true
	case "<=":
		if n < 3 { // <=20 means <21
			return compareVersions(v, upper(n-1)) < 0, true
		}
		return cmp <= 0, true
	case "<":
		return cmp < 0, true
	case "^":
		level := 0
		if want[0] == 0 && n > 1 {
			level = 1
		}
		return cmp >= 0 && compareVersions(v, upper(level)) < 0, true
	case "~":
		level := min(1, n-1)
		return cmp >= 0 && compareVersions(v, upper(level)) < 0, true
	case "", "=":
		if n == 0 {
			return true, true // * or x
		}
		return cmp >= 0 && compareVersions(v, upper(n-1)) < 0, true
	}
	return false, false
}

// parseVersion reads "v20.11.1" or "20.11.1-pre".
func parseVersion(s string) ([3]int, bool) {
	v, n, ok := parsePartial(s)
	return v, ok && n == 3
}

// parsePartial reads a version of up to three parts, "x" or "*" ending it
// early; n is how many parts were numbers.
func parsePartial(s string) (v [3]int, n int, ok bool) {
	s = strings.TrimPrefix(strings.TrimSpace(s), "v")
	if i := strings.IndexAny(s, "-+"); i >= 0 {
		s = s[:i]
	}
	if s == "" || s == "*" {
		return v, 0, true
	}
	for i, part := range bytes.Split([]byte(s), []byte(".")) {
		if i > 2 {
			return v, 0, false
		}
		if p := string(part); p == "x" || p == "X" || p == "*" {
			return v, n, true
		}
		num, err := strconv.Atoi(string(part))
		if err != nil || num < 0 {
			return v, 0, false
		}
		v[i], n = num, i+1
	}
	return v, n, true
}

func compareVersions(a, b [3]int) int {
	for i := range 3 {
		if a[i] != b[i] {
			if a[i] < b[i] {
				return -1
			}
			return 1
		}
	}
	return 0
}
