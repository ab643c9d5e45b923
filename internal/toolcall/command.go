package toolcall

import "github.com/acp-proxy/acp-proxy/internal/rawjson"

// Command is the command a tool call's rawInput names, as the agent wrote it: its "command"
// member, an argument vector (codex-acp 0.x: [bash, -lc, SCRIPT], or a program's own argv) or
// one string (a bare script: claude, opencode, gemini, codex-acp 2.x; a shell-quoted
// `bash -lc SCRIPT` line: codex-acp 1.x; one quoted word: codex-acp 2.x's permission requests).
// What the string means is the reader's to decide (shell-to-patch reads only the shapes it
// knows; the policy reads every one, for its deny rules); this is the one reading of the JSON.
type Command struct {
	Array bool     // the member is an array: Argv; else a string: Line
	Argv  []string // the argument vector
	Line  string   // the string
}

// DirectoryKeys are the rawInput keys agents name a command's directory with: codex's cwd,
// opencode's workdir (also sent as cwd), gemini's dir_path (directory in older releases). A
// relative one is relative to the session's directory.
var DirectoryKeys = []string{"cwd", "workdir", "dir_path", "directory"}

// ReadCommand reads rawInput's "command": ok is false when it has none, or one that is neither a
// string nor an array of strings.
func ReadCommand(rawInput []byte) (c Command, ok bool) {
	raw, found := rawjson.Get(rawInput, "command")
	if !found || len(raw) == 0 {
		return Command{}, false
	}
	switch raw[0] {
	case '"':
		s, err := rawjson.Unquote(raw)
		return Command{Line: s}, err == nil
	case '[':
		c.Array, c.Argv = true, []string{}
		ok = true
		err := rawjson.Elements(raw, func(_ int, el []byte) bool {
			s, err := rawjson.Unquote(el)
			ok = err == nil
			c.Argv = append(c.Argv, s)
			return ok
		})
		if !ok || err != nil {
			return Command{}, false
		}
		return c, true
	}
	return Command{}, false
}
