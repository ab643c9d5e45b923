package policy

import (
	"encoding/json"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/acp-proxy/acp-proxy/internal/rawjson"
	"github.com/acp-proxy/acp-proxy/internal/shellwrite"
	"github.com/acp-proxy/acp-proxy/internal/toolcall"
)

// toolCall is what a policy reads of a tool call (a permission request's toolCall, or a
// tool_call / tool_call_update): only what rules are about.
type toolCall struct {
	ID        string          `json:"toolCallId"`
	Kind      string          `json:"kind"`
	Status    string          `json:"status"`
	Title     string          `json:"title"`
	RawInput  json.RawMessage `json:"rawInput"`
	Locations []struct {
		Path string `json:"path"`
	} `json:"locations"`
	Content []struct {
		Type string `json:"type"`
		Path string `json:"path"`
	} `json:"content"`
}

// kindTools are the ACP tool kinds rules name, by the tool Claude Code calls them.
var kindTools = map[string]Tool{
	"execute": Bash, "edit": Edit, "delete": Edit, "move": Edit,
	"read": Read, "search": Read, "fetch": WebFetch,
}

// call is the Call a policy decides for tc, of the agent named agent, in a session whose
// directory is cwd.
func (tc *toolCall) call(agent, cwd string) Call {
	c := Call{Agent: agent, Cwd: cwd, Tool: kindTools[tc.Kind], Title: tc.Title}
	input := map[string]json.RawMessage{}
	_ = json.Unmarshal(tc.RawInput, &input) // not an object: nothing in it
	if _, ok := input["command"]; ok && c.Tool != Edit {
		// a command is what runs, whatever kind the agent files it under (codex calls `ls`
		// and `cat f` read and search, and shows no file for them)
		c.Tool = Bash
	}
	switch c.Tool {
	case Bash:
		c.readCommand(tc.RawInput)
	case Edit, Read:
		c.Paths = tc.paths(input, cwd)
		if len(c.Paths) == 0 {
			c.Unknown = "the call names no file"
		}
	case WebFetch:
		var raw string
		_ = json.Unmarshal(input["url"], &raw)
		if u, err := url.Parse(raw); err == nil && u.Hostname() != "" {
			c.Host = strings.ToLower(u.Hostname())
		} else {
			c.Unknown = "the call names no URL"
		}
	}
	return c
}

// readCommand finds the command in a rawInput (toolcall.ReadCommand): codex's argv [bash, -lc,
// SCRIPT] (or a program's own argv), a shell-quoted `bash -lc SCRIPT` line (codex-acp TypeScript
// 1.x), one quoted word holding the script (its 2.x permission requests), or the bare script
// (claude, opencode, gemini). No command (gemini's permission request carries only a title,
// which is never read as one): Unknown.
func (c *Call) readCommand(rawInput []byte) {
	for _, k := range toolcall.DirectoryKeys {
		if dir, ok := rawjson.GetString(rawInput, k); ok && dir != "" {
			if !filepath.IsAbs(dir) {
				dir = filepath.Join(c.Cwd, dir)
			}
			c.Dir = dir
			break
		}
	}
	cmd, ok := toolcall.ReadCommand(rawInput)
	switch {
	case ok && cmd.Array && len(cmd.Argv) > 0:
		if script, ok := shellwrite.ScriptFromArgv(cmd.Argv); ok && systemProgram(cmd.Argv[0]) {
			c.Script = script
		} else {
			c.Argv = cmd.Argv
		}
	case ok && !cmd.Array && strings.TrimSpace(cmd.Line) != "":
		line := cmd.Line
		c.Script = line
		if script, ok := shellwrite.ScriptFromCommandLine(line); ok {
			c.Script = script
		} else if word, ok := shellwrite.SingleWord(line); ok && strings.ContainsAny(line, `'"\`) {
			c.Script = word
		}
	default:
		c.Unknown = "the request does not carry the command (rawInput.command)"
	}
	if c.Dir == "" && c.Cwd == "" {
		c.Unknown = "the session's directory is not known"
	}
}

// pathKeys are the rawInput keys agents name a file with.
var pathKeys = []string{"file_path", "filepath", "filePath", "path", "abs_path", "notebook_path", "old_path", "new_path", "destination",
	"target_file", "target_directory"} // grok-build's read_file and list_dir

// paths are the files tc names (locations, diffs, rawInput), absolute: a relative one is taken
// relative to the session's directory.
func (tc *toolCall) paths(input map[string]json.RawMessage, cwd string) []string {
	var out []string
	add := func(p string) {
		if p == "" {
			return
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(cwd, p)
		}
		for _, q := range out {
			if q == p {
				return
			}
		}
		out = append(out, p)
	}
	for _, l := range tc.Locations {
		add(l.Path)
	}
	for _, item := range tc.Content {
		if item.Type == "diff" {
			add(item.Path)
		}
	}
	for _, k := range pathKeys {
		var p string
		if json.Unmarshal(input[k], &p) == nil {
			add(p)
		}
	}
	return out
}
