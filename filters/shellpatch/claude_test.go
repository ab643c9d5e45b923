package shellpatch

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/internal/chaintest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Claude Code 0.23.1 rebuilds a command from shell-quote's tokens only when that tokeniser finds a
// | operator and nothing before it sends the text to be single-quoted whole (cli.js, g_q).
func TestClaudeRetokenises(t *testing.T) {
	for script, want := range map[string]bool{
		"ls | head":                        true,
		"echo hi >| f":                     true, // shell-quote reads >| as > and |
		"ls \\\n| head":                    true, // the continuation is joined first
		"echo x > f && ls | head":          true,
		`echo "a > b && c | d" > gt.txt`:   false, // quoted: no operator
		"echo 'a|b' > f":                   false,
		`echo a\|b > f`:                    false,
		"true || echo x > f":               false,
		"ls |& cat":                        false,
		"echo $(ls | head) > f":            false, // $( : single-quoted whole
		"echo `ls | head` > f":             false,
		"echo $HOME | cat":                 false,
		"echo ${x} | cat":                  false,
		"for i in a; do echo $i; done | x": false, // a keyword
		"ls | head\nls":                    false, // a newline
		"sort < in.txt | head":             false, // an input redirect: quoted by shell-quote, not re-tokenised
		"echo x > f":                       false,
	} {
		assert.Equal(t, want, claudeRetokenises(script), script)
	}
}

// A claude Bash command that wraps its script in a new shell (`bash -lc SCRIPT`) writes what the
// script writes, where claude's shell is; the inner shell's cd leaves claude's shell in place.
func TestClaudeWrappedScript(t *testing.T) {
	t.Run("shown where claude's shell is", func(t *testing.T) {
		c, dir := shellPatchSession(t, &Filter{})
		got := chaintest.Run(t, c, acp.AgentToClient, claudeBash("toolu_1", "bash -lc 'echo x > f'")...)
		assert.Equal(t, filepath.Join(dir, "f"), diffPath(t, got[1].Raw, "params", "update", "content"))
	})
	t.Run("the inner cd does not move claude's shell", func(t *testing.T) {
		c, dir := shellPatchSession(t, &Filter{})
		require.NoError(t, os.Mkdir(filepath.Join(dir, "sub"), 0o755))
		got := chaintest.Run(t, c, acp.AgentToClient, claudeBash("toolu_1", "sh -c 'cd sub && echo a > x'")...)
		assert.Equal(t, filepath.Join(dir, "sub", "x"), diffPath(t, got[1].Raw, "params", "update", "content"))
		chaintest.Run(t, c, acp.AgentToClient, claudeDone("toolu_1", "completed"))
		got = chaintest.Run(t, c, acp.AgentToClient, claudeBash("toolu_2", "echo b > notes.md")...)
		assert.Equal(t, filepath.Join(dir, "notes.md"), diffPath(t, got[1].Raw, "params", "update", "content"))
	})
	t.Run("an unknown wrapped script leaves claude's shell in place", func(t *testing.T) {
		c, dir := shellPatchSession(t, &Filter{})
		chaintest.Run(t, c, acp.AgentToClient, claudeBash("toolu_1", "bash -c 'cd /tmp && ls'")...)
		chaintest.Run(t, c, acp.AgentToClient, claudeDone("toolu_1", "completed"))
		got := chaintest.Run(t, c, acp.AgentToClient, claudeBash("toolu_2", "echo b > notes.md")...)
		assert.Equal(t, filepath.Join(dir, "notes.md"), diffPath(t, got[1].Raw, "params", "update", "content"))
	})
	t.Run("Claude Code transforms the wrapper", func(t *testing.T) {
		c, _ := shellPatchSession(t, &Filter{})
		// The wrapper holds a ' and a !: double-quoted for eval, ! escaped as \!.
		got := chaintest.Run(t, c, acp.AgentToClient, claudeBash("toolu_1", `bash -lc 'echo "a!b" > f'`)...)
		assert.True(t, got[1].Original, got[1].Raw)
		got = chaintest.Run(t, c, acp.AgentToClient, claudeBash("toolu_2", `bash -lc 'echo hi >nul; echo x > f'`)...)
		assert.True(t, got[1].Original, got[1].Raw)
		// Before a quote, nul is no redirect Claude Code rewrites.
		got = chaintest.Run(t, c, acp.AgentToClient, claudeBash("toolu_3", `bash -lc 'echo hi >nul'`)...)
		assert.False(t, got[1].Original, got[1].Raw)
	})
}
