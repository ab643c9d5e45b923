package shellpatch

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/acp-proxy/acp-proxy/internal/rawjson"
	"github.com/acp-proxy/acp-proxy/internal/shellwrite"
	"github.com/acp-proxy/acp-proxy/internal/toolcall"
)

// agentShape is how an agent reports a shell command in rawInput (docs/agents.md).
type agentShape uint8

const (
	shapeUnknown   agentShape = iota
	shapeCodexArgv            // codex-acp (Rust): command is argv [bash|sh|zsh, -c|-lc, SCRIPT], cwd absolute
	shapeCodexLine            // codex-acp (TypeScript) 1.x: command is a shell-quoted `bash -lc SCRIPT`
	shapeClaude               // claude-agent-acp Bash: command is the bare script, run in the agent's persistent shell
	shapeBare                 // opencode, gemini and codex-acp (TypeScript) 2.x: command is the bare script, run in a fresh shell
)

// command is a shell command found in a rawInput: the script and where it runs.
type command struct {
	shape  agentShape
	script string
	// dir is the directory the command runs in, absolute; "" means the session's directory
	// (or, for claude, wherever its shell was left).
	dir string
	// wrapper is claude's command when it wraps script in a new shell (`bash -lc SCRIPT`): what
	// Claude Code transforms, and a shell whose cd leaves claude's own shell where it was.
	wrapper string
}

// claudeText is the text Claude Code transforms before its shell runs it.
func (c command) claudeText() string {
	if c.wrapper != "" {
		return c.wrapper
	}
	return c.script
}

// bareScriptsArePOSIX reports whether agents that report bare scripts (claude, opencode, gemini)
// run them in a POSIX shell. On Windows they run PowerShell or cmd (claude's Git Bash has Windows
// paths), so those scripts stand aside there.
var bareScriptsArePOSIX = runtime.GOOS != "windows"

// bareAgent is an agent whose shell tool takes a bare script: the keys its input may hold beside
// the command. Any other key might change where or how the command runs (gemini's
// additional_permissions, say), so its call is not rewritten.
type bareAgent struct {
	keys []string
	// posixShell reports whether the agent's shell is one whose meaning shellwrite knows.
	posixShell func() bool
	// wrapsScripts: the agent's older releases sent the command as the shell-quoted line
	// `bash -lc SCRIPT` (codex-acp TypeScript 1.x), which is read as SCRIPT, run in that shell.
	wrapsScripts bool
	// quotesRequests: the agent's permission request may name the script as one shell-quoted
	// word, where the call's own messages name it bare (codex-acp TypeScript 2.x strips the
	// shell from `bash -lc 'SCRIPT'` but leaves SCRIPT quoted when it holds a quote).
	quotesRequests bool
}

// bareAgents are known by the name they give in initialize's agentInfo.
var bareAgents = map[string]bareAgent{
	// opencode runs the user's $SHELL (bash where it is unset or unsuitable); fish, nu or
	// PowerShell read a script otherwise.
	"opencode": {keys: []string{"command", "description", "workdir", "cwd", "timeout"}, posixShell: shellIsPOSIX},
	// kilo, an opencode fork, has opencode's shell tool and picks its shell the same way. Its
	// permission request adds heredoc: true when its bash parser finds a heredoc (a fact about
	// the script, for its permission rules; 7.7.7's binary), which changes nothing of the run.
	"kilo": {keys: []string{"command", "description", "workdir", "cwd", "timeout", "heredoc"}, posixShell: shellIsPOSIX},
	// gemini-cli runs `bash -c` outside Windows.
	"gemini-cli": {keys: []string{"command", "description", "dir_path", "directory", "is_background", "delay_ms"},
		posixShell: func() bool { return true }},
	// codex-acp (TypeScript) 2.x, the ACP registry's Codex: exec_command's script, run by codex's
	// unified exec as `SHELL -lc SCRIPT` on a PTY in cwd, a fresh shell each time. codex runs only
	// bash, zsh or sh outside Windows (the user's login shell when it is one of them).
	"@agentclientprotocol/codex-acp": {keys: codexLineKeys, posixShell: func() bool { return true },
		wrapsScripts: true, quotesRequests: true},
}

// shellIsPOSIX reports whether $SHELL, which the proxy shares with the agent it starts, is bash,
// zsh, sh or dash, or unset.
func shellIsPOSIX() bool {
	switch filepath.Base(os.Getenv("SHELL")) {
	case ".", "bash", "zsh", "sh", "dash":
		return true
	}
	return false
}

