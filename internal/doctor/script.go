package doctor

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Script is an agent that is a script run through its #! line. Run through
// env (`#!/usr/bin/env node`, as every npm agent's command is on Unix;
// `#!/usr/bin/env python3`, `#!/usr/bin/env -S bun run`), it runs only where
// its interpreter is on PATH, and an editor's PATH is often smaller than a
// shell's. A Node script runs only on the Node its package asks for.
type Script struct {
	// Script is the script, its links resolved.
	Script string
	// Interpreter is the program its #! line runs ("node", "python3"),
	// Args the words after it there ("run" of `-S bun run`); ViaEnv says
	// that env finds it on PATH.
	Interpreter string
	Args        []string
	ViaEnv      bool
	// Path is the interpreter as this shell finds it, absolute ("" when it
	// is not found); Version what node says it is ("v22.1.0"; other
	// interpreters are not asked).
	Path, Version string
	// Package, PackageVersion and Engines are the name, version and
	// engines.node of the package.json nearest a Node script (the agent's
	// package).
	Package, PackageVersion, Engines string
}

// FindScript is the script at path (an agent's executable) when its #! line
// runs an interpreter through env, or runs node; nil otherwise.
func FindScript(path string) *Script {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return nil
	}
	s := readShebang(real)
	if s == nil || (!s.ViaEnv && !s.isNode()) {
		return nil
	}
	if s.ViaEnv {
		if p, err := exec.LookPath(s.Interpreter); err == nil {
			if s.Path, err = filepath.Abs(p); err != nil {
				s.Path = p
			}
		}
	}
	if s.isNode() && s.Path != "" {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if out, err := exec.CommandContext(ctx, s.Path, "--version").Output(); err == nil {
			s.Version = strings.TrimSpace(string(out))
		}
		s.readPackage()
	}
	return s
}

// readShebang reads the #! line of the file at path: the interpreter and
// its arguments, through env or not (nil when there is none).
func readShebang(path string) *Script {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	line, _ := bufio.NewReader(io.LimitReader(f, 4<<10)).ReadString('\n')
	rest, ok := strings.CutPrefix(line, "#!")
	words := strings.Fields(rest)
	if !ok || len(words) == 0 {
		return nil
	}
	s := &Script{Script: path}
	if filepath.Base(words[0]) != "env" {
		s.Interpreter, s.Path, s.Args = filepath.Base(words[0]), words[0], words[1:]
		return s
	}
	// env's options (-S splits the rest into words, as Fields did) come
	// before the interpreter; an assignment NAME=VALUE sets its variable.
	words = words[1:]
	for len(words) > 0 && (strings.HasPrefix(words[0], "-") || strings.Contains(words[0], "=")) {
		words = words[1:]
	}
	if len(words) == 0 {
		return nil
	}
	s.Interpreter, s.Args, s.ViaEnv = words[0], words[1:], true
	return s
}

func (s *Script) isNode() bool { return s.Interpreter == "node" || s.Interpreter == "nodejs" }

// readPackage reads the package.json nearest the script, in its directory
// or above it, up to the package's own directory in node_modules.
func (s *Script) readPackage() {
	for dir := filepath.Dir(s.Script); ; dir = filepath.Dir(dir) {
		b, err := os.ReadFile(filepath.Join(dir, "package.json"))
		if err == nil {
			var pkg struct {
				Name, Version string
				Engines       struct{ Node string } `json:"engines"`
			}
			if json.Unmarshal(b, &pkg) == nil && pkg.Name != "" {
				s.Package, s.PackageVersion, s.Engines = pkg.Name, pkg.Version, pkg.Engines.Node
				return
			}
		}
		if parent := filepath.Dir(dir); parent == dir || filepath.Base(parent) == "node_modules" {
			return
		}
	}
}

// Notes are what a user of this agent should know about its interpreter,
// each in a sentence or two: that the interpreter must be on the editor's
// PATH too, and when the Node found does not satisfy the package's
// engines.node.
func (s *Script) Notes() []string {
	var notes []string
	if s.ViaEnv {
		notes = append(notes, fmt.Sprintf("the agent is a %s script (%s, run by the %s on PATH through its #! line): "+
			"an editor starts it only if %s is on the editor's PATH too, and a GUI editor's PATH is often smaller than "+
			"your shell's. If the editor says %s was not found, use the command below, which names %s by its path.",
			s.Interpreter, s.Script, s.Interpreter, s.Interpreter, s.Interpreter, s.Interpreter))
	}
	if p := s.NotFound(); p != "" {
		notes = append(notes, p)
	}
	if p := s.EnginesProblem(); p != "" {
		notes = append(notes, p)
	}
	return notes
}

// NotFound is a sentence saying that the interpreter env runs is not on
// this shell's PATH, and the fix; "" when it is, or env does not run it.
func (s *Script) NotFound() string {
	if !s.ViaEnv || s.Path != "" {
		return ""
	}
	return fmt.Sprintf("its #! line runs %s through env, and %s is not on this shell's PATH: "+
		"install it, or put its directory on PATH (the editor's too).", s.Interpreter, s.Interpreter)
}

// EnginesProblem is a sentence saying that the running Node does not
// satisfy the agent's engines.node, and the fix; "" when it does, or when
// either is unknown.
func (s *Script) EnginesProblem() string {
	if s.Engines == "" || s.Version == "" {
		return ""
	}
	ok, known := satisfies(s.Version, s.Engines)
	if !known || ok {
		return ""
	}
	return fmt.Sprintf("%s %s needs Node %s (engines.node in its package.json), but node on PATH is %s (%s): "+
		"install a Node that satisfies it, then reinstall the agent (npm picks the newest release "+
		"the running Node allows, so it may also have installed an older one).",
		s.Package, s.PackageVersion, s.Engines, s.Version, s.Path)
}

// Command is argv with the script run by its interpreter's absolute path:
// a command that works whatever the editor's PATH. nil when the
// interpreter was not found, or the #! line names it by path already.
func (s *Script) Command(argv []string) []string {
	if !s.ViaEnv || s.Path == "" {
		return nil
	}
	cmd := append(append([]string{s.Path}, s.Args...), s.Script)
	return append(cmd, argv[1:]...)
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
