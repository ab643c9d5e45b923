package shellwrite

import (
	"errors"
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// wrapperShells are the shells agents wrap scripts in: codex runs bash on Linux, zsh on macOS, and
// sh where configured. The script's meaning is the same in all three for what Parse accepts.
var wrapperShells = []string{"bash", "sh", "zsh"}

// ScriptFromArgv unwraps codex-acp Rust's rawInput.command argv: [bash|sh|zsh (any dir prefix, e.g. /bin/bash, /usr/bin/zsh), -c|-lc, SCRIPT] -> SCRIPT. Anything else: ok=false.
func ScriptFromArgv(argv []string) (script string, ok bool) {
	if len(argv) > 0 && IsWindowsShell(argv[0]) {
		return "", false // not a POSIX shell: nothing here describes what it runs
	}
	if len(argv) != 3 || !isWrapperShell(argv[0]) || (argv[1] != "-c" && argv[1] != "-lc") {
		return "", false
	}
	for _, arg := range argv {
		if checkText(arg) != nil {
			return "", false
		}
	}
	return argv[2], true
}

// isWrapperShell reports whether path names bash, sh or zsh, directly or in any directory.
func isWrapperShell(path string) bool {
	for _, shell := range wrapperShells {
		if path == shell || strings.HasSuffix(path, "/"+shell) {
			return true
		}
	}
	return false
}

// windowsShells are the Windows command interpreters agents run commands in there (codex runs
// PowerShell by default on Windows). Their quoting, redirects and echo differ from a POSIX
// shell's in every respect, so a command for them is never read as a shell write.
var windowsShells = map[string]bool{"powershell": true, "pwsh": true, "cmd": true}

// IsWindowsShell reports whether path names PowerShell (powershell, pwsh) or cmd, in any
// directory (either slash), with or without .exe, in any case.
func IsWindowsShell(path string) bool {
	base := strings.ToLower(path[strings.LastIndexAny(path, `/\`)+1:])
	return windowsShells[strings.TrimSuffix(base, ".exe")]
}

// ScriptFromCommandLine unwraps codex-acp TypeScript's rawInput.command string such as
//
//	/bin/zsh -lc 'cat <<'\''EOF'\'' > f ...'
//
// parse it with the real shell parser into exactly 3 literal words (quote removal must be exact:
// the quote-backslash-quote-quote idiom above, double quotes, backslashes), then as ScriptFromArgv.
func ScriptFromCommandLine(cmd string) (script string, ok bool) {
	argv, err := commandLineWords(cmd)
	if err != nil {
		return "", false
	}
	return ScriptFromArgv(argv)
}

// SingleWord returns the value of cmd when it is exactly one literal shell word (quoted or not,
// no expansion), such as `"a "'$b'`, whose value is `a $b`.
func SingleWord(cmd string) (string, bool) {
	argv, err := commandLineWords(cmd)
	if err != nil || len(argv) != 1 {
		return "", false
	}
	return argv[0], true
}

// commandLineWords splits cmd into the literal words of one simple command.
func commandLineWords(cmd string) ([]string, error) {
	file, err := parseShell(cmd)
	if err != nil {
		return nil, err
	}
	if len(file.Stmts) != 1 {
		return nil, fmt.Errorf("%d statements, want 1", len(file.Stmts))
	}
	stmt := file.Stmts[0]
	if err := checkPlainStmt(stmt, false); err != nil {
		return nil, err
	}
	call, ok := stmt.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Assigns) > 0 {
		return nil, errors.New("not a simple command")
	}
	var argv []string
	for _, w := range call.Args {
		word, err := literal(cmd, w)
		if err != nil {
			return nil, err
		}
		argv = append(argv, word)
	}
	return argv, nil
}