// commandOf finds the command in rawInput. claude says whether the call is claude-agent-acp's Bash
// (known from the call's _meta.claudeCode.toolName); agent is the agent's name from initialize.
// ok is false for shapes the filter does not know, which stand aside.
func commandOf(rawInput []byte, claude bool, agent, sessionCwd string) (command, bool) {
	cmd, ok := toolcall.ReadCommand(rawInput)
	if !ok {
		return command{}, false
	}
	cwd, hasCwd := rawjson.GetString(rawInput, "cwd")
	if cmd.Array {
		if claude {
			return command{}, false
		}
		script, ok := shellwrite.ScriptFromArgv(cmd.Argv)
		dir, dirOK := codexDir(cwd)
		if !ok || !dirOK {
			return command{}, false
		}
		return command{shape: shapeCodexArgv, script: script, dir: dir}, true
	}
	line := cmd.Line
	if claude {
		return claudeCommand(rawInput, line)
	}
	// A known agent's shape comes first: its directory key, its shell and its other keys
	// decide, and a `bash -c '…'` line is then a bare script, which writes no file.
	if a, ok := bareAgents[strings.ToLower(agent)]; ok {
		if _, wrapped := shellwrite.ScriptFromCommandLine(line); !a.wrapsScripts || !wrapped {
			return bareCommand(rawInput, line, a, sessionCwd)
		}
	}
	script, ok := shellwrite.ScriptFromCommandLine(line)
	if !ok || !onlyKeys(rawInput, codexLineKeys) {
		return command{}, false
	}
	dir := ""
	if hasCwd {
		if dir, ok = codexDir(cwd); !ok {
			return command{}, false
		}
	}
	return command{shape: shapeCodexLine, script: script, dir: dir}, true
}

// codexLineKeys are the keys of codex-acp TypeScript's rawInput; another key may change where or
// how the command runs.
var codexLineKeys = []string{"command", "cwd"}

// codexDir is where a codex command runs, given its absolute cwd. codex hands the cwd to the
// kernel as it is (it joins the model's workdir without normalising it), and the kernel resolves
// a '..' physically: ROOT/link/.. is the parent of link's target, not ROOT. Such a cwd is
// resolved here the same way.
func codexDir(cwd string) (string, bool) {
	if !filepath.IsAbs(cwd) {
		return "", false
	}
	if !slices.Contains(strings.Split(cwd, "/"), "..") {
		return cwd, true
	}
	dir, err := filepath.EvalSymlinks(cwd)
	return dir, err == nil
}

// onlyKeys reports whether every key of the object obj is one of keys.
func onlyKeys(obj []byte, keys []string) bool {
	known := true
	err := rawjson.Members(obj, func(key, _ []byte) bool {
		known = false
		for _, k := range keys {
			known = known || rawjson.KeyIs(key, k)
		}
		return known
	})
	return err == nil && known
}

// claudeCommand is claude's Bash input: the bare script. Claude's tool has no directory key; one
// in its input is a shape this filter does not know.
func claudeCommand(rawInput []byte, script string) (command, bool) {
	if !bareScriptsArePOSIX {
		return command{}, false
	}
	for _, k := range toolcall.DirectoryKeys {
		if _, ok := rawjson.Get(rawInput, k); ok {
			return command{}, false
		}
	}
	if inner, ok := shellwrite.ScriptFromCommandLine(script); ok {
		// `bash -lc SCRIPT`, run by claude's shell: SCRIPT runs in a new shell that starts
		// where claude's is.
		return command{shape: shapeClaude, script: inner, wrapper: script}, true
	}
	return command{shape: shapeClaude, script: script}, true
}

// bareCommand is opencode's {command, description, workdir|cwd} or gemini's {command, dir_path}:
// a bare script run in a fresh shell in the named directory, or the session's. A key the agent's
// tool does not have, or two directory keys, leave the directory unknown: no rewrite.
func bareCommand(rawInput []byte, script string, a bareAgent, sessionCwd string) (command, bool) {
	if !bareScriptsArePOSIX || !a.posixShell() {
		return command{}, false
	}
	if !onlyKeys(rawInput, a.keys) {
		return command{}, false
	}
	c := command{shape: shapeBare, script: script}
	for _, k := range toolcall.DirectoryKeys {
		raw, ok := rawjson.Get(rawInput, k)
		if !ok {
			continue
		}
		dir, err := rawjson.Unquote(raw)
		if err != nil || c.dir != "" || dir == "" {
			return command{}, false
		}
		if !filepath.IsAbs(dir) {
			if !filepath.IsAbs(sessionCwd) {
				return command{}, false
			}
			dir = filepath.Join(sessionCwd, dir)
		}
		c.dir = filepath.Clean(dir)
	}
	return c, true
}

// strippedLine reports whether rawInput is codex TypeScript's permission request for cmd, a
// command line it recognised: the request reports the script without its shell, in the same
// directory.
func strippedLine(rawInput []byte, cmd command) bool {
	if cmd.shape != shapeCodexLine {
		return false
	}
	script, _ := rawjson.GetString(rawInput, "command")
	cwd, _ := rawjson.GetString(rawInput, "cwd")
	return script == cmd.script && cwd == cmd.dir
}

// sameScript reports whether a permission request that names requested asks to run the script
// the call reported: the same text, or, for an agent that quotes its requests, that text as one
// shell word that unquotes to it.
func sameScript(reported, requested, agent string) bool {
	if requested == reported {
		return true
	}
	a, ok := bareAgents[strings.ToLower(agent)]
	if !ok || !a.quotesRequests {
		return false
	}
	word, ok := shellwrite.SingleWord(requested)
	return ok && word == reported
}
