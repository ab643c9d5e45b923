package policy

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// commandPattern is the spec of a Bash rule: the words of one command, as the program receives
// them. A word "*" stands for any words (none included); a '*' inside a word for any characters
// of that word; a last word ending in ":*" (Claude Code's prefix form) or a last word "*" for any
// further words.
type commandPattern struct {
	words  []string
	prefix bool
}

// parseCommandPattern parses the text inside Bash( … ).
func parseCommandPattern(spec string) (commandPattern, error) {
	if i := strings.IndexAny(spec, "'\"\\$`;|&<>(){}\n"); i >= 0 {
		return commandPattern{}, fmt.Errorf("Bash(%s): %q: a Bash rule is the words of one command as the program gets them, "+
			"without quotes, $, or operators (;, |, &&, >); a command line with several commands is allowed when each of them is", spec, spec[i])
	}
	var p commandPattern
	s := strings.TrimSpace(spec)
	if before, ok := strings.CutSuffix(s, ":*"); ok {
		p.prefix, s = true, before
	}
	p.words = strings.Fields(s)
	if n := len(p.words); n > 0 && p.words[n-1] == "*" && !p.prefix {
		p.prefix, p.words = true, p.words[:n-1]
	}
	if len(p.words) == 0 {
		return commandPattern{}, fmt.Errorf("Bash(%s): no command (Bash alone is every command)", spec)
	}
	if strings.Contains(p.words[0], "*") {
		return commandPattern{}, fmt.Errorf("Bash(%s): the program %q must be named without *", spec, p.words[0])
	}
	return p, nil
}

// exact reports whether the pattern names one command line and no other: no '*' anywhere.
func (p commandPattern) exact() bool {
	if p.prefix {
		return false
	}
	for _, w := range p.words {
		if strings.Contains(w, "*") {
			return false
		}
	}
	return true
}

// match reports whether argv is a command the pattern names. The program is argv[0] exactly, or,
// with byName (what deny, ask and stop rules use), any path ending in that name (/usr/bin/git is
// git); an allow rule does not stretch to ./git or /tmp/x/git.
func (p commandPattern) match(argv []string, byName bool) bool {
	if len(argv) == 0 {
		return false
	}
	prog := argv[0]
	if byName {
		prog = filepath.Base(prog)
	}
	if prog != p.words[0] {
		return false
	}
	return matchWords(p.words[1:], argv[1:], p.prefix)
}

// matchWords matches words against args: "*" any run of words, '*' in a word any characters;
// prefix: args may go on after the last word.
func matchWords(words, args []string, prefix bool) bool {
	if len(words) == 0 {
		return prefix || len(args) == 0
	}
	if words[0] == "*" {
		for i := 0; i <= len(args); i++ {
			if matchWords(words[1:], args[i:], prefix) {
				return true
			}
		}
		return false
	}
	return len(args) > 0 && matchStar(words[0], args[0]) && matchWords(words[1:], args[1:], prefix)
}

// matchStar matches s against pattern, in which '*' is any characters and nothing else is special.
func matchStar(pattern, s string) bool {
	star, back := -1, 0
	i, j := 0, 0
	for j < len(s) {
		switch {
		case i < len(pattern) && pattern[i] == '*':
			star, back = i, j
			i++
		case i < len(pattern) && pattern[i] == s[j]:
			i++
			j++
		case star >= 0:
			back++
			i, j = star+1, back
		default:
			return false
		}
	}
	for i < len(pattern) && pattern[i] == '*' {
		i++
	}
	return i == len(pattern)
}

// pathPattern is the spec of an Edit or Read rule, as Claude Code writes paths:
// //abs/path is absolute, ~/path is under the home directory, /path, ./path and path are in the
// session's directory (its cwd: the project), ../path outside it. '*' is any characters of one
// name, '**' any names; a pattern without a '/' (*.env) is a name at any depth.
type pathPattern struct {
	abs      bool     // matched against the absolute path
	anyDepth bool     // one name, matched against a path's last name
	segs     []string // the pattern's names
	any      bool     // every path
}

// parsePathPattern parses the text inside Edit( … ) or Read( … ).
func parsePathPattern(spec string) (pathPattern, error) {
	s := strings.TrimSpace(spec)
	var p pathPattern
	switch {
	case s == "" || s == "//**":
		return pathPattern{any: true}, nil
	case strings.HasPrefix(s, "//"):
		p.abs, s = true, s[1:]
	case strings.HasPrefix(s, "~/"):
		home, err := os.UserHomeDir()
		if err != nil {
			return pathPattern{}, fmt.Errorf("%s: %w", spec, err)
		}
		p.abs, s = true, filepath.ToSlash(home)+s[1:]
	case strings.HasPrefix(s, "~"):
		return pathPattern{}, fmt.Errorf("%s: only ~/ is known (not another user's home)", spec)
	case strings.HasPrefix(s, "/"):
		s = "." + s // Claude Code: /path is relative to the project
	}
	if strings.ContainsAny(s, "?[]{}\\") {
		return pathPattern{}, errors.New(spec + ": only * and ** are patterns (no ?, [ ], { } or \\)")
	}
	s = strings.TrimSuffix(s, "/")
	p.anyDepth = !p.abs && !strings.Contains(s, "/")
	if p.abs {
		p.segs = strings.Split(strings.TrimPrefix(s, "/"), "/")
	} else {
		p.segs = cleanSegs(strings.Split(s, "/"))
	}
	if len(p.segs) == 0 {
		return pathPattern{}, errors.New(spec + ": names no file (. is the session's directory itself)")
	}
	return p, nil
}

// cleanSegs drops "." and empty names of a relative pattern, keeping leading "..".
func cleanSegs(segs []string) []string {
	out := segs[:0]
	for _, s := range segs {
		if s != "" && s != "." {
			out = append(out, s)
		}
	}
	return out
}

// match reports whether the absolute, clean path p matches, in a session whose directory is cwd.
// broad (deny, ask, stop) lets a bare name match at any depth, outside cwd too; otherwise a
// relative pattern matches outside cwd only when it says so (../…).
func (pp pathPattern) match(p, cwd string, broad bool) bool {
	if pp.any {
		return true
	}
	if pp.abs {
		return matchSegs(pp.segs, strings.Split(strings.TrimPrefix(filepath.ToSlash(filepath.Clean(p)), "/"), "/"))
	}
	rel, err := filepath.Rel(cwd, p)
	if err != nil {
		return broad && pp.anyDepth && matchStar(pp.segs[0], filepath.Base(p))
	}
	rel = filepath.ToSlash(rel)
	outside := rel == ".." || strings.HasPrefix(rel, "../")
	if pp.anyDepth {
		return (broad || !outside) && matchStar(pp.segs[0], filepath.Base(p))
	}
	if outside && pp.segs[0] != ".." {
		return false
	}
	return matchSegs(pp.segs, strings.Split(rel, "/"))
}

// matchSegs matches path names against pattern names: "**" any names (none included).
func matchSegs(pat, names []string) bool {
	if len(pat) == 0 {
		return len(names) == 0
	}
	if pat[0] == "**" {
		for i := 0; i <= len(names); i++ {
			if matchSegs(pat[1:], names[i:]) {
				return true
			}
		}
		return false
	}
	return len(names) > 0 && matchStar(pat[0], names[0]) && matchSegs(pat[1:], names[1:])
}
