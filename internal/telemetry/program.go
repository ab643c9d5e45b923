package telemetry

import (
	"path"
	"strings"

	"github.com/acp-proxy/acp-proxy/internal/rawjson"
)

// programName is the name of the program a command runs, from a tool
// call's rawInput.command: an argv (codex-acp's ["/bin/bash", "-lc",
// script]) or a command line (claude-agent-acp's bare script, codex TS's
// "/bin/zsh -lc '…'"). It is the script's first word when a shell runs
// one, past variable assignments (FOO=… runs no program, and its value may
// be a key), as a base name (no directory: a path may name the user's
// home). "" when there is none, or it does not look like a program's name:
// then nothing of the command is exported.
func programName(rawInput []byte) string {
	cmd, ok := rawjson.Get(rawInput, "command")
	if !ok || len(cmd) == 0 {
		return ""
	}
	var words []string
	if cmd[0] == '[' {
		_ = rawjson.Elements(cmd, func(_ int, el []byte) bool {
			s, err := rawjson.Unquote(el)
			words = append(words, s)
			return err == nil && len(words) < 3
		})
	} else if line, err := rawjson.Unquote(cmd); err == nil {
		words = shellWords(line, maxAssignments+1)
	}
	if len(words) >= 3 && isShell(words[0]) && isCommandFlag(words[1]) {
		words = shellWords(words[2], maxAssignments+1)
	}
	for _, w := range words {
		if isAssignment(w) {
			continue
		}
		return safeName(path.Base(w))
	}
	return ""
}

// maxAssignments bounds the variable assignments looked past.
const maxAssignments = 8

func isShell(w string) bool {
	switch path.Base(w) {
	case "sh", "bash", "zsh", "dash", "ksh", "fish":
		return true
	}
	return false
}

// isCommandFlag: the shell's flags end in c (-c, -lc, -ic).
func isCommandFlag(w string) bool {
	return len(w) >= 2 && w[0] == '-' && w[len(w)-1] == 'c' && !strings.HasPrefix(w, "--")
}

// isAssignment: NAME=value, a shell variable set for the command.
func isAssignment(w string) bool {
	eq := strings.IndexByte(w, '=')
	if eq <= 0 {
		return false
	}
	for i, r := range w[:eq] {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// safeName is w if it looks like a program's name (letters, digits,
// ".", "_", "+", "-", at most 64 bytes), else "".
func safeName(w string) string {
	if w == "" || len(w) > 64 || w == "." || w == ".." {
		return ""
	}
	for _, r := range w {
		if !(r == '.' || r == '_' || r == '+' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return ""
		}
	}
	return w
}

// shellWords splits a command line into its first n words (n < 0: all),
// as a shell would, roughly: blanks separate words, quotes ('…', "…") and a
// backslash keep blanks in them and are removed. A shell operator
// (;, |, &, (, ), <, >) ends the first command: its words are all.
func shellWords(line string, n int) []string {
	var words []string
	var w strings.Builder
	in, quote, escaped := false, byte(0), false
	end := func() bool {
		if in {
			words = append(words, w.String())
			w.Reset()
			in = false
		}
		return n >= 0 && len(words) >= n
	}
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case escaped:
			w.WriteByte(c)
			escaped = false
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
			w.WriteByte(c)
		case c == '\\':
			in, escaped = true, true
		case c == '\'' || c == '"':
			in, quote = true, c
		case c == ' ' || c == '\t' || c == '\n':
			if end() {
				return words
			}
		case strings.IndexByte(";|&()<>", c) >= 0:
			end()
			return words
		default:
			in = true
			w.WriteByte(c)
		}
	}
	end()
	return words
}
